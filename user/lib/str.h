/* SPDX-License-Identifier: BSD-2-Clause */
/* str.h - text into fixed buffers, never past their end. */
#ifndef TAILCAUSE_LIB_STR_H
#define TAILCAUSE_LIB_STR_H

#include <stddef.h>

/* Appends the formatted text to the string in buf[0..len), cut short where it is full. */
void str_appendf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* TAILCAUSE_LIB_STR_H */
