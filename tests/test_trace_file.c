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
#include "tracefile/trace_follow.h"
#include "tracefile/trace_stream.h"

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

/* A trace of n round trips 1 us apart, each with one event: several blocks of each. */
static struct tc_trace *long_trace(size_t n)
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

/* A stretch of a long trace: its round trips only, and an empty one said so. */
static void test_trace_stream_stretch(void **state)
{
	enum { N = 150000 };
	struct tc_trace *t = long_trace(N);
	struct trace_stream_opts o = {
		.pct = 50, .from_ns = 20000000, .to_ns = 30000000, .margin_ns = 1000000};
	struct trace_stream *s = NULL;
	struct stream_source src;
	struct lat_summary st;
	uint64_t pct, in = 0;
	char path[128];

	(void)state;
	path_of(path, sizeof(path), "stretch.tct");
	write_trace(path, t, 1);
	assert_int_equal(trace_stream_open(path, &o, &s), 0);
	assert_int_equal(trace_stream_run_samples(s), N);
	assert_int_equal(trace_stream_skeleton(s)->streamed.n_samples, 10000);
	assert_int_equal(trace_stream_stats(s, &st, &pct), 0);
	assert_int_equal(st.p50, 400);
	trace_stream_source(s, &src);
	for (size_t i = 0; i < src.n_blocks; i++)
		in += src.blocks[i].type == TC_BLOCK_SAMPLES;
	assert_int_equal(in, 1); /* with the index, only the stretch's samples block */
	trace_stream_close(s);
	o.from_ns = 3600000000000ull;
	o.to_ns = UINT64_MAX;
	assert_int_equal(trace_stream_open(path, &o, &s), -ERANGE);
	trace__free(t);
}

/* The stretch's statistics as a streamed report takes them (pct: the caller's percentile). */
static void stream_stats(const char *path, uint64_t to_ns, struct lat_summary *st, uint64_t *pct)
{
	struct trace_stream_opts o = {.pct = 99.5, .to_ns = to_ns};
	struct trace_stream *s = NULL;

	assert_int_equal(trace_stream_open(path, &o, &s), 0);
	assert_int_equal(trace_stream_stats(s, st, pct), 0);
	trace_stream_close(s);
}

/* The bytes of the block at buf[off], its header's included. */
static size_t block_len(const uint8_t *buf, size_t off)
{
	return 16 + (buf[off + 8] | buf[off + 9] << 8 | buf[off + 10] << 16 |
		     (size_t)buf[off + 11] << 24);
}

/* Writes the file at path as buf (len bytes) with the block at off swapped for b's. */
static void swap_block(const char *path, const uint8_t *buf, size_t len, size_t off,
		       const struct tc_buf *b)
{
	size_t old = block_len(buf, off);
	int fd = open(path, O_WRONLY | O_TRUNC);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, off), (ssize_t)off);
	assert_int_equal(write(fd, b->data, b->len), (ssize_t)b->len);
	assert_int_equal(write(fd, buf + off + old, len - off - old), (ssize_t)(len - off - old));
	close(fd);
}

/* Swaps the RTT_HIST block of the file at path (len bytes in buf) for r's. */
static void swap_rtt_hist(const char *path, uint8_t *buf, size_t len, size_t off,
			  const struct tc_rtt_hist *r)
{
	struct tc_buf b = {0};

	assert_int_equal(codec_encode_rtt_hist(&b, r), 0);
	swap_block(path, buf, len, off, &b);
	tc_buf_free(&b);
}

/*
 * The writer's RTT_HIST block counts every round trip; a streamed report of the whole
 * run takes its statistics from it as a stretch does from the samples, and one that
 * differs from the samples is said and not used.
 */
