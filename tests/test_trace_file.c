// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_trace_file.c - the trace file shell (user/tracefile/trace_file.c): what the
 * writer leaves on disk reads back through the mapped path, whole, cut short or
 * still .partial, and through the read path from a pipe; and the memory advice
 * (user/tracefile/bigmem.c) that trace_file_read() hands to core for large arrays.
 * The streamed reader's tests are test_trace_stream.c.
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

#include "trace_file_fixture.h"
#include "tracefile/bigmem.h"
#include "tracefile/trace_file.h"
#include "tracefile/trace_follow.h"

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

/* 1 when MADV_POPULATE_WRITE is there (Linux 5.14), else the test is skipped. */
static int can_populate(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *probe = fresh(page);
	int ok = !madvise(probe, page, MADV_POPULATE_WRITE);

	munmap(probe, page);
	if (!ok)
		print_message(
			"skipped: no MADV_POPULATE_WRITE before Linux 5.14 (a no-op there)\n");
	return ok;
}

/* The room of a large array is faulted in by the advice, before anything writes it, and
 * stays usable. */
static void test_bigmem_prefault_populates_the_room(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = TC_BIGMEM_MIN + 3 * page;
	char *p;

	(void)state;
	if (!can_populate())
		skip();
	p = fresh(len);
	assert_int_equal(resident_pages(p, len), 0);
	/* an unaligned start, as malloc's header leaves it: the whole pages inside count */
	bigmem_prefault(p + 16, len - 16, 0, len - 16);
	assert_true(resident_pages(p + page, len - 2 * page) == (len - 2 * page) / page);
	memset(p, 0xa5, len);
	assert_int_equal(p[len - 1], (char)0xa5);
	munmap(p, len);
}

/* Only the room about to be written is faulted in, not the rest of the array: a file's
 * lengths may reserve far more than it holds. */
static void test_bigmem_prefault_only_the_room(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = 4 * TC_BIGMEM_MIN;
	size_t from = TC_BIGMEM_MIN + 100, room = 3 * page, in;
	char *p;

	(void)state;
	if (!can_populate())
		skip();
	p = fresh(len);
	bigmem_prefault(p, len, from, room);
	in = resident_pages(p, len);
	/* the room's pages, and the huge page around them where THP backs the array */
	assert_true(in >= room / page);
	assert_true(in <= ((size_t)2 << 20) / page + 4);
	assert_true(resident_pages(p + from / page * page, room) == room / page);
	munmap(p, len);
}

/* Below TC_BIGMEM_MIN the first touch does it: the advice leaves the array alone. */
static void test_bigmem_prefault_ignores_small(void **state)
{
	size_t len = TC_BIGMEM_MIN / 2;
	char *p = fresh(len);

	(void)state;
	bigmem_prefault(p, len, 0, len);
	assert_int_equal(resident_pages(p, len), 0);
	munmap(p, len);
}

struct scanned {
	size_t offs[64];
	uint32_t types[64];
	size_t n, index;
};

static int on_block(void *arg, uint32_t type, size_t off, size_t end)
{
	struct scanned *sc = arg;

	assert_true(end > off + 16); /* a header and a payload */
	if (type == TC_BLOCK_INDEX)
		sc->index = off;
	if ((type == TC_BLOCK_SAMPLES || type == TC_BLOCK_EVENTS) && sc->n < 64) {
		sc->offs[sc->n] = off;
		sc->types[sc->n++] = type;
	}
	return 0;
}

/* The writer's INDEX block lists every block of records where it is, with its span. */
static void test_trace_file_index(void **state)
{
	enum { N = 150000 };
	struct tc_trace *t = long_trace(N);
	static uint8_t buf[8 << 20];
	struct tc_codec_error ce;
	struct tc_block_ref *refs = NULL;
	struct scanned sc = {0};
	uint64_t ns = 0, ne = 0;
	char path[128];
	size_t len, n = 0;

	(void)state;
	path_of(path, sizeof(path), "index.tct");
	write_trace(path, t, 1);
	len = slurp(path, buf, sizeof(buf));
	assert_int_equal(codec_scan(buf, len, on_block, &sc, &ce), 0);
	assert_true(sc.index > 0);
	assert_true(sc.n >= 6); /* 150000 of each: three blocks apiece */
	assert_int_equal(codec_decode_index(buf, len, sc.index, &refs, &n, &ce), 0);
	assert_int_equal(n, sc.n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(refs[i].off, sc.offs[i]);
		assert_int_equal(refs[i].type, sc.types[i]);
		*(refs[i].type == TC_BLOCK_SAMPLES ? &ns : &ne) += refs[i].n;
		assert_true(refs[i].max_end > refs[i].min_start);
	}
	assert_int_equal(ns, N);
	assert_int_equal(ne, N);
	assert_int_equal(refs[0].min_start, t->events[0].start_ns); /* events come first */
	free(refs);
	/* anything else at that offset is not an index */
	assert_int_equal(codec_decode_index(buf, len, sc.offs[0], &refs, &n, &ce), -EBADMSG);
	trace__free(t);
}

