/* SPDX-License-Identifier: BSD-2-Clause */
/* log.h - one-line messages prefixed "tailcause:"; debug only under -v. */
#ifndef TAILCAUSE_IO_LOG_H
#define TAILCAUSE_IO_LOG_H

#include <stdarg.h>

/* Verbosity: 0 errors and warnings, 1 debug (-v), 2 libbpf debug (-vv). */
extern int log_level;

void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Routes libbpf's own messages to stderr: warnings at -v, debug at -vv. */
void log_setup_libbpf(void);

#endif /* TAILCAUSE_IO_LOG_H */
