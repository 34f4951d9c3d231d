// SPDX-License-Identifier: BSD-2-Clause
/*
 * Unit tests for what a file can make core/trace/trace_decode.c allocate: no more than its
 * bytes can hold (TC_BLOCK_MAX_RATIO, the records' least sizes, one INDEX entry per block
 * header), and nothing faulted in before the decoder writes it. The writer's side: a
 * block that compresses too well is stored, so the reader takes what the writer wrote.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "codec_fixture.h"

/* A block of comp_len zero bytes after its header, its CRC right: lengths that check out
 * around a payload that is no zstd frame. */
static void add_zeros_block(struct tc_buf *b, uint32_t type, uint32_t raw_len, uint32_t comp_len)
{
	add_header(b, type, raw_len, comp_len);
	b->data = realloc(b->data, b->len + comp_len);
	assert_non_null(b->data);
	memset(b->data + b->len, 0, comp_len);
	put32(b->data + b->len - 4, (uint32_t)crc32(0, b->data + b->len, comp_len));
	b->len += comp_len;
	b->cap = b->len;
}

/* The bytes the prefault hook was given, all calls together. */
static size_t hooked;

static void count_prefault(void *arr, size_t cap, size_t from, size_t bytes)
{
	(void)arr;
	assert_true(from <= cap && bytes <= cap - from);
	hooked += bytes;
}

/* A block may expand to TC_BLOCK_MAX_RATIO times its payload, and no more. */
static void test_codec_bounds_ratio_checked(void **state)
{
	struct tc_codec_error err;
	struct tc_buf b = {0};
	const uint32_t comp = 4096;

	(void)state;
	header_only(&b);
	add_header(&b, TC_BLOCK_SAMPLES, 60u << 20, 0);
	assert_rejected(&b, "comp_len 0 impossible for raw_len 62914560 (at most 64:1 is read)");
	header_only(&b);
	add_header(&b, TC_BLOCK_SAMPLES, comp * TC_BLOCK_MAX_RATIO + 1, comp);
	assert_rejected(&b, "impossible for raw_len");
	/* at the ratio, the header is plausible: the payload's absence is a cut */
	header_only(&b);
	add_header(&b, TC_BLOCK_SAMPLES, comp * TC_BLOCK_MAX_RATIO, comp);
	assert_int_equal(decode_rc(b.data, b.len, &err), 0);
	tc_buf_free(&b);
}

/* The 288-byte file of the report: sixteen headers that announce 60 MiB each and hold
 * nothing reserve nothing, and are refused at the first. */
static void test_codec_bounds_empty_headers_reserve_nothing(void **state)
{
	struct tc_codec_error err;
	struct tc_buf b = {0};
	struct tc_trace *t;

	(void)state;
	header_only(&b);
	for (int i = 0; i < 16; i++)
		add_header(&b, TC_BLOCK_SAMPLES, 60u << 20, 0);
	assert_int_equal(b.len, 288);
	assert_int_equal(decode(b.data, b.len, &t, &err), -EBADMSG);
	assert_int_equal(t->cap_samples, 0);
	assert_int_equal(t->cap_events, 0);
	trace__free(t);
	tc_buf_free(&b);
}

/* Room is sized ahead only from blocks whose payload lies in the file, at the ratio. */
static void test_codec_bounds_presize_by_bytes_present(void **state)
{
	struct tc_codec_error err;
	struct tc_buf b = {0};
	struct tc_trace *t;
	const uint32_t comp = 1024;

	(void)state;
	header_only(&b);
	for (int i = 0; i < 4; i++)
		add_zeros_block(&b, TC_BLOCK_EVENTS, comp * TC_BLOCK_MAX_RATIO, comp);
	/* and one whose payload the file does not hold */
	add_header(&b, TC_BLOCK_SAMPLES, comp * TC_BLOCK_MAX_RATIO, comp);
	assert_int_equal(decode(b.data, b.len, &t, &err), -EBADMSG);
	assert_true(t->cap_events <= (size_t)4 * comp * TC_BLOCK_MAX_RATIO / 10);
	assert_int_equal(t->cap_samples, 0);
	trace__free(t);
	tc_buf_free(&b);
}

/* Only what a block writes is faulted in: not the room that the END totals reserved for
 * blocks after one that does not decode. */
static void test_codec_bounds_prefault_only_what_is_written(void **state)
{
	struct tc_trace *t = small_trace(), *u;
	struct tc_codec_error err;
	struct tc_buf b = {0};
	uint32_t type;
	size_t off;

	(void)state;
	trace__set_prefault(count_prefault);
	encode(t, &b);
	hooked = 0;
	assert_int_equal(decode(b.data, b.len, &u, &err), 0);
	assert_int_equal(hooked, t->n_samples * sizeof(struct tc_sample) +
					 t->n_events * sizeof(struct tc_event));
	trace__free(u);
	/* the same file, its EVENTS block's CRC broken: the samples' room alone is touched */
	for (size_t nth = 0; (off = block_at(&b, nth, &type)); nth++)
		if (type == TC_BLOCK_EVENTS)
			b.data[off + 12] ^= 1;
	hooked = 0;
	assert_int_equal(decode(b.data, b.len, &u, &err), -EBADMSG);
	assert_true(u->cap_events >= t->n_events); /* reserved from END, never touched */
	assert_int_equal(hooked, t->n_samples * sizeof(struct tc_sample));
	trace__free(u);
	trace__set_prefault(NULL);
	trace__free(t);
	tc_buf_free(&b);
}

