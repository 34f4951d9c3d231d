// SPDX-License-Identifier: BSD-2-Clause
/*
 * ftrace_shim.c - LD_PRELOAD for trace-cmd where function tracing is locked.
 *
 * trace-cmd record always writes 1 to /proc/sys/kernel/ftrace_enabled and
 * touches set_ftrace_pid/set_ftrace_filter, and dies when that fails, even when
 * it records events only. Some kernels (this benchmark's VM) refuse those
 * writes with EPERM although ftrace_enabled already is 1 and event tracing
 * works. This shim sends those opens to /dev/null, so trace-cmd records the
 * events exactly as it would elsewhere: only the function-tracer files, which
 * an event recording does not use, are bypassed. bench/lib.sh uses it only
 * when writing 1 to ftrace_enabled fails.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/types.h>

static int bypassed(const char *path)
{
	return path &&
	       (!strcmp(path, "/proc/sys/kernel/ftrace_enabled") ||
		strstr(path, "/tracing/set_ftrace_") || strstr(path, "/tracing/set_graph_"));
}

static int mode_of(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
	static int (*real)(const char *, int, ...);
	va_list ap;
	int mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	if (!real)
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	return real(bypassed(path) ? "/dev/null" : path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	static int (*real)(const char *, int, ...);
	va_list ap;
	int mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	if (!real)
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open64");
	return real(bypassed(path) ? "/dev/null" : path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	static int (*real)(int, const char *, int, ...);
	va_list ap;
	int mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	if (!real)
		real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
	return real(dirfd, bypassed(path) ? "/dev/null" : path, flags, mode);
}
