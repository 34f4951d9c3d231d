// SPDX-License-Identifier: BSD-2-Clause
/* Unit tests for core/trace/trace_decode.c on well-framed blocks that lie: counts the payload
 * cannot hold, malformed records and tables, bytes left over, limits. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "codec_fixture.h"
#include "core/stats/histogram.h"

/* --- limits and totals ----------------------------------------------------------- */

static void test_codec_meta_limit_enforced_both_ways(void **state)
{
	struct tc_trace *t = trace__new();
	struct tc_buf b = {0};
	char key[16];
	size_t i;

	(void)state;
	for (i = 0; i <= 8192; i++) {
		snprintf(key, sizeof(key), "k%zu", i);
		assert_int_equal(trace__set_meta(t, key, "v"), 0);
	}
	assert_int_equal(codec_encode_meta(&b, t), -E2BIG);
	assert_int_equal(b.len, 0);
	/* a file that holds more pairs anyway is refused */
	header_only(&b);
	for (i = 0; i < 2; i++) {
		t->n_meta = 4097;
		assert_int_equal(codec_encode_meta(&b, t), 0);
	}
	assert_rejected(&b, "meta: more than 8192 entries");
	t->n_meta = 8193;
	trace__free(t);
	tc_buf_free(&b);
}

static void test_codec_decode_end_totals_mismatch_rejected(void **state)
{
	struct tc_trace *t = small_trace();
	struct tc_buf b = {0};

	(void)state;
	assert_int_equal(codec_encode_header(&b, 1, 2), 0);
	assert_int_equal(codec_encode_samples(&b, t->samples, t->n_samples), 0);
	assert_int_equal(codec_encode_events(&b, t->events, t->n_events), 0);
	assert_int_equal(codec_encode_end(&b, t->n_samples + 1, t->n_events), 0);
	assert_rejected(&b, "end: totals say 4 samples, 4 events; read 3 and 4");
	b.len = 0;
	assert_int_equal(codec_encode_header(&b, 1, 2), 0);
	assert_int_equal(codec_encode_samples(&b, t->samples, t->n_samples), 0);
	assert_int_equal(codec_encode_end(&b, t->n_samples, 1), 0);
	assert_rejected(&b, "end: totals");
	/* totals below the records: the arrays, sized from them, grow; then rejected */
	b.len = 0;
	assert_int_equal(codec_encode_header(&b, 1, 2), 0);
	assert_int_equal(codec_encode_samples(&b, t->samples, t->n_samples), 0);
	assert_int_equal(codec_encode_events(&b, t->events, t->n_events), 0);
	assert_int_equal(codec_encode_end(&b, 1, 1), 0);
	assert_rejected(&b, "end: totals say 1 samples, 1 events; read 3 and 4");
	trace__free(t);
	tc_buf_free(&b);
}

/* --- lying counts ---------------------------------------------------------------- */

static void test_codec_decode_lying_sample_count_rejected(void **state)
{
	struct raw r = {0};
	struct tc_buf b = {0};

	(void)state;
	header_only(&b);
	rv(&r, 1000000000); /* count; one record follows */
	rv(&r, 2);
	rv(&r, 10);
	rv(&r, 1);
	rv(&r, 1);
	add_block(&b, TC_BLOCK_SAMPLES, r.d, r.n);
	assert_rejected(&b, "samples: count 1000000000 exceeds the payload");
	tc_buf_free(&b);
}

static void test_codec_decode_lying_event_counts_rejected(void **state)
{
	struct raw r = {0};
	struct tc_buf b = {0};
	int i;

	(void)state;
	header_only(&b);
	rv(&r, 1u << 30); /* comm table count */
	rv(&r, 0);
	add_block(&b, TC_BLOCK_EVENTS, r.d, r.n);
	assert_rejected(&b, "comm table: count 1073741824 exceeds");

	header_only(&b);
	r.n = 0;
	rv(&r, 0); /* no comms */
	rv(&r, 3); /* three events, one record of 10 bytes */
	for (i = 0; i < 10; i++)
		rv(&r, 0);
	add_block(&b, TC_BLOCK_EVENTS, r.d, r.n);
	assert_rejected(&b, "events: count 3 exceeds");
	tc_buf_free(&b);
}

static void test_codec_decode_comm_index_out_of_range_rejected(void **state)
{
	struct raw r = {0};
	struct tc_buf b = {0};
	int i;

	(void)state;
	header_only(&b);
	rv(&r, 1);
	rv(&r, 4);
	rbytes(&r, "bash", 4);
	rv(&r, 1);
	for (i = 0; i < 9; i++)
		rv(&r, 1);
	rv(&r, 1); /* comm index 1 of a 1-entry table */
	add_block(&b, TC_BLOCK_EVENTS, r.d, r.n);
	assert_rejected(&b, "comm 1 of 1");
	tc_buf_free(&b);
}

