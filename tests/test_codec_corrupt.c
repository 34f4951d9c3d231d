// SPDX-License-Identifier: BSD-2-Clause
/* Unit tests for core/trace/trace_decode.c on damaged files: cuts at any offset, bit flips
 * anywhere, and lengths, magic, version and flags that cannot be. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "codec_fixture.h"

/* --- truncation ------------------------------------------------------------------ */

/*
 * Every cut of b, the file of t, decodes the records of the blocks that lie
 * whole before it (sized, without END, from what the blocks' raw lengths can hold).
 */
static void assert_every_cut_keeps_whole_blocks(const struct tc_buf *b, const struct tc_trace *t)
{
	struct tc_codec_error err;
	struct tc_trace *u;
	size_t cut, nth, off, end, want_s, want_e, want_c;
	uint32_t type;
	int rc;

	for (cut = 0; cut <= b->len; cut++) {
		rc = decode(b->data, cut, &u, &err);
		if (cut < TC_TRACE_HEADER_LEN) {
			assert_int_equal(rc, -EBADMSG);
			assert_non_null(strstr(err.msg, "header"));
			trace__free(u);
			continue;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(u->truncated, cut < b->len);
		/* exactly the records of the blocks that lie whole before the cut */
		want_s = want_e = want_c = 0;
		for (nth = 0; (off = block_at(b, nth, &type)); nth++) {
			end = off + TC_BLOCK_HEADER_LEN + get32(b->data + off + 8);
			if (end > cut)
				break;
			want_s += type == TC_BLOCK_SAMPLES;
			want_e += type == TC_BLOCK_EVENTS ? 2 : 0;
			want_c += type == TC_BLOCK_COUNTERS;
		}
		assert_int_equal(u->n_samples, want_s);
		assert_int_equal(u->n_events, want_e);
		if (want_s)
			assert_memory_equal(u->samples, t->samples, want_s * sizeof(*t->samples));
		if (want_e)
			assert_memory_equal(u->events, t->events, want_e * sizeof(*t->events));
		assert_int_equal(u->n_counters, want_c);
		if (want_c)
			assert_memory_equal(u->counters, t->counters,
					    want_c * sizeof(*t->counters));
		assert_int_equal(u->mono_ns, t->mono_ns);
		trace__free(u);
	}
}

static void test_codec_decode_truncated_every_offset(void **state)
{
	struct tc_trace *t = small_trace();
	struct tc_buf b = {0};

	(void)state;
	chunked_file(&b, t);
	assert_every_cut_keeps_whole_blocks(&b, t);
	/* and version 2 (raw deflate) and 1 (zlib-wrapped blocks) files the same */
	to_version(&b, 2);
	assert_every_cut_keeps_whole_blocks(&b, t);
	tc_buf_free(&b);
	chunked_file(&b, t);
	to_version(&b, 1);
	assert_every_cut_keeps_whole_blocks(&b, t);
	trace__free(t);
	tc_buf_free(&b);
}

static void test_codec_decode_no_end_is_truncated(void **state)
{
	struct tc_trace *t = small_trace(), *u;
	struct tc_buf b = {0};

	(void)state;
	assert_int_equal(codec_encode_header(&b, 1, 2), 0);
	assert_int_equal(codec_encode_samples(&b, t->samples, t->n_samples), 0);
	assert_int_equal(decode(b.data, b.len, &u, NULL), 0);
	assert_int_equal(u->truncated, 1);
	assert_int_equal(u->n_samples, 3);
	trace__free(u);
	trace__free(t);
	tc_buf_free(&b);
}

static void test_codec_decode_comp_len_past_end_is_truncated(void **state)
{
	struct tc_trace *t = small_trace(), *u;
	struct tc_buf b = {0};
	uint32_t type;
	size_t off;

	(void)state;
	encode(t, &b);
	/* a plausible length that runs past the end looks like a cut: not an error */
	off = block_at(&b, 2, &type);
	put32(b.data + off + 8, get32(b.data + off + 8) + (uint32_t)b.len);
	put32(b.data + off + 4, get32(b.data + off + 8) * 2);
	assert_int_equal(decode(b.data, b.len, &u, NULL), 0);
	assert_int_equal(u->truncated, 1);
	assert_int_equal(u->n_threads, 3); /* blocks 0 and 1 were whole */
	assert_int_equal(u->n_irq_names, 0);
	trace__free(u);
	trace__free(t);
	tc_buf_free(&b);
}

static void test_codec_decode_cut_in_counters_keeps_whole_blocks(void **state)
{
	size_t n = TC_BLOCK_RECORDS + 100, i, off;
	struct tc_trace *t = trace__new(), *u;
	struct tc_buf b = {0};
	uint32_t type;

	(void)state;
	for (i = 0; i < n; i++)
		assert_int_equal(trace__add_counter(t, TC_COUNTER_IRQ, (uint32_t)i, 1, i), 0);
	encode(t, &b);
	/* blocks: COUNTERS (full), COUNTERS (100), END; cut inside the second */
	off = block_at(&b, 1, &type);
	assert_int_equal(type, TC_BLOCK_COUNTERS);
	assert_int_equal(decode(b.data, off + TC_BLOCK_HEADER_LEN + 3, &u, NULL), 0);
	assert_int_equal(u->truncated, 1);
	assert_int_equal(u->n_counters, TC_BLOCK_RECORDS);
	assert_memory_equal(u->counters, t->counters, TC_BLOCK_RECORDS * sizeof(*t->counters));
	trace__free(u);
	trace__free(t);
	tc_buf_free(&b);
}

/* --- corruption ------------------------------------------------------------------ */

static void test_codec_decode_payload_bit_flip_crc_mismatch(void **state)
{
	struct tc_trace *t = small_trace();
	struct tc_codec_error err;
	size_t nth, off, i, len;
	struct tc_buf b = {0};
	uint32_t type;

	(void)state;
	encode(t, &b);
	for (nth = 0; (off = block_at(&b, nth, &type)); nth++) {
		len = get32(b.data + off + 8);
		for (i = off + TC_BLOCK_HEADER_LEN; i < off + TC_BLOCK_HEADER_LEN + len; i++) {
			b.data[i] ^= 1u << (i % 8);
			assert_int_equal(decode_rc(b.data, b.len, &err), -EBADMSG);
			assert_non_null(strstr(err.msg, "crc32"));
			assert_int_equal(err.offset, off);
			b.data[i] ^= 1u << (i % 8);
		}
	}
	assert_int_equal(decode_rc(b.data, b.len, &err), 0);
	trace__free(t);
	tc_buf_free(&b);
}

static void test_codec_decode_error_names_block_and_offset(void **state)
{
	struct tc_trace *t = small_trace();
	struct tc_codec_error err;
	char want[64];
	struct tc_buf b = {0};
	uint32_t type;
	size_t off;

	(void)state;
	encode(t, &b);
	off = block_at(&b, 3, &type);
	b.data[off + 12] ^= 0x40; /* the stored crc32 itself */
	assert_int_equal(decode_rc(b.data, b.len, &err), -EBADMSG);
	snprintf(want, sizeof(want), "block 3 at offset %zu: crc32 mismatch", off);
	assert_string_equal(err.msg, want);
	assert_int_equal(err.offset, off);
	trace__free(t);
	tc_buf_free(&b);
}

/*
 * Whether a flip of a bit of byte i may go unnoticed: the header's clock pair, a block's
 * type, a block's comp_len grown past the end (which is what a cut file looks like), or
 * a header_len that lands on a later block (a later writer's longer header, to skip).
 */
static int flip_may_pass(const struct tc_buf *b, size_t bit, const struct tc_trace *u)
{
	size_t nth, off, i = bit / 8, header_len;
	uint32_t type;

	if (i >= 16 && i < TC_TRACE_HEADER_LEN)
		return !u->truncated;
	if (i == 10 || i == 11) {
		header_len = (b->data[10] | (size_t)b->data[11] << 8) ^ (size_t)1 << (bit - 80);
		for (nth = 0; (off = block_at(b, nth, &type)); nth++)
			if (off == header_len)
				return 1;
		return 0;
	}
	for (nth = 0; (off = block_at(b, nth, &type)); nth++) {
		if (i >= off && i < off + 4)
			return 1;
		if (i >= off + 8 && i < off + 12)
			return u->truncated;
	}
	return 0;
}

static void test_codec_decode_any_bit_flip_is_safe(void **state)
{
	struct tc_trace *t = small_trace(), *u;
	struct tc_buf b = {0};
	size_t bit, i;
	int rc;

	(void)state;
	chunked_file(&b, t);
	/* no crash, no leak (run under ASan/valgrind), no other return code */
	for (bit = 0; bit < b.len * 8; bit++) {
		i = bit / 8;
		b.data[i] ^= 1u << (bit % 8);
		rc = decode(b.data, b.len, &u, NULL);
		b.data[i] ^= 1u << (bit % 8);
		assert_true(rc == 0 || rc == -EBADMSG);
		if (rc == 0 && !flip_may_pass(&b, bit, u))
			fail_msg("flip of bit %zu (byte %zu) went unnoticed", bit % 8, i);
		trace__free(u);
	}
	trace__free(t);
	tc_buf_free(&b);
}

static void test_codec_decode_raw_len_huge_rejected(void **state)
{
	struct tc_trace *t = small_trace();
	struct tc_buf b = {0};
	uint32_t type;
	size_t off;

	(void)state;
	encode(t, &b);
	off = block_at(&b, 1, &type);
	put32(b.data + off + 4, 0xffffffff);
	assert_rejected(&b, "raw_len 4294967295 above");
	put32(b.data + off + 4, TC_BLOCK_MAX_RAW + 1);
	assert_rejected(&b, "above the");
	/* within the limit but more than deflate can make of comp_len bytes */
	put32(b.data + off + 4, TC_BLOCK_MAX_RAW);
	assert_rejected(&b, "impossible");
	trace__free(t);
	tc_buf_free(&b);
}

static void test_codec_decode_comp_len_beyond_file_rejected(void **state)
{
	struct tc_trace *t = small_trace();
	struct tc_buf b = {0};
	uint32_t type;
	size_t off;

	(void)state;
	encode(t, &b);
	off = block_at(&b, 1, &type);
	put32(b.data + off + 8, 0xfffffff0);
	assert_rejected(&b, "comp_len 4294967280 impossible");
	trace__free(t);
	tc_buf_free(&b);
}

static void test_codec_decode_raw_len_wrong_rejected(void **state)
{
	struct tc_trace *t = small_trace();
	struct tc_buf b = {0};
	uint32_t type, raw_len;
	size_t off;

	(void)state;
	encode(t, &b);
	off = block_at(&b, 2, &type);
	raw_len = get32(b.data + off + 4);
	put32(b.data + off + 4, raw_len + 1);
	assert_rejected(&b, "inflates to");
	put32(b.data + off + 4, raw_len - 1);
	assert_rejected(&b, "more than raw_len");
	trace__free(t);
	tc_buf_free(&b);
}

/* --- file header ----------------------------------------------------------------- */

static void test_codec_decode_bad_magic_rejected(void **state)
{
	struct tc_trace *t = small_trace();
	struct tc_buf b = {0};

	(void)state;
	encode(t, &b);
	b.data[1] = 'X';
	assert_rejected(&b, "bad magic");
	trace__free(t);
	tc_buf_free(&b);
}

static void test_codec_decode_bad_version_rejected(void **state)
{
	struct tc_trace *t = small_trace();
	struct tc_buf b = {0};

	(void)state;
	encode(t, &b);
	b.data[8] = TC_TRACE_VERSION + 1;
	assert_rejected(&b, "unsupported version 4");
	b.data[8] = 0;
	assert_rejected(&b, "unsupported version 0");
	trace__free(t);
	tc_buf_free(&b);
}

static void test_codec_decode_bad_header_fields_rejected(void **state)
{
	struct tc_trace *t = small_trace();
	struct tc_buf b = {0};

	(void)state;
	encode(t, &b);
	b.data[10] = TC_TRACE_HEADER_LEN - 1;
	assert_rejected(&b, "bad header length 31");
	b.data[10] = TC_TRACE_HEADER_LEN;
	b.data[11] = 0xff; /* header_len past the end of the file */
	assert_rejected(&b, "bad header length");
	b.data[11] = 0;
	b.data[12] = 1;
	assert_rejected(&b, "flags");
	trace__free(t);
	tc_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codec_decode_truncated_every_offset),
		cmocka_unit_test(test_codec_decode_no_end_is_truncated),
		cmocka_unit_test(test_codec_decode_comp_len_past_end_is_truncated),
		cmocka_unit_test(test_codec_decode_cut_in_counters_keeps_whole_blocks),
		cmocka_unit_test(test_codec_decode_payload_bit_flip_crc_mismatch),
		cmocka_unit_test(test_codec_decode_error_names_block_and_offset),
		cmocka_unit_test(test_codec_decode_any_bit_flip_is_safe),
		cmocka_unit_test(test_codec_decode_raw_len_huge_rejected),
		cmocka_unit_test(test_codec_decode_comp_len_beyond_file_rejected),
		cmocka_unit_test(test_codec_decode_raw_len_wrong_rejected),
		cmocka_unit_test(test_codec_decode_bad_magic_rejected),
		cmocka_unit_test(test_codec_decode_bad_version_rejected),
		cmocka_unit_test(test_codec_decode_bad_header_fields_rejected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