/* A trace read while it is written: what is there, then the rest and the end. */
static void test_trace_follow_growing(void **state)
{
	struct tc_trace *t = small_trace(), *u = trace__new();
	struct trace_follow *f = NULL;
	struct trace_writer *w;
	char path[128];
	int done = 1;

	(void)state;
	assert_non_null(u);
	path_of(path, sizeof(path), "grow.tct");
	assert_int_equal(trace_follow_open(path, &f), 0);
	assert_int_equal(trace_follow_read(f, u, &done), -ENOENT);
	w = write_trace(path, t, 0);
	assert_int_equal(trace_follow_read(f, u, &done), 0);
	assert_int_equal(done, 0);
	assert_int_equal(u->n_events, t->n_events);
	assert_int_equal(u->n_samples, 0);
	assert_int_equal(trace_follow_read(f, u, &done), 0); /* nothing new */
	assert_int_equal(u->n_events, t->n_events);
	assert_int_equal(trace_writer__finish(w, t), 0);
	assert_int_equal(trace_follow_read(f, u, &done), 0);
	assert_int_equal(done, 1);
	assert_int_equal(u->n_samples, t->n_samples);
	assert_memory_equal(u->samples, t->samples, t->n_samples * sizeof(*t->samples));
	trace_follow_close(f);
	trace__free(u);
	trace__free(t);
}

/*
 * A recording far ahead of its reader: three blocks of samples that do not compress
 * (each larger than the megabyte one call reads) are read over several calls, each adding
 * a whole block and saying how much is left, until the END.
 */
static void test_trace_follow_catches_up_in_steps(void **state)
{
	struct tc_trace *t = small_trace(), *u = trace__new();
	uint64_t x = 88172645463325252ull, at = 1000000000ull, left = UINT64_MAX;
	struct trace_follow *f = NULL;
	struct trace_writer *w;
	size_t n = 3 * 65536, calls = 0, had = 0;
	struct tc_sample *s = calloc(n, sizeof(*s));
	char path[128];
	int done = 0;

	(void)state;
	assert_non_null(u);
	assert_non_null(s);
	for (size_t i = 0; i < n; i++) { /* xorshift: deltas no codec can shrink */
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		at += 1 + (x & 0xfffffff);
		s[i] = (struct tc_sample){at, at + 1 + (x >> 30), (uint32_t)(x >> 32), (uint32_t)x};
	}
	path_of(path, sizeof(path), "ahead.tct");
	w = write_trace(path, t, 0);
	for (size_t i = 0; i < n; i += 65536)
		assert_int_equal(trace_writer__samples(w, s + i, 65536), 0);
	assert_int_equal(trace_follow_open(path, &f), 0);
	assert_int_equal(trace_follow_read(f, u, &done), 0);
	assert_int_equal(trace_follow_live(f), 1);
	assert_true(trace_follow_unread(f) > 0);
	assert_int_equal(trace_writer__finish(w, t), 0);
	while (!done) {
		assert_int_equal(trace_follow_read(f, u, &done), 0);
		assert_true(u->n_samples > had || done); /* a whole block, at least, each call */
		assert_true(trace_follow_unread(f) < left || done);
		had = u->n_samples;
		left = trace_follow_unread(f);
		calls++;
		assert_true(calls < 100);
	}
	assert_true(calls >= 3);
	assert_int_equal(trace_follow_live(f), 0);
	assert_int_equal(trace_follow_unread(f), 0);
	assert_int_equal(u->n_samples, n + t->n_samples);
	assert_memory_equal(u->samples, s, n * sizeof(*s));
	trace_follow_close(f);
	free(s);
	trace__free(u);
	trace__free(t);
}

/* trace_file_check() of path's bytes, with max_bytes: its result, logged[] its reason. */
static int check_path(const char *path, uint64_t max_bytes)
{
	int fd = open(path, O_RDONLY), err;

	assert_true(fd >= 0);
	logged[0] = 0;
	err = trace_file_check(fd, path, max_bytes);
	close(fd);
	return err;
}