/* --- malformed records ----------------------------------------------------------- */

static void test_codec_decode_bad_comm_rejected(void **state)
{
	struct raw r = {0};
	struct tc_buf b = {0};

	(void)state;
	header_only(&b);
	rv(&r, 1);
	rv(&r, 16);
	rbytes(&r, "0123456789abcdef", 16); /* one byte too long */
	rv(&r, 1);
	rbytes(&r, "\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00", 10); /* its event */
	add_block(&b, TC_BLOCK_EVENTS, r.d, r.n);
	assert_rejected(&b, "events: comm 0 malformed");

	header_only(&b);
	r.n = 0;
	rv(&r, 1);
	rv(&r, 3);
	rbytes(&r, "a\0b", 3); /* embedded NUL */
	rv(&r, 1);
	rbytes(&r, "\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00", 10);
	add_block(&b, TC_BLOCK_EVENTS, r.d, r.n);
	assert_rejected(&b, "events: comm 0 malformed");

	/* found by fuzzing: a length in an overlong form (3 as 0x83 0x00) */
	header_only(&b);
	r.n = 0;
	rv(&r, 1);
	rbytes(&r,
	       "\x83\x00"
	       "abc",
	       5);
	rv(&r, 1);
	rbytes(&r, "\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00", 10);
	add_block(&b, TC_BLOCK_EVENTS, r.d, r.n);
	assert_rejected(&b, "events: comm 0 malformed");
	tc_buf_free(&b);
}

static void test_codec_decode_sample_end_before_start_rejected(void **state)
{
	struct raw r = {0};
	struct tc_buf b = {0};

	(void)state;
	header_only(&b);
	rv(&r, 1);
	rv(&r, varint_zigzag(-10)); /* t_start = 2^64 - 10 */
	rv(&r, 10);		    /* t_end would wrap to 0 */
	rv(&r, 0);
	rv(&r, 0);
	add_block(&b, TC_BLOCK_SAMPLES, r.d, r.n);
	assert_rejected(&b, "samples: record 0 ends before it starts");
	tc_buf_free(&b);
}

static void test_codec_decode_bad_varint_rejected(void **state)
{
	static const uint8_t eleven[11] = {0x81, 0x81, 0x81, 0x81, 0x81, 0x81,
					   0x81, 0x81, 0x81, 0x81, 0x01};
	struct raw r = {0};
	struct tc_buf b = {0};

	(void)state;
	header_only(&b);
	rv(&r, 1);
	rbytes(&r, eleven, sizeof(eleven));
	rv(&r, 1);
	rv(&r, 1);
	rv(&r, 1);
	add_block(&b, TC_BLOCK_SAMPLES, r.d, r.n);
	assert_rejected(&b, "samples: record 0 malformed");

	header_only(&b);
	r.n = 0;
	rv(&r, 1);
	rv(&r, 1);
	rv(&r, 1);
	rv(&r, 1ull << 32); /* cpu does not fit 32 bits */
	rv(&r, 1);
	add_block(&b, TC_BLOCK_SAMPLES, r.d, r.n);
	assert_rejected(&b, "samples: record 0 malformed");
	tc_buf_free(&b);
}

static void test_codec_decode_trailing_payload_bytes_rejected(void **state)
{
	struct raw r = {0};
	struct tc_buf b = {0};

	(void)state;
	header_only(&b);
	rv(&r, 1); /* count */
	rv(&r, 1); /* tid, role, cpu */
	rv(&r, 1);
	rv(&r, 1);
	rv(&r, 0); /* one byte more than the record */
	add_block(&b, TC_BLOCK_THREADS, r.d, r.n);
	assert_rejected(&b, "1 bytes after the records");
	tc_buf_free(&b);
}

/* A file of the given version whose END block has one byte past its stream, checksummed. */
static void one_byte_past_the_stream(struct tc_buf *b, unsigned int version)
{
	uint8_t *h;

	header_only(b);
	b->data[8] = (uint8_t)version;
	add_block(b, TC_BLOCK_END, "\0\0", 2);
	b->data = realloc(b->data, b->len + 1);
	assert_non_null(b->data);
	b->data[b->len++] = 0x55;
	h = b->data + TC_TRACE_HEADER_LEN;
	put32(h + 8, get32(h + 8) + 1);
	put32(h + 12, (uint32_t)crc32(0, h + 16, get32(h + 8)));
}

static void test_codec_decode_stream_trailing_garbage_rejected(void **state)
{
	struct tc_buf b = {0};

	(void)state;
	one_byte_past_the_stream(&b, TC_TRACE_VERSION);
	assert_rejected(&b, "bytes after the zstd frame");
	tc_buf_free(&b);
	one_byte_past_the_stream(&b, TC_TRACE_VERSION_DEFLATE);
	assert_rejected(&b, "bytes after the deflate stream");
	tc_buf_free(&b);
}

