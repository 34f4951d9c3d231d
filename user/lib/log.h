/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * log.h - one-line messages prefixed "tailcause:"; debug only under -v. Each is escaped
 * whole (lib/str.h): a message may quote untrusted text as it is.
 */
#ifndef TAILCAUSE_LIB_LOG_H
#define TAILCAUSE_LIB_LOG_H

#include <stdarg.h>

/* Verbosity: 0 errors and warnings, 1 debug (-v), 2 libbpf debug (-vv). */
extern int log_level;

void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* TAILCAUSE_LIB_LOG_H */
