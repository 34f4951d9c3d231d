/* SPDX-License-Identifier: BSD-2-Clause */
/* str.h - text into fixed buffers, never past their end; untrusted text made safe to show. */
#ifndef TAILCAUSE_LIB_STR_H
#define TAILCAUSE_LIB_STR_H

#include <stddef.h>

/* Appends the formatted text to the string in buf[0..len), cut short where it is full. */
void str_appendf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * The one escaping rule for text that comes from a trace, a peer or the system (task, IRQ
 * and host names, run ids, meta values, link lines) on its way to a terminal or a text
 * file: the first n bytes of src (up to a NUL) copied to dst[0..len) with every control
 * byte (C0, DEL, and the C1 code points U+0080..U+009F) and every byte that is not part of
 * valid UTF-8 written as \xNN; printable ASCII and valid UTF-8 pass unchanged. Cut short
 * where dst is full, never inside an escape or a character. Returns dst.
 */
char *str_escape_n(char *dst, size_t len, const char *src, size_t n);
/* str_escape_n() of a NUL-terminated src. */
char *str_escape(char *dst, size_t len, const char *src);
/* Whether str_escape() would change s: 1 if s holds a byte it escapes, else 0. */
int str_needs_escape(const char *s);
/*
 * The length (1 to 4) of the character at s[0..n) that str_escape() passes unchanged, or 0
 * where it writes s[0] as \xNN: for writers whose own format escapes what this rule does.
 */
size_t str_char_len(const char *s, size_t n);

/* Room for the escaped form of a string of n bytes (each byte at most 4: \xNN), with its NUL. */
#define STR_ESCAPED_LEN(n) (4 * (n) + 1)

#endif /* TAILCAUSE_LIB_STR_H */
