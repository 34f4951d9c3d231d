// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_trace_stream.c - a trace file read for a streamed report
 * (user/tracefile/trace_stream.c): a stretch reads its own blocks, and the run's
 * statistics come from the writer's RTT_HIST and RTT_SUMMARY blocks where they check
 * out against the round trips, and from the round trips where they do not.
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
#include <unistd.h>

#include "core/stats/stats.h"
#include "trace_file_fixture.h"
#include "tracefile/trace_stream.h"

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
		assert_in_range(src.read(src.arg, &src.blocks[i], v), 0, 1); /* 1: in order */
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
/*
 * A trace of 150000 round trips (400 ns to about 40 us, timed on CPUs 1 and 3) written at
 * path, its RTT_SUMMARY block into *got, checked against what stats_summarize() gives
 * over the same round trips (*truth), the sums, the first and last start and the CPUs.
 */
static void write_summary(const char *path, struct tc_rtt_summary *got, struct lat_summary *truth)
{
	enum { N = 150000 };
	struct tc_trace *t = long_trace(N);
	static uint8_t buf[8 << 20];
	static uint64_t v[N];
	struct tc_codec_error ce;
	uint64_t sum = 0;
	unsigned __int128 sumsq = 0;
	size_t len, off;

	for (size_t i = 0; i < N; i++) {
		t->samples[i].t_end = t->samples[i].t_start + 400 + (i * 7919) % 40000;
		t->samples[i].cpu = i % 5 ? 1 : 3;
		v[i] = tc_sample_rtt(&t->samples[i]);
		sum += v[i];
		sumsq += (unsigned __int128)v[i] * v[i];
	}
	write_trace(path, t, 1);
	trace__free(t);
	len = slurp(path, buf, sizeof(buf));
	off = find_block(buf, len, TC_BLOCK_RTT_SUMMARY);
	assert_true(off > 0);
	assert_int_equal(codec_decode_rtt_summary(buf, len, off, got, &ce), 0);
	assert_int_equal(stats_summarize(v, N, truth), 0); /* sorts v */
	assert_int_equal(got->n, N);
	assert_int_equal(got->min, truth->min);
	assert_int_equal(got->max, truth->max);
	assert_int_equal(got->pct[0], truth->p50);
	assert_int_equal(got->pct[1], truth->p99);
	assert_int_equal(got->pct[2], truth->p999);
	assert_int_equal(got->pct[3], truth->p9999);
	assert_int_equal(got->pct[4], truth->p99999);
	assert_true(got->sum == sum && got->sumsq == sumsq);
	assert_int_equal(got->first_start, 1000000);
	assert_int_equal(got->last_start, 1000000 + (uint64_t)(N - 1) * 1000);
	assert_int_equal(got->n_cpus, 2);
	assert_true(got->cpus[0] == 1 && got->cpus[1] == 3);
	assert_int_equal(codec_decode_rtt_summary(buf, len, 32, got, &ce), -EBADMSG);
}

static void test_trace_stream_rtt_summary(void **state)
{
	static uint8_t buf[8 << 20];
	struct tc_rtt_summary got, lie;
	struct lat_summary truth, st;
	struct trace_stream *s;
	struct tc_buf b = {0};
	uint64_t p99, pct;
	size_t len, off;
	char path[128];

	(void)state;
	path_of(path, sizeof(path), "summary.tct");
	write_summary(path, &got, &truth);
	p99 = truth.p99;
	len = slurp(path, buf, sizeof(buf));
	off = find_block(buf, len, TC_BLOCK_RTT_SUMMARY);

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
}

/*
 * An index entry that misplaces its block (its first start 1 ns late, or a record more
 * than it holds): the streamed read of that block says so and fails, where it would
 * hand the analysis that block's records after later ones.
 */