static void test_trace_stream_rtt_hist(void **state)
{
	enum { N = 150000 };
	struct tc_trace *t = long_trace(N);
	static uint8_t buf[8 << 20];
	struct tc_rtt_hist want, got, lie;
	struct lat_summary whole, stretch, lied;
	struct tc_codec_error ce;
	uint64_t p_whole, p_stretch, p_lied, sum = 0;
	size_t len, off = 0;
	char path[128];

	(void)state;
	for (size_t i = 0; i < N; i++) /* round trips of 400 ns to about 40 us */
		t->samples[i].t_end = t->samples[i].t_start + 400 + (i * 7919) % 40000;
	path_of(path, sizeof(path), "rtt.tct");
	write_trace(path, t, 1);
	len = slurp(path, buf, sizeof(buf));
	for (size_t o = 32; o + 16 <= len; o += block_len(buf, o))
		if (buf[o] == TC_BLOCK_RTT_HIST)
			off = o;
	assert_true(off > 0);
	assert_int_equal(tc_rtt_hist__init(&want), 0);
	assert_int_equal(tc_rtt_hist__init(&got), 0);
	tc_rtt_hist_add(&want, t->samples, t->n_samples);
	assert_int_equal(codec_decode_rtt_hist(buf, len, off, &got, &ce), 0);
	assert_int_equal(got.sum, want.sum);
	assert_memory_equal(got.h, want.h, sizeof(*got.h));
	assert_int_equal(codec_decode_rtt_hist(buf, len, 32, &got, &ce), -EBADMSG);

	warned[0] = 0;
	stream_stats(path, UINT64_MAX, &whole, &p_whole);	    /* from the histogram */
	stream_stats(path, 3600000000000ull, &stretch, &p_stretch); /* counted */
	assert_string_equal(warned, "");
	assert_memory_equal(&whole, &stretch, sizeof(whole));
	assert_int_equal(p_whole, p_stretch);
	assert_int_equal(whole.n, N);

	/* as many round trips, other times: said, and the samples counted instead */
	assert_int_equal(tc_rtt_hist__init(&lie), 0);
	for (size_t i = 0; i < N; i++) {
		struct tc_sample x = {0, 100 + i % 3};

		tc_rtt_hist_add(&lie, &x, 1);
		sum += x.t_end;
	}
	assert_int_equal(lie.sum, sum);
	swap_rtt_hist(path, buf, len, off, &lie);
	stream_stats(path, UINT64_MAX, &lied, &p_lied);
	assert_non_null(strstr(warned, "round-trip histogram differs from its round trips"));
	assert_memory_equal(&lied, &stretch, sizeof(lied));
	assert_int_equal(p_lied, p_stretch);
	tc_rtt_hist__free(&want);
	tc_rtt_hist__free(&got);
	tc_rtt_hist__free(&lie);
	trace__free(t);
}

/* The offset of the first block of type in the file image buf, 0 when it has none. */
static size_t find_block(const uint8_t *buf, size_t len, uint32_t type)
{
	for (size_t o = 32; o + 16 <= len; o += block_len(buf, o))
		if (buf[o] == type)
			return o;
	return 0;
}

/* Opens path as a streamed report of the whole run does, at percentile p. */
static struct trace_stream *open_whole(const char *path, double p)
{
	struct trace_stream_opts o = {.pct = p, .to_ns = UINT64_MAX};
	struct trace_stream *s = NULL;

	assert_int_equal(trace_stream_open(path, &o, &s), 0);
	return s;
}

/* Reads every block of s as an analysis does (once each), then asks for the check. */
static int read_all_and_recheck(struct trace_stream *s)
{
	struct stream_source src;
	struct tc_trace *v = trace__view(trace_stream_skeleton(s));

	assert_non_null(v);
	trace_stream_source(s, &src);
	for (size_t i = 0; i < src.n_blocks; i++) {
		v->n_samples = v->n_events = 0;
		assert_int_equal(src.read(src.arg, &src.blocks[i], v), 0);
	}
	trace__free_view(v);
	return trace_stream_recheck(s);
}

/* A summary that does not check out: said, and the statistics counted once read. */
static void lied_to(const char *path, const uint8_t *buf, size_t len, size_t off,
		    const struct tc_rtt_summary *lie, const struct lat_summary *truth, uint64_t p99)
{
	struct tc_buf b = {0};
	struct trace_stream *s;
	struct lat_summary st;
	uint64_t pct;

	assert_int_equal(codec_encode_rtt_summary(&b, lie), 0);
	swap_block(path, buf, len, off, &b);
	tc_buf_free(&b);
	warned[0] = 0;
	s = open_whole(path, 99.0);
	assert_int_equal(trace_stream_stats(s, &st, &pct), 0);
	assert_int_equal(st.p99, lie->pct[1]); /* taken before a round trip is read */
	assert_int_equal(read_all_and_recheck(s), 1);
	assert_non_null(strstr(warned, "round-trip summary differs from its round trips"));
	assert_int_equal(trace_stream_stats(s, &st, &pct), 0);
	assert_memory_equal(&st, truth, sizeof(st));
	assert_int_equal(pct, p99);
	assert_int_equal(trace_stream_skeleton(s)->streamed.first_sample_ns, 1000000);
	assert_int_equal(trace_stream_recheck(s), 0); /* counted: nothing more to check */
	trace_stream_close(s);
}

/*
 * The writer's RTT_SUMMARY block holds the round trips' exact statistics; a streamed
 * report of the whole run takes them without reading a round trip for them, the
 * analysis's read checks them, and one that does not check out (a percentile, a start)
 * is said and counted instead.
 */
