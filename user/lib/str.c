// SPDX-License-Identifier: BSD-2-Clause
/* str.c - text into fixed buffers. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "str.h"

void str_appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t off = strnlen(buf, len);
	va_list ap;

	if (off + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
}