static void test_codec_decode_data_after_end_rejected(void **state)
{
	struct tc_trace *t = small_trace();
	struct tc_buf b = {0};

	(void)state;
	encode(t, &b);
	assert_int_equal(codec_encode_end(&b, 0, 0), 0);
	assert_rejected(&b, "after the end block");
	trace__free(t);
	tc_buf_free(&b);
}

static void test_codec_decode_malformed_tables_rejected(void **state)
{
	struct raw r = {0};
	struct tc_buf b = {0};

	(void)state;
	header_only(&b);
	add_block(&b, TC_BLOCK_META,
		  "kernel\0"
		  "6.1",
		  10); /* value lacks its NUL */
	assert_rejected(&b, "meta: unterminated value for kernel");

	header_only(&b);
	rv(&r, 1);
	rv(&r, 65536); /* the reader's bound on CPU numbers */
	rv(&r, 5);
	add_block(&b, TC_BLOCK_DROPS, r.d, r.n);
	assert_rejected(&b, "drops: cpu 65536 out of range");

	header_only(&b);
	r.n = 0;
	rv(&r, 1);
	rv(&r, 24);
	rv(&r, 64); /* names hold 63 bytes */
	memset(r.d + r.n, 'a', 64);
	r.n += 64;
	add_block(&b, TC_BLOCK_IRQ_NAMES, r.d, r.n);
	assert_rejected(&b, "irq names: record 0 malformed");
	tc_buf_free(&b);
}

/* --- counters -------------------------------------------------------------------- */

static void test_codec_decode_malformed_counters_rejected(void **state)
{
	struct raw r = {0};
	struct tc_buf b = {0};

	(void)state;
	header_only(&b);
	rv(&r, 1000000); /* count; one record follows */
	rv(&r, 1);
	rv(&r, 24);
	rv(&r, 0);
	rv(&r, 5);
	add_block(&b, TC_BLOCK_COUNTERS, r.d, r.n);
	assert_rejected(&b, "counters: count 1000000 exceeds the payload");
	/* the bound is 4 bytes a record: 2 cannot fit in 4 bytes */
	r.d[0] = 2;
	header_only(&b);
	add_block(&b, TC_BLOCK_COUNTERS, r.d, r.n);
	assert_rejected(&b, "counters: count 2 exceeds the payload");

	header_only(&b);
	r.n = 0;
	rv(&r, 1);
	rv(&r, 1);
	rv(&r, 24);
	rv(&r, 1ull << 32); /* cpu does not fit 32 bits */
	rv(&r, 5);
	add_block(&b, TC_BLOCK_COUNTERS, r.d, r.n);
	assert_rejected(&b, "counters: record 0 malformed");

	header_only(&b);
	r.n = 0;
	rv(&r, 2); /* enough bytes for two minimal records, but the second is cut */
	rv(&r, 1);
	rv(&r, 24);
	rv(&r, 0);
	rv(&r, UINT64_MAX);
	rv(&r, 1);
	rv(&r, 24);
	add_block(&b, TC_BLOCK_COUNTERS, r.d, r.n);
	assert_rejected(&b, "counters: record 1 malformed");

	header_only(&b);
	r.n = 0;
	rv(&r, 1);
	rv(&r, 1);
	rv(&r, 24);
	rv(&r, 0);
	rv(&r, 5);
	rv(&r, 0); /* one byte more than the record */
	add_block(&b, TC_BLOCK_COUNTERS, r.d, r.n);
	assert_rejected(&b, "1 bytes after the records");
	tc_buf_free(&b);
}

/* Appends a COUNTERS block of n records {IRQ, 24, cpu 0, value below 128}, 4 bytes each:
 * values that vary, so that it compresses no more than TC_BLOCK_MAX_RATIO. */
static void add_counters_block(struct tc_buf *b, size_t n)
{
	uint8_t *raw = malloc(VARINT_MAX_LEN + 4 * n);
	uint32_t x = 1;
	size_t len, i;

	assert_non_null(raw);
	len = varint_put(raw, n);
	for (i = 0; i < n; i++, len += 4) {
		x = x * 1103515245u + 12345u;
		memcpy(raw + len, "\x01\x18\x00", 3);
		raw[len + 3] = (uint8_t)(x >> 24 & 0x7f);
	}
	add_block(b, TC_BLOCK_COUNTERS, raw, len);
	free(raw);
}

