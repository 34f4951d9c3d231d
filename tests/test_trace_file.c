// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_trace_file.c - the trace file shell (user/tracefile/trace_file.c): what the
 * writer leaves on disk reads back through the mapped path, whole, cut short or
 * still .partial, and through the read path from a pipe; and the memory advice
 * (user/tracefile/bigmem.c) that trace_file_read() hands to core for large arrays.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "codec_fixture.h"
#include "tracefile/bigmem.h"
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

static char dir[] = "/tmp/tc-test-trace-file-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[64];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* Writes t as the recorder does: header, META and THREADS, events in two goes, then the rest. */
static struct trace_writer *write_trace(const char *path, const struct tc_trace *t, int finish)
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

static size_t slurp(const char *path, uint8_t *buf, size_t cap)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, cap);
	assert_true(n > 0 && (size_t)n < cap);
	close(fd);
	return (size_t)n;
}

static void spill(const char *path, const uint8_t *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static void test_trace_file_read_mapped_whole(void **state)
{
	struct tc_trace *t = small_trace(), *u = NULL;
	char path[128];

	(void)state;
	path_of(path, sizeof(path), "whole.tct");
	write_trace(path, t, 1);
	assert_int_equal(trace_file_read(path, &u), 0);
	assert_int_equal(u->truncated, 0);
	assert_int_equal(u->n_events, t->n_events);
	assert_memory_equal(u->events, t->events, t->n_events * sizeof(*t->events));
	assert_memory_equal(u->samples, t->samples, t->n_samples * sizeof(*t->samples));
	trace__free(u);
	trace__free(t);
}

/* A file cut anywhere past its header reads as truncated, with the blocks that lie whole. */
static void test_trace_file_read_mapped_cut_short(void **state)
{
	struct tc_trace *t = small_trace(), *u;
	static uint8_t buf[1 << 16];
	char path[128], cut_path[128];
	size_t len, cut;

	(void)state;
	path_of(path, sizeof(path), "cut.tct");
	path_of(cut_path, sizeof(cut_path), "cut-short.tct");
	write_trace(path, t, 1);
	len = slurp(path, buf, sizeof(buf));
	for (cut = TC_TRACE_HEADER_LEN; cut < len; cut++) {
		spill(cut_path, buf, cut);
		u = NULL;
		assert_int_equal(trace_file_read(cut_path, &u), 0);
		assert_int_equal(u->truncated, 1);
		assert_true(u->n_events <= t->n_events);
		if (u->n_events)
			assert_memory_equal(u->events, t->events, u->n_events * sizeof(*u->events));
		trace__free(u);
	}
	/* shorter than a header, or empty: not a trace */
	spill(cut_path, buf, 5);
	assert_int_equal(trace_file_read(cut_path, &u), -EBADMSG);
	assert_non_null(strstr(logged, "not a valid tailcause trace"));
	spill(cut_path, buf, 0);
	assert_int_equal(trace_file_read(cut_path, &u), -EBADMSG);
	path_of(cut_path, sizeof(cut_path), "missing.tct");
	assert_int_equal(trace_file_read(cut_path, &u), -ENOENT);
	trace__free(t);
}

/* A recording still in progress (or killed) reads up to its last whole block. */
static void test_trace_file_read_partial(void **state)
{
	struct tc_trace *t = small_trace(), *u = NULL;
	char path[128], partial[160];
	struct trace_writer *w;

	(void)state;
	path_of(path, sizeof(path), "live.tct");
	w = write_trace(path, t, 0);
	snprintf(partial, sizeof(partial), "%s.partial", path);
	assert_int_equal(trace_file_read(partial, &u), 0);
	assert_int_equal(u->truncated, 1);
	assert_int_equal(u->n_events, t->n_events);
	assert_int_equal(u->n_samples, 0); /* written by finish */
	trace__free(u);
	trace_writer__abort(w);
	trace__free(t);
}

/* What cannot be mapped (a pipe) is read. */
static void test_trace_file_read_pipe(void **state)
{
	struct tc_trace *t = small_trace(), *u = NULL;
	static uint8_t buf[1 << 16];
	char path[128], fd_path[64];
	int fds[2];
	size_t len;

	(void)state;
	path_of(path, sizeof(path), "piped.tct");
	write_trace(path, t, 1);
	len = slurp(path, buf, sizeof(buf));
	assert_true(len < 65536); /* fits the pipe's buffer: no writer thread needed */
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], buf, len), (ssize_t)len);
	close(fds[1]);
	snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", fds[0]);
	assert_int_equal(trace_file_read(fd_path, &u), 0);
	assert_int_equal(u->truncated, 0);
	assert_traces_equal(t, u);
	close(fds[0]);
	trace__free(u);
	trace__free(t);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Fresh anonymous memory: nothing resident until touched or populated. */
static char *fresh(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	return p;
}

/* How many of the pages of [p, p + len) are resident (p page-aligned). */
static size_t resident_pages(char *p, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (len + page - 1) / page, in = 0;
	unsigned char *vec = malloc(n);

	assert_non_null(vec);
	assert_int_equal(mincore(p, len, vec), 0);
	for (size_t i = 0; i < n; i++)
		in += vec[i] & 1;
	free(vec);
	return in;
}

/* A large region is faulted in by the advice, before anything writes it, and stays usable. */
static void test_bigmem_prefault_populates_large(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = TC_BIGMEM_MIN + 3 * page;
	char *probe = fresh(page), *p;

	(void)state;
	if (madvise(probe, page, MADV_POPULATE_WRITE)) {
		munmap(probe, page);
		print_message(
			"skipped: no MADV_POPULATE_WRITE before Linux 5.14 (a no-op there)\n");
		skip();
	}
	munmap(probe, page);
	p = fresh(len);
	assert_int_equal(resident_pages(p, len), 0);
	/* an unaligned start, as malloc's header leaves it: the whole pages inside count */
	bigmem_prefault(p + 16, len - 16);
	assert_true(resident_pages(p + page, len - 2 * page) == (len - 2 * page) / page);
	memset(p, 0xa5, len);
	assert_int_equal(p[len - 1], (char)0xa5);
	munmap(p, len);
}

/* Below TC_BIGMEM_MIN the first touch does it: the advice leaves the region alone. */
static void test_bigmem_prefault_ignores_small(void **state)
{
	size_t len = TC_BIGMEM_MIN / 2;
	char *p = fresh(len);

	(void)state;
	bigmem_prefault(p, len);
	assert_int_equal(resident_pages(p, len), 0);
	munmap(p, len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_file_read_mapped_whole),
		cmocka_unit_test(test_trace_file_read_mapped_cut_short),
		cmocka_unit_test(test_trace_file_read_partial),
		cmocka_unit_test(test_trace_file_read_pipe),
		cmocka_unit_test(test_bigmem_prefault_populates_large),
		cmocka_unit_test(test_bigmem_prefault_ignores_small),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