/* A comm table holds no more names than the block has bytes for their events. */
static void test_codec_bounds_comm_table_needs_its_events(void **state)
{
	struct raw r = {0};
	struct tc_buf b = {0};

	(void)state;
	header_only(&b);
	rv(&r, 20);
	for (int i = 0; i < 20; i++)
		rv(&r, 0); /* twenty empty names */
	rv(&r, 1);
	rbytes(&r, "\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00", 10); /* one event */
	add_block(&b, TC_BLOCK_EVENTS, r.d, r.n);
	assert_rejected(&b, "events: comm table: count 20 exceeds the payload");
	/* as many names as events: read */
	header_only(&b);
	r.n = 0;
	rv(&r, 2);
	rv(&r, 0);
	rv(&r, 1);
	rbytes(&r, "x", 1);
	rv(&r, 2);
	rbytes(&r, "\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00", 10);
	rbytes(&r, "\x01\x00\x00\x00\x00\x00\x00\x00\x00\x01", 10);
	add_block(&b, TC_BLOCK_EVENTS, r.d, r.n);
	assert_int_equal(codec_encode_end(&b, 0, 2), 0);
	assert_int_equal(decode_rc(b.data, b.len, NULL), 0);
	tc_buf_free(&b);
}

/* Blocks that hold no record are read as such, before any record has given the arrays a
 * place (no pointer into an array that does not exist: clang's UBSan checks that on
 * tests/fuzz/regressions/link-empty-samples). */
static void test_codec_bounds_empty_blocks_first(void **state)
{
	struct raw r = {0};
	struct tc_buf b = {0};

	(void)state;
	header_only(&b);
	rv(&r, 0); /* no samples */
	add_block(&b, TC_BLOCK_SAMPLES, r.d, r.n);
	r.n = 0;
	rv(&r, 0); /* no comms */
	rv(&r, 0); /* no events */
	add_block(&b, TC_BLOCK_EVENTS, r.d, r.n);
	assert_int_equal(codec_encode_end(&b, 0, 0), 0);
	assert_int_equal(decode_rc(b.data, b.len, NULL), 0);
	tc_buf_free(&b);
}

/* An INDEX lists at most as many blocks as the file has room for block headers. */
static void test_codec_bounds_index_entries_need_blocks(void **state)
{
	struct tc_codec_error err;
	struct tc_block_ref *refs = NULL;
	struct tc_buf b = {0};
	struct raw r = {0};
	size_t n = 0, off;

	(void)state;
	header_only(&b);
	rv(&r, 40);
	for (int i = 0; i < 40; i++) /* {type, offset step, records, start, span} */
		rbytes(&r, "\x03\x10\x01\x00\x00", 5);
	off = b.len;
	add_block(&b, TC_BLOCK_INDEX, r.d, r.n);
	assert_true(b.len / TC_BLOCK_HEADER_LEN < 40);
	assert_int_equal(codec_decode_index(b.data, b.len, off, &refs, &n, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "index: malformed count"));
	assert_null(refs);
	/* the same entries in a file long enough to hold their blocks */
	b.data = realloc(b.data, b.len + 40 * TC_BLOCK_HEADER_LEN);
	assert_non_null(b.data);
	memset(b.data + b.len, 0, 40 * TC_BLOCK_HEADER_LEN);
	assert_int_equal(
		codec_decode_index(b.data, b.len + 40 * TC_BLOCK_HEADER_LEN, off, &refs, &n, &err),
		0);
	assert_int_equal(n, 40);
	free(refs);
	tc_buf_free(&b);
}

/* Records that compress beyond the ratio (all alike) are stored as they are: the file
 * reads back, every block within the ratio. */
static void test_codec_bounds_writer_stores_what_compresses_too_well(void **state)
{
	struct tc_trace *t = trace__new(), *u;
	struct tc_codec_error err;
	struct tc_buf b = {0};
	struct tc_sample s = {1000, 1000, 1, 1};
	struct tc_event e = mkev(TC_EV_HARDIRQ, 0, 0, 1, 0, 0, 0, "");
	uint32_t type;
	size_t off;

	(void)state;
	assert_non_null(t);
	for (int i = 0; i < 3 * TC_BLOCK_RECORDS; i++) {
		assert_int_equal(trace__add_samples(t, &s, 1), 0);
		assert_int_equal(trace__add_events(t, &e, 1), 0);
	}
	encode(t, &b);
	for (size_t nth = 0; (off = block_at(&b, nth, &type)); nth++)
		assert_true(get32(b.data + off + 4) <=
			    (uint64_t)get32(b.data + off + 8) * TC_BLOCK_MAX_RATIO);
	assert_int_equal(decode(b.data, b.len, &u, &err), 0);
	assert_traces_equal(t, u);
	trace__free(u);
	trace__free(t);
	tc_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codec_bounds_ratio_checked),
		cmocka_unit_test(test_codec_bounds_empty_headers_reserve_nothing),
		cmocka_unit_test(test_codec_bounds_presize_by_bytes_present),
		cmocka_unit_test(test_codec_bounds_prefault_only_what_is_written),
		cmocka_unit_test(test_codec_bounds_comm_table_needs_its_events),
		cmocka_unit_test(test_codec_bounds_empty_blocks_first),
		cmocka_unit_test(test_codec_bounds_index_entries_need_blocks),
		cmocka_unit_test(test_codec_bounds_writer_stores_what_compresses_too_well),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