/* More counters than a file may hold, each record real, in one block or over several. */
static void test_codec_decode_counters_over_limit_rejected(void **state)
{
	struct tc_buf b = {0};

	(void)state;
	header_only(&b);
	add_counters_block(&b, COUNTERS_LIMIT + 1);
	assert_rejected(&b, "block 0 at offset 32: counters: more than 4194304");
	header_only(&b);
	add_counters_block(&b, COUNTERS_LIMIT);
	add_counters_block(&b, 1);
	assert_rejected(&b, "block 1 at offset");
	assert_rejected(&b, "counters: more than 4194304");
	tc_buf_free(&b);
}

/* A hand-made RTT_HIST block of the payload r, decoded: its result and the reason. */
static int rtt_hist_of(const struct raw *r, struct tc_rtt_hist *h, struct tc_codec_error *ce)
{
	struct tc_codec_error whole;
	struct tc_buf b = {0};
	int ret;

	header_only(&b);
	add_block(&b, TC_BLOCK_RTT_HIST, r->d, r->n);
	memset(ce, 0, sizeof(*ce));
	ret = codec_decode_rtt_hist(b.data, b.len, 32, h, ce);
	/* a whole read skips it, whatever it holds */
	assert_int_equal(decode_rc(b.data, b.len, &whole), 0);
	tc_buf_free(&b);
	return ret;
}

/* Round trips of 100 ns (twice) and 1000 ns: buckets 100 and hist_bucket(1000). */
static void rtt_payload(struct raw *r, uint64_t bits, uint64_t total, uint64_t max, uint64_t gap)
{
	r->n = 0;
	rv(r, bits);
	rv(r, total);
	rv(r, 100);  /* min */
	rv(r, max);  /* max */
	rv(r, 1200); /* sum */
	rv(r, 2);    /* buckets */
	rv(r, 100);
	rv(r, 2);
	rv(r, gap);
	rv(r, 1);
}

/* An RTT_HIST block is read only where its counts, buckets and bounds agree. */
static void test_codec_decode_rtt_hist_checked(void **state)
{
	uint64_t gap = hist_bucket(1000) - 100 - 1;
	struct tc_codec_error ce;
	struct tc_rtt_hist h;
	struct raw r;

	(void)state;
	assert_int_equal(tc_rtt_hist__init(&h), 0);
	rtt_payload(&r, HIST_SUB_BITS, 3, 1000, gap);
	assert_int_equal(rtt_hist_of(&r, &h, &ce), 0);
	assert_int_equal(h.h->total, 3);
	assert_int_equal(h.h->counts[100], 2);
	assert_int_equal(h.h->counts[hist_bucket(1000)], 1);
	assert_int_equal(h.sum, 1200);
	rtt_payload(&r, HIST_SUB_BITS + 1, 3, 1000, gap); /* another layout: not used */
	assert_int_equal(rtt_hist_of(&r, &h, &ce), 1);
	rtt_payload(&r, HIST_SUB_BITS, 4, 1000, gap);
	assert_int_equal(rtt_hist_of(&r, &h, &ce), -EBADMSG);
	assert_non_null(strstr(ce.msg, "counts and bounds disagree"));
	rtt_payload(&r, HIST_SUB_BITS, 3, 5000, gap); /* max outside the last bucket */
	assert_int_equal(rtt_hist_of(&r, &h, &ce), -EBADMSG);
	rtt_payload(&r, HIST_SUB_BITS, 3, 1000, HIST_BUCKETS);
	assert_int_equal(rtt_hist_of(&r, &h, &ce), -EBADMSG);
	assert_non_null(strstr(ce.msg, "out of range"));
	rtt_payload(&r, HIST_SUB_BITS, 3, 1000, gap);
	rv(&r, 0);
	assert_int_equal(rtt_hist_of(&r, &h, &ce), -EBADMSG);
	assert_non_null(strstr(ce.msg, "bytes after the histogram"));
	tc_rtt_hist__free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codec_meta_limit_enforced_both_ways),
		cmocka_unit_test(test_codec_decode_end_totals_mismatch_rejected),
		cmocka_unit_test(test_codec_decode_lying_sample_count_rejected),
		cmocka_unit_test(test_codec_decode_lying_event_counts_rejected),
		cmocka_unit_test(test_codec_decode_comm_index_out_of_range_rejected),
		cmocka_unit_test(test_codec_decode_bad_comm_rejected),
		cmocka_unit_test(test_codec_decode_sample_end_before_start_rejected),
		cmocka_unit_test(test_codec_decode_bad_varint_rejected),
		cmocka_unit_test(test_codec_decode_trailing_payload_bytes_rejected),
		cmocka_unit_test(test_codec_decode_stream_trailing_garbage_rejected),
		cmocka_unit_test(test_codec_decode_data_after_end_rejected),
		cmocka_unit_test(test_codec_decode_malformed_tables_rejected),
		cmocka_unit_test(test_codec_decode_malformed_counters_rejected),
		cmocka_unit_test(test_codec_decode_counters_over_limit_rejected),
		cmocka_unit_test(test_codec_decode_rtt_hist_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
