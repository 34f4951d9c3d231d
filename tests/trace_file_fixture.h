/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * trace_file_fixture.h - what the tests of the trace file layer (user/tracefile) share:
 * its log lines kept, a directory of their own, traces written as the recorder writes
 * them, files read and written whole, a long trace. Include once per test program,
 * after <cmocka.h>.
 */
#ifndef TAILCAUSE_TESTS_TRACE_FILE_FIXTURE_H
#define TAILCAUSE_TESTS_TRACE_FILE_FIXTURE_H

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "codec_fixture.h"
#include "tracefile/trace_file.h"

/* The shell reports through log_err(): keep the last line for the tests. */
static char logged[512];

void log_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(logged, sizeof(logged), fmt, ap);
	va_end(ap);
}

static char warned[512];

void log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(warned, sizeof(warned), fmt, ap);
	va_end(ap);
}

static char dir[] = "/tmp/tc-test-trace-file-XXXXXX"; /* setup() makes it */

static inline int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static inline int teardown(void **state)
{
	char cmd[64];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static inline void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* Writes t as the recorder does: header, META and THREADS, events in two goes, then the rest. */
static inline struct trace_writer *write_trace(const char *path, const struct tc_trace *t,
					       int finish)
{
	struct trace_writer *w = trace_writer__open(path, 1, t->mono_ns, t->realtime_ns);

	assert_non_null(w);
	assert_int_equal(trace_writer__meta(w, t), 0);
	assert_int_equal(trace_writer__events(w, t->events, 2), 0);
	assert_int_equal(trace_writer__events(w, t->events + 2, t->n_events - 2), 0);
	if (!finish)
		return w; /* still recording: only <path>.partial exists */
	assert_int_equal(trace_writer__finish(w, t), 0);
	return NULL;
}

static inline size_t slurp(const char *path, uint8_t *buf, size_t cap)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, cap);
	assert_true(n > 0 && (size_t)n < cap);
	close(fd);
	return (size_t)n;
}

static inline void spill(const char *path, const uint8_t *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

/* A trace of n round trips 1 us apart, each with one event: several blocks of each. */
static inline struct tc_trace *long_trace(size_t n)
{
	struct tc_trace *t = trace__new();

	assert_non_null(t);
	assert_int_equal(trace__add_thread(t, 7, TC_THREAD_PROBE, 1), 0);
	for (size_t i = 0; i < n; i++) {
		struct tc_sample x = {1000000 + i * 1000, 1000000 + i * 1000 + 400, 1, 7};
		struct tc_event e =
			mkev(TC_EV_HARDIRQ, x.t_start + 100, 50 + i % 7, 1, 0, 30, 0, "");

		assert_int_equal(trace__add_samples(t, &x, 1), 0);
		assert_int_equal(trace__add_events(t, &e, 1), 0);
	}
	return t;
}

#endif /* TAILCAUSE_TESTS_TRACE_FILE_FIXTURE_H */