/* What the writer writes checks out, every table and the index included; a file over
 * the size allowed does not. */
static void test_trace_file_check_accepts_written(void **state)
{
	struct tc_trace *t = long_trace(3 * TC_BLOCK_RECORDS);
	static uint8_t buf[1 << 16];
	char path[128];
	size_t len;

	(void)state;
	path_of(path, sizeof(path), "check.tct");
	write_trace(path, t, 1);
	assert_int_equal(check_path(path, TC_PEER_TRACE_MAX), 0);
	assert_string_equal(logged, "");
	assert_int_equal(check_path(path, 100), -EFBIG);
	assert_non_null(strstr(logged, "more than the 100 accepted"));
	/* the small one: as long as its size, and one byte less */
	trace__free(t);
	t = small_trace();
	write_trace(path, t, 1);
	len = slurp(path, buf, sizeof(buf));
	assert_int_equal(check_path(path, len), 0);
	assert_int_equal(check_path(path, len - 1), -EFBIG);
	trace__free(t);
}

/* Cut short, empty, or headers that announce what the file does not hold: refused. */
static void test_trace_file_check_refuses_bad(void **state)
{
	struct tc_trace *t = small_trace();
	static uint8_t buf[1 << 16];
	struct tc_buf b = {0};
	char path[128], bad[128];
	size_t len;

	(void)state;
	path_of(path, sizeof(path), "check.tct");
	path_of(bad, sizeof(bad), "check-bad.tct");
	write_trace(path, t, 1);
	len = slurp(path, buf, sizeof(buf));
	spill(bad, buf, len - 1);
	assert_int_equal(check_path(bad, TC_PEER_TRACE_MAX), -EBADMSG);
	assert_non_null(strstr(logged, "not a valid tailcause trace: cut short"));
	spill(bad, buf, 0);
	assert_int_equal(check_path(bad, TC_PEER_TRACE_MAX), -EBADMSG);
	assert_non_null(strstr(logged, "shorter than the 32-byte header"));
	header_only(&b);
	for (int i = 0; i < 16; i++) /* 60 MiB announced, nothing there */
		add_header(&b, TC_BLOCK_SAMPLES, 60u << 20, 0);
	spill(bad, b.data, b.len);
	assert_int_equal(check_path(bad, TC_PEER_TRACE_MAX), -EBADMSG);
	assert_non_null(strstr(logged, "impossible for raw_len 62914560"));
	tc_buf_free(&b);
	trace__free(t);
}

/* An INDEX that lists the blocks but not what they hold is refused, as a streamed read
 * of the file would refuse it. */
static void test_trace_file_check_refuses_wrong_index(void **state)
{
	struct tc_trace *t = small_trace();
	struct tc_block_ref ref = {TC_BLOCK_SAMPLES, TC_TRACE_HEADER_LEN, 0, 1000000, 1045000};
	struct tc_buf b = {0};
	char path[128];

	(void)state;
	path_of(path, sizeof(path), "check-index.tct");
	for (uint64_t n = 2; n <= 3; n++) {
		header_only(&b);
		assert_int_equal(codec_encode_samples(&b, t->samples, t->n_samples), 0);
		ref.n = n;
		assert_int_equal(codec_encode_index(&b, &ref, 1), 0);
		assert_int_equal(codec_encode_end(&b, t->n_samples, 0), 0);
		spill(path, b.data, b.len);
		if (n == t->n_samples) {
			assert_int_equal(check_path(path, TC_PEER_TRACE_MAX), 0);
		} else {
			assert_int_equal(check_path(path, TC_PEER_TRACE_MAX), -EBADMSG);
			assert_non_null(strstr(logged, "its index entry says 2"));
		}
	}
	tc_buf_free(&b);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_file_read_mapped_whole),
		cmocka_unit_test(test_trace_file_read_mapped_cut_short),
		cmocka_unit_test(test_trace_file_read_partial),
		cmocka_unit_test(test_trace_file_read_pipe),
		cmocka_unit_test(test_trace_file_index),
		cmocka_unit_test(test_trace_follow_growing),
		cmocka_unit_test(test_trace_follow_catches_up_in_steps),
		cmocka_unit_test(test_bigmem_prefault_populates_the_room),
		cmocka_unit_test(test_bigmem_prefault_only_the_room),
		cmocka_unit_test(test_bigmem_prefault_ignores_small),
		cmocka_unit_test(test_trace_file_check_accepts_written),
		cmocka_unit_test(test_trace_file_check_refuses_bad),
		cmocka_unit_test(test_trace_file_check_refuses_wrong_index),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
