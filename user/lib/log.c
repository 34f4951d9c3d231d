// SPDX-License-Identifier: BSD-2-Clause
/*
 * log.c - the one place tailcause writes diagnostics to stderr. A message may quote
 * a name from a trace, a peer or the system: the whole line goes through str_escape()
 * (lib/str.h), so its callers pass such text as it is.
 */
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "str.h"

/* The longest message kept; the rest is cut. */
#define LOG_MAX 2048

int log_level;

static void vlog(const char *tag, const char *fmt, va_list ap)
{
	char msg[LOG_MAX], safe[STR_ESCAPED_LEN(LOG_MAX)];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "tailcause: %s%s\n", tag, str_escape(safe, sizeof(safe), msg));
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
