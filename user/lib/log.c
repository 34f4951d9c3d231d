// SPDX-License-Identifier: BSD-2-Clause
/* log.c - the one place tailcause writes diagnostics to stderr. */
#include <stdio.h>
#include <string.h>

#include "log.h"

int log_level;

static void vlog(const char *tag, const char *fmt, va_list ap)
{
	fprintf(stderr, "tailcause: %s", tag);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void log_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("", fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("warning: ", fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("", fmt, ap);
	va_end(ap);
}

void log_dbg(const char *fmt, ...)
{
	va_list ap;

	if (log_level < 1)
		return;
	va_start(ap, fmt);
	vlog("debug: ", fmt, ap);
	va_end(ap);
}
