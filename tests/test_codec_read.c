// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_codec_read.c - how the .tct decoder reads: format version 3 (zstd),
 * 2 (raw deflate) and 1 (zlib) files, arrays sized before the first block,
 * and the image released block by block.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "codec_fixture.h"
#include "core/trace/codec_internal.h" /* EVENT_MIN_LEN */

/*
 * Version 3 blocks are each one zstd frame that records its content size, the block's
 * raw_len: not a deflate stream, as version 2 wrote.
 */
static void test_codec_encode_blocks_zstd_frames(void **state)
{
	struct tc_trace *t = small_trace();
	struct tc_buf b = {0};
	uint8_t raw[4096];
	size_t nth, off, comp_len, raw_len;
	uint32_t type;
	z_stream zs;

	(void)state;
	encode(t, &b);
	assert_int_equal(file_version(&b), 3);
	for (nth = 0; (off = block_at(&b, nth, &type)); nth++) {
		comp_len = get32(b.data + off + 8);
		raw_len = get32(b.data + off + 4);
		assert_int_equal(
			ZSTD_findFrameCompressedSize(b.data + off + TC_BLOCK_HEADER_LEN, comp_len),
			comp_len);
		assert_int_equal(
			ZSTD_getFrameContentSize(b.data + off + TC_BLOCK_HEADER_LEN, comp_len),
			raw_len);
		assert_int_equal(inflate_at(&b, off, raw, sizeof(raw)), raw_len);
		memset(&zs, 0, sizeof(zs));
		assert_int_equal(inflateInit2(&zs, -MAX_WBITS), Z_OK);
		zs.next_in = b.data + off + TC_BLOCK_HEADER_LEN;
		zs.avail_in = (uInt)comp_len;
		zs.next_out = raw;
		zs.avail_out = sizeof(raw);
		assert_int_not_equal(inflate(&zs, Z_FINISH), Z_STREAM_END); /* not deflate */
		inflateEnd(&zs);
	}
	assert_true(nth > 5);
	trace__free(t);
	tc_buf_free(&b);
}

/*
 * A file rewritten as an older version wrote it reads as before; and a block of the
 * current version in a file of that version is not its codec's stream: rejected, saying so.
 */
static void older_version_reads(unsigned int version, const char *codec)
{
	struct tc_trace *t = small_trace(), *u;
	struct tc_codec_error err;
	struct tc_buf b = {0};

	encode(t, &b);
	to_version(&b, version);
	assert_int_equal(file_version(&b), version);
	assert_int_equal(decode(b.data, b.len, &u, &err), 0);
	assert_int_equal(u->truncated, 0);
	assert_traces_equal(t, u);
	trace__free(u);
	tc_buf_free(&b);
	encode(t, &b);
	b.data[8] = (uint8_t)version;
	assert_rejected(&b, codec);
	trace__free(t);
	tc_buf_free(&b);
}

/* Files of format version 2 (raw deflate blocks) read as before. */
static void test_codec_decode_version2_file(void **state)
{
	(void)state;
	older_version_reads(2, "deflate");
}

/* Files of format version 1 (zlib-wrapped blocks) read as before. */
static void test_codec_decode_version1_file(void **state)
{
	(void)state;
	older_version_reads(1, "zlib");
}

/*
 * A trace of several blocks decodes into arrays sized once, before the first
 * block: to the END block's totals, or without END to what the blocks' raw
 * lengths can hold.
 */
static void test_codec_decode_presized_before_first_block(void **state)
{
	struct tc_trace *t = trace__new(), *u;
	struct tc_buf b = {0};
	struct tc_sample s = {0};
	struct tc_event e;
	size_t i, nth, off, bound = 0, n = 3 * TC_BLOCK_RECORDS + 5;
	uint32_t type;

	(void)state;
	assert_non_null(t);
	for (i = 0; i < n; i++) {
		s.t_start = 1000 * i;
		s.t_end = s.t_start + 900;
		e = mkev(TC_EV_TIMER, 1000 * i + 10, 50, 2, 0, 0, 0, "");
		assert_int_equal(trace__add_samples(t, &s, 1), 0);
		assert_int_equal(trace__add_events(t, &e, 1), 0);
	}
	b.len = 0;
	assert_int_equal(codec_encode_header(&b, 1, 2), 0);
	assert_int_equal(codec_encode_samples(&b, t->samples, n), 0);
	assert_int_equal(codec_encode_events(&b, t->events, n), 0);
	for (nth = 0; (off = block_at(&b, nth, &type)); nth++)
		bound += type == TC_BLOCK_EVENTS ? get32(b.data + off + 4) / EVENT_MIN_LEN : 0;
	assert_int_equal(count_blocks(&b, TC_BLOCK_EVENTS), 4);
	assert_true(bound > n);
	/* no END: sized to the bound, the records read */
	assert_int_equal(decode(b.data, b.len, &u, NULL), 0);
	assert_int_equal(u->truncated, 1);
	assert_int_equal(u->n_events, n);
	assert_int_equal(u->cap_events, bound);
	trace__free(u);
	/* END totals one above the records: sized to them before any block, then rejected */
	assert_int_equal(codec_encode_end(&b, n + 1, n + 1), 0);
	assert_int_equal(decode(b.data, b.len, &u, NULL), -EBADMSG);
	assert_int_equal(u->cap_samples, n + 1);
	assert_int_equal(u->cap_events, n + 1);
	trace__free(u);
	tc_buf_free(&b);
	/* the true totals: exactly them */
	encode(t, &b);
	assert_int_equal(decode(b.data, b.len, &u, NULL), 0);
	assert_traces_equal(t, u);
	assert_int_equal(u->cap_samples, n);
	assert_int_equal(u->cap_events, n);
	trace__free(u);
	trace__free(t);
	tc_buf_free(&b);
}

/* Where the decoder says it is done with the image: after each block, in order, to the end. */
struct consumed_log {
	size_t off[64];
	size_t n;
};

static void note_consumed(void *arg, size_t off)
{
	struct consumed_log *c = arg;

	assert_true(c->n < 64);
	c->off[c->n++] = off;
}

static void test_codec_decode_release_reports_each_block(void **state)
{
	struct tc_trace *t = small_trace(), *u;
	struct consumed_log c = {0};
	struct tc_buf b = {0};
	size_t nth, off;
	uint32_t type;

	(void)state;
	encode(t, &b);
	u = trace__new();
	assert_non_null(u);
	assert_int_equal(codec_decode_release(b.data, b.len, u, NULL, note_consumed, &c), 0);
	assert_traces_equal(t, u);
	for (nth = 0; (off = block_at(&b, nth, &type)); nth++) {
		assert_true(nth < c.n);
		assert_int_equal(c.off[nth], off + TC_BLOCK_HEADER_LEN + get32(b.data + off + 8));
	}
	assert_int_equal(c.n, nth);
	assert_int_equal(c.off[c.n - 1], b.len);
	trace__free(u);
	trace__free(t);
	tc_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codec_encode_blocks_zstd_frames),
		cmocka_unit_test(test_codec_decode_version2_file),
		cmocka_unit_test(test_codec_decode_version1_file),
		cmocka_unit_test(test_codec_decode_presized_before_first_block),
		cmocka_unit_test(test_codec_decode_release_reports_each_block),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
