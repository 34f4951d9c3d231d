// SPDX-License-Identifier: BSD-2-Clause
/* str.c - text into fixed buffers; the escaping rule for untrusted text (str.h). */
#include <stdarg.h>
#include <stdint.h>
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

/*
 * The length of the valid, printable UTF-8 character at s[0..n) (RFC 3629: no overlong
 * form, no surrogate, nothing above U+10FFFF; not a C1 control), or 0 where s[0] must be
 * escaped.
 */
static size_t utf8_char(const unsigned char *s, size_t n)
{
	uint32_t cp, min;
	size_t len;

	if (s[0] >= 0x20 && s[0] < 0x7f)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f, min = 0xa0; /* U+0080..U+009F are C1 controls */
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f, min = 0x800;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

char *str_escape_n(char *dst, size_t len, const char *src, size_t n)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t out = 0;

	if (!len)
		return dst;
	n = strnlen(src, n);
	for (size_t i = 0; i < n;) {
		size_t c = utf8_char(s + i, n - i);

		if (c) {
			if (out + c >= len)
				break;
			memcpy(dst + out, s + i, c);
			out += c;
			i += c;
			continue;
		}
		if (out + 4 >= len)
			break;
		snprintf(dst + out, 5, "\\x%02x", s[i]);
		out += 4;
		i++;
	}
	dst[out] = 0;
	return dst;
}

char *str_escape(char *dst, size_t len, const char *src)
{
	return str_escape_n(dst, len, src, (size_t)-1);
}

int str_needs_escape(const char *s)
{
	size_t n = strlen(s);

	for (size_t i = 0, c; i < n; i += c)
		if (!(c = utf8_char((const unsigned char *)s + i, n - i)))
			return 1;
	return 0;
}

size_t str_char_len(const char *s, size_t n)
{
	return n ? utf8_char((const unsigned char *)s, n) : 0;
}