static void test_trace_stream_index_misplaces(void **state)
{
	struct tc_trace *t = long_trace(150000);
	static uint8_t buf[8 << 20];
	struct tc_block_ref *refs;
	struct tc_codec_error ce;
	struct stream_source src;
	struct trace_stream *s;
	char path[128];

	(void)state;
	path_of(path, sizeof(path), "misplaced.tct");
	for (int lie = 0; lie < 2; lie++) {
		struct trace_stream_opts o = {.pct = 99.0, .to_ns = UINT64_MAX};
		struct tc_buf b = {0};
		size_t len, off, n, k = 0, bad = 0, failed = 0;
		struct tc_trace *v;
		int err;

		write_trace(path, t, 1);
		len = slurp(path, buf, sizeof(buf));
		off = find_block(buf, len, TC_BLOCK_INDEX);
		assert_true(off > 0);
		assert_int_equal(codec_decode_index(buf, len, off, &refs, &n, &ce), 0);
		for (size_t i = 0, seen = 0; i < n; i++) /* the second samples block */
			if (refs[i].type == TC_BLOCK_SAMPLES && seen++ == 1)
				k = i;
		assert_true(k > 0);
		if (lie)
			refs[k].n++;
		else
			refs[k].min_start++;
		assert_int_equal(codec_encode_index(&b, refs, n), 0);
		swap_block(path, buf, len, off, &b);
		tc_buf_free(&b);

		/* a record more: the summary no longer counts the samples, so the open reads them
		 * for the statistics, and fails there; a later first start fails the analysis's
		 * read */
		logged[0] = 0;
		err = trace_stream_open(path, &o, &s);
		if (lie) {
			assert_int_equal(err, -EBADMSG);
		} else {
			assert_int_equal(err, 0);
			v = trace__view(trace_stream_skeleton(s));
			assert_non_null(v);
			trace_stream_source(s, &src);
			for (size_t i = 0; i < src.n_blocks; i++) {
				v->n_samples = v->n_events = 0;
				err = src.read(src.arg, &src.blocks[i], v);
				if (err == -EBADMSG) {
					failed++;
					bad = src.blocks[i].where;
				} else {
					assert_in_range(err, 0, 1);
				}
			}
			assert_int_equal(failed, 1);
			assert_int_equal(bad, refs[k].off);
			trace__free_view(v);
			trace_stream_close(s);
		}
		assert_non_null(strstr(logged, "its index entry says"));
		free(refs);
	}
	trace__free(t);
}

/*
 * A file opened once: what the opening tells (the index's counts, or each block's read
 * for them), what it cannot read kept for the read that needs it to say, and the whole
 * read of what was opened, record for record what trace_file_read() reads.
 */
static void test_trace_stream_open_file_tells(void **state)
{
	enum { N = 150000 };
	struct tc_trace *t = long_trace(N), *whole, *read;
	struct trace_stream_opts o = {.pct = 50, .to_ns = UINT64_MAX};
	static uint8_t buf[8 << 20];
	struct trace_stream_info info;
	struct trace_stream *s;
	char path[128], cut[128];
	size_t len, off;

	(void)state;
	path_of(path, sizeof(path), "once.tct");
	write_trace(path, t, 1);
	len = slurp(path, buf, sizeof(buf));
	assert_int_equal(trace_stream_open_file(path, &s), 0);
	trace_stream_info(s, &info);
	assert_int_equal(info.file_size, len);
	assert_true(info.intact && info.indexed);
	assert_int_equal(info.samples, N);
	assert_int_equal(info.events, N);
	assert_int_equal(trace_stream_read_whole(s, &whole), 0);
	trace_stream_close(s);
	assert_int_equal(trace_file_read(path, &read), 0);
	assert_int_equal(whole->n_samples, read->n_samples);
	assert_int_equal(whole->n_events, read->n_events);
	assert_memory_equal(whole->samples, read->samples, N * sizeof(*read->samples));
	assert_memory_equal(whole->events, read->events, N * sizeof(*read->events));
	trace__free(whole);
	trace__free(read);

	/* cut before its INDEX block: each block read for its counts */
	off = find_block(buf, len, TC_BLOCK_INDEX);
	path_of(cut, sizeof(cut), "once-cut.tct");
	spill(cut, buf, off);
	assert_int_equal(trace_stream_open_file(cut, &s), 0);
	trace_stream_info(s, &info);
	assert_int_equal(info.file_size, off);
	assert_true(info.intact && !info.indexed);
	assert_int_equal(info.samples, N);
	assert_int_equal(info.events, N);
	trace_stream_close(s);

	/* a block it cannot read: not intact, and said by the read, not the opening */
	buf[find_block(buf, len, TC_BLOCK_SAMPLES) + 20] ^= 0xff;
	spill(cut, buf, off);
	logged[0] = 0;
	assert_int_equal(trace_stream_open_file(cut, &s), 0);
	trace_stream_info(s, &info);
	assert_false(info.intact);
	assert_string_equal(logged, "");
	assert_int_equal(trace_stream_select(s, &o), -EBADMSG);
	assert_non_null(strstr(logged, "crc32 mismatch"));
	trace_stream_close(s);
	assert_int_equal(trace_stream_open_file("/nonexistent/x.tct", &s), 0);
	assert_int_equal(trace_stream_read_whole(s, &whole), -ENOENT);
	assert_non_null(strstr(logged, "read /nonexistent/x.tct: No such file"));
	trace_stream_close(s);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_stream_stretch),
		cmocka_unit_test(test_trace_stream_rtt_hist),
		cmocka_unit_test(test_trace_stream_rtt_summary),
		cmocka_unit_test(test_trace_stream_index_misplaces),
		cmocka_unit_test(test_trace_stream_open_file_tells),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