static void test_trace_stream_rtt_summary(void **state)
{
	enum { N = 150000 };
	struct tc_trace *t = long_trace(N);
	static uint8_t buf[8 << 20];
	static uint64_t v[N];
	struct tc_rtt_summary got, lie;
	struct lat_summary truth, st;
	struct tc_codec_error ce;
	struct trace_stream *s;
	struct tc_buf b = {0};
	uint64_t p99, pct, sum = 0;
	unsigned __int128 sumsq = 0;
	size_t len, off;
	char path[128];

	(void)state;
	for (size_t i = 0; i < N; i++) { /* 400 ns to about 40 us, timed on CPUs 1 and 3 */
		t->samples[i].t_end = t->samples[i].t_start + 400 + (i * 7919) % 40000;
		t->samples[i].cpu = i % 5 ? 1 : 3;
		v[i] = tc_sample_rtt(&t->samples[i]);
		sum += v[i];
		sumsq += (unsigned __int128)v[i] * v[i];
	}
	path_of(path, sizeof(path), "summary.tct");
	write_trace(path, t, 1);
	len = slurp(path, buf, sizeof(buf));
	off = find_block(buf, len, TC_BLOCK_RTT_SUMMARY);
	assert_true(off > 0);
	assert_int_equal(codec_decode_rtt_summary(buf, len, off, &got, &ce), 0);
	assert_int_equal(stats_summarize(v, N, &truth), 0); /* sorts v */
	p99 = truth.p99;
	assert_int_equal(got.n, N);
	assert_int_equal(got.min, truth.min);
	assert_int_equal(got.max, truth.max);
	assert_int_equal(got.pct[0], truth.p50);
	assert_int_equal(got.pct[1], truth.p99);
	assert_int_equal(got.pct[2], truth.p999);
	assert_int_equal(got.pct[3], truth.p9999);
	assert_int_equal(got.pct[4], truth.p99999);
	assert_true(got.sum == sum && got.sumsq == sumsq);
	assert_int_equal(got.first_start, 1000000);
	assert_int_equal(got.last_start, 1000000 + (uint64_t)(N - 1) * 1000);
	assert_int_equal(got.n_cpus, 2);
	assert_true(got.cpus[0] == 1 && got.cpus[1] == 3);
	assert_int_equal(codec_decode_rtt_summary(buf, len, 32, &got, &ce), -EBADMSG);

	/* taken as they are, and the read agrees: nothing said */
	warned[0] = 0;
	s = open_whole(path, 99.0);
	assert_int_equal(trace_stream_stats(s, &st, &pct), 0);
	assert_memory_equal(&st, &truth, sizeof(st));
	assert_int_equal(pct, p99);
	assert_int_equal(read_all_and_recheck(s), 0);
	assert_string_equal(warned, "");
	trace_stream_close(s);

	/* a percentile the block does not hold: counted, as for an older file */
	stream_stats(path, UINT64_MAX, &st, &pct);
	assert_memory_equal(&st, &truth, sizeof(st));
	assert_string_equal(warned, "");

	/* p99 one value off, or the first start 1 ns late: said, and counted */
	lie = got;
	lie.pct[1] = got.pct[1] + 1 <= got.pct[2] ? got.pct[1] + 1 : got.pct[1] - 1;
	lied_to(path, buf, len, off, &lie, &truth, p99);
	lie = got;
	lie.first_start++;
	len = slurp(path, buf, sizeof(buf)); /* the block was swapped: find it again */
	off = find_block(buf, len, TC_BLOCK_RTT_SUMMARY);
	lied_to(path, buf, len, off, &lie, &truth, p99);

	/* a block that does not decode (percentiles out of order): not used, said */
	len = slurp(path, buf, sizeof(buf));
	off = find_block(buf, len, TC_BLOCK_RTT_SUMMARY);
	lie = got;
	lie.pct[0] = got.pct[4] + 1;
	assert_int_equal(codec_encode_rtt_summary(&b, &lie), 0);
	swap_block(path, buf, len, off, &b);
	tc_buf_free(&b);
	warned[0] = 0;
	s = open_whole(path, 99.0);
	assert_non_null(strstr(warned, "round-trip summary is not used"));
	assert_int_equal(trace_stream_stats(s, &st, &pct), 0);
	assert_memory_equal(&st, &truth, sizeof(st));
	assert_int_equal(read_all_and_recheck(s), 0);
	trace_stream_close(s);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_file_read_mapped_whole),
		cmocka_unit_test(test_trace_file_read_mapped_cut_short),
		cmocka_unit_test(test_trace_file_read_partial),
		cmocka_unit_test(test_trace_file_read_pipe),
		cmocka_unit_test(test_trace_file_index),
		cmocka_unit_test(test_trace_stream_stretch),
		cmocka_unit_test(test_trace_stream_rtt_hist),
		cmocka_unit_test(test_trace_stream_rtt_summary),
		cmocka_unit_test(test_trace_follow_growing),
		cmocka_unit_test(test_trace_follow_catches_up_in_steps),
		cmocka_unit_test(test_bigmem_prefault_populates_large),
		cmocka_unit_test(test_bigmem_prefault_ignores_small),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
