// SPDX-License-Identifier: BSD-2-Clause
/* Unit tests for core/trace/trace_encode.c and trace_decode.c: round trips, the encoder's
 * output and limits, what the reader skips or keeps from a later writer, varints. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "codec_fixture.h"

/* --- round trips ----------------------------------------------------------------- */

static void test_codec_roundtrip_all_blocks_exact(void **state)
{
	struct tc_trace *t = small_trace(), *u;
	struct tc_codec_error err;
	struct tc_buf b = {0};

	(void)state;
	encode(t, &b);
	assert_int_equal(count_blocks(&b, TC_BLOCK_META), 1);
	assert_int_equal(count_blocks(&b, TC_BLOCK_THREADS), 1);
	assert_int_equal(count_blocks(&b, TC_BLOCK_SAMPLES), 1);
	assert_int_equal(count_blocks(&b, TC_BLOCK_EVENTS), 1);
	assert_int_equal(count_blocks(&b, TC_BLOCK_IRQ_NAMES), 1);
	assert_int_equal(count_blocks(&b, TC_BLOCK_DROPS), 1);
	assert_int_equal(count_blocks(&b, TC_BLOCK_COUNTERS), 1);
	assert_int_equal(count_blocks(&b, TC_BLOCK_END), 1);
	assert_int_equal(decode(b.data, b.len, &u, &err), 0);
	assert_int_equal(u->truncated, 0);
	assert_traces_equal(t, u);
	assert_string_equal(trace__meta(u, "kernel"), "6.1.0-18-amd64");
	assert_string_equal(trace__irq_name(u, 24), "mlx5_comp0@pci:0000:3b:00.0");
	assert_int_equal(trace__total_drops(u), 12 + (1ull << 40));
	assert_int_equal(u->n_counters, 3);
	assert_int_equal(u->counters[2].kind, TC_COUNTER_SOFTIRQ);
	assert_int_equal(u->counters[2].value, 1ull << 35);
	assert_int_equal(u->events[0].aux, 12000);
	trace__free(u);
	trace__free(t);
	tc_buf_free(&b);
	assert_null(b.data);
}

static void test_codec_roundtrip_extreme_values(void **state)
{
	struct tc_trace *t = trace__new(), *u;
	struct tc_sample s[3] = {
		{UINT64_MAX, UINT64_MAX, UINT32_MAX, UINT32_MAX},
		{0, UINT64_MAX, 0, 0}, /* a delta of -2^64 + 1 */
		{1ull << 63, (1ull << 63) + 1, 1, 1},
	};
	struct tc_event e[3];
	struct tc_buf b = {0};

	(void)state;
	e[0] = mkev(UINT16_MAX, UINT64_MAX, UINT64_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX,
		    UINT32_MAX, "123456789012345");
	e[1] = mkev(0, 0, 0, 0, 0, 0, 0, "");
	e[1].flags = UINT16_MAX;
	e[2] = mkev(TC_EV_OFFCPU, 5, 1, 1, 1, 1, 1, "a");
	e[0].aux = UINT64_MAX;
	e[2].aux = 1ull << 63;
	t->mono_ns = UINT64_MAX;
	t->realtime_ns = 0;
	assert_int_equal(trace__add_samples(t, s, 3), 0);
	assert_int_equal(trace__add_events(t, e, 3), 0);
	assert_int_equal(trace__set_drops(t, 0, UINT64_MAX), 0);
	assert_int_equal(trace__add_counter(t, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT64_MAX), 0);
	assert_int_equal(trace__add_counter(t, 0, 0, 0, 0), 0);
	encode(t, &b);
	assert_int_equal(decode(b.data, b.len, &u, NULL), 0);
	assert_traces_equal(t, u);
	assert_int_equal(u->events[0].aux, UINT64_MAX);
	assert_int_equal(u->counters[0].value, UINT64_MAX);
	trace__free(u);
	trace__free(t);
	tc_buf_free(&b);
}

static void test_codec_roundtrip_multi_block(void **state)
{
	size_t n = 2 * TC_BLOCK_RECORDS + 17, i;
	struct tc_trace *t = trace__new(), *u;
	static const char *const comms[] = {"kworker/2:1", "ksoftirqd/2", "", "rcu_preempt"};
	struct tc_buf b = {0};

	(void)state;
	for (i = 0; i < n; i++) {
		struct tc_sample s = {1000 + i * 5000, 1000 + i * 5000 + 3000 + i % 7, 2, 99};
		struct tc_event e =
			mkev(1 + i % 3, 1000 + i * 4000 - i % 5 * 100, 200 + i % 11,
			     (uint32_t)(i % 4), 99, (uint32_t)i, (uint32_t)(i % 9), comms[i % 4]);

		assert_int_equal(trace__add_samples(t, &s, 1), 0);
		assert_int_equal(trace__add_events(t, &e, 1), 0);
	}
	for (i = 0; i < TC_BLOCK_RECORDS + 5; i++) {
		char name[16];

		snprintf(name, sizeof(name), "irq%zu", i);
		assert_int_equal(trace__add_irq_name(t, (uint32_t)i, name), 0);
		assert_int_equal(trace__add_thread(t, (uint32_t)i, TC_THREAD_PROBE, 1), 0);
	}
	encode(t, &b);
	assert_int_equal(count_blocks(&b, TC_BLOCK_SAMPLES), 3);
	assert_int_equal(count_blocks(&b, TC_BLOCK_EVENTS), 3);
	assert_int_equal(count_blocks(&b, TC_BLOCK_IRQ_NAMES), 2);
	assert_int_equal(count_blocks(&b, TC_BLOCK_THREADS), 2);
	assert_int_equal(decode(b.data, b.len, &u, NULL), 0);
	assert_int_equal(u->truncated, 0);
	assert_traces_equal(t, u);
	trace__free(u);
	trace__free(t);
	tc_buf_free(&b);
}

static void test_codec_roundtrip_aux_values(void **state)
{
	static const uint64_t aux[] = {
		0,	    1,		127,
		128,	    UINT32_MAX, 1ull << 32,
		1ull << 62, 1ull << 63, UINT64_MAX - 1,
		UINT64_MAX,
	};
	size_t n = sizeof(aux) / sizeof(aux[0]), i;
	struct tc_trace *t = trace__new(), *u;
	struct tc_buf b = {0};

	(void)state;
	for (i = 0; i < n; i++) {
		struct tc_event e = mkev(1 + i % TC_EV_KIND_MAX, 1000 + i, i, 1, 2, 3, 4, "x");

		e.aux = aux[i];
		assert_int_equal(trace__add_events(t, &e, 1), 0);
	}
	encode(t, &b);
	assert_int_equal(decode(b.data, b.len, &u, NULL), 0);
	assert_int_equal(u->n_events, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(u->events[i].aux, aux[i]);
		assert_int_equal(u->events[i].dur_ns, i); /* aux did not shift its neighbours */
		assert_int_equal(u->events[i].cpu, 1);
	}
	assert_traces_equal(t, u);
	trace__free(u);
	trace__free(t);
	tc_buf_free(&b);
}

/* The EVENTS record layout, byte for byte: aux is a varint right after dur_ns. */
static void test_codec_events_aux_follows_dur(void **state)
{
	struct tc_event e = mkev(TC_EV_PAGE_FAULT, 300, 0, 5, 6, 7, 8, "ab");
	struct raw want = {0};
	uint8_t raw[256];
	struct tc_buf b = {0};
	size_t n;

	(void)state;
	e.flags = 9;
	e.aux = 0x7f0000001000ull; /* a faulting address */
	/* one comm, "ab" */
	rv(&want, 1);
	rv(&want, 2);
	rbytes(&want, "ab", 2);
	rv(&want, 1); /* one event */
	rv(&want, TC_EV_PAGE_FAULT);
	rv(&want, 9);
	rv(&want, varint_zigzag(300));
	rv(&want, 0);
	rv(&want, 0x7f0000001000ull);
	rv(&want, 5);
	rv(&want, 6);
	rv(&want, 7);
	rv(&want, 8);
	rv(&want, 0); /* comm index */
	assert_int_equal(codec_encode_events(&b, &e, 1), 0);
	n = inflate_at(&b, 0, raw, sizeof(raw));
	assert_int_equal(n, want.n);
	assert_memory_equal(raw, want.d, want.n);
	tc_buf_free(&b);
}

/* Kinds this reader does not know (a later writer's) are kept, not refused. */
static void test_codec_roundtrip_unknown_event_kinds(void **state)
{
	static const uint16_t kinds[] = {TC_EV_KIND_MAX + 1, 200, UINT16_MAX, 0, TC_EV_KIND_MAX};
	size_t n = sizeof(kinds) / sizeof(kinds[0]), i;
	struct tc_trace *t = trace__new(), *u;
	struct raw r = {0};
	struct tc_buf b = {0};

	(void)state;
	for (i = 0; i < n; i++) {
		struct tc_event e = mkev(kinds[i], 100 * i, 10, 1, 2, 3, 4, "future");

		e.aux = 1000 + i;
		assert_int_equal(trace__add_events(t, &e, 1), 0);
	}
	encode(t, &b);
	assert_int_equal(decode(b.data, b.len, &u, NULL), 0);
	assert_int_equal(u->truncated, 0);
	assert_traces_equal(t, u);
	assert_int_equal(u->events[0].kind, TC_EV_KIND_MAX + 1);
	trace__free(u);

	/* a hand-made block, as a later writer would write it */
	header_only(&b);
	rv(&r, 1); /* one comm, "" */
	rv(&r, 0);
	rv(&r, 1); /* one event of kind 999 */
	rv(&r, 999);
	for (i = 0; i < 8; i++)
		rv(&r, i + 1); /* flags, start, dur, aux = 4, cpu, tid, arg, other_pid = 8 */
	rv(&r, 0);	       /* comm index */
	add_block(&b, TC_BLOCK_EVENTS, r.d, r.n);
	assert_int_equal(codec_encode_end(&b, 0, 1), 0);
	assert_int_equal(decode(b.data, b.len, &u, NULL), 0);
	assert_int_equal(u->n_events, 1);
	assert_int_equal(u->events[0].kind, 999);
	assert_int_equal(u->events[0].aux, 4);
	assert_int_equal(u->events[0].other_pid, 8);
	trace__free(u);
	trace__free(t);
	tc_buf_free(&b);
}

static void test_codec_roundtrip_counters_multi_block(void **state)
{
	size_t n = 2 * TC_BLOCK_RECORDS + 3, i;
	struct tc_trace *t = trace__new(), *u;
	struct tc_buf b = {0};

	(void)state;
	for (i = 0; i < n; i++)
		assert_int_equal(trace__add_counter(t, 1 + i % 2, (uint32_t)(i / 64),
						    (uint32_t)(i % 64), i * 977 + (i << 40)),
				 0);
	encode(t, &b);
	assert_int_equal(count_blocks(&b, TC_BLOCK_COUNTERS), 3);
	assert_int_equal(decode(b.data, b.len, &u, NULL), 0);
	assert_int_equal(u->truncated, 0);
	assert_traces_equal(t, u);
	assert_int_equal(u->counters[n - 1].value, (n - 1) * 977 + ((n - 1) << 40));
	trace__free(u);
	trace__free(t);
	tc_buf_free(&b);
}

/* --- encoder --------------------------------------------------------------------- */

static void test_codec_encode_counters_none_no_block(void **state)
{
	struct tc_trace *t = trace__new();
	struct tc_buf b = {0};

	(void)state;
	header_only(&b);
	assert_int_equal(codec_encode_counters(&b, t), 0);
	assert_int_equal(b.len, TC_TRACE_HEADER_LEN);
	assert_int_equal(trace__add_counter(t, TC_COUNTER_IRQ, 1, 0, 5), 0);
	assert_int_equal(codec_encode_counters(&b, t), 0);
	assert_int_equal(count_blocks(&b, TC_BLOCK_COUNTERS), 1);
	trace__free(t);
	tc_buf_free(&b);
}

static void test_codec_encode_counters_limit(void **state)
{
	struct tc_trace *t = trace__new();
	struct tc_buf b = {0};

	(void)state;
	header_only(&b);
	assert_int_equal(trace__add_counter(t, TC_COUNTER_IRQ, 1, 0, 5), 0);
	t->n_counters = COUNTERS_LIMIT + 1; /* rejected before any record is read */
	assert_int_equal(codec_encode_counters(&b, t), -E2BIG);
	assert_int_equal(b.len, TC_TRACE_HEADER_LEN);
	t->n_counters = 1;
	trace__free(t);
	tc_buf_free(&b);
}

static void test_codec_roundtrip_empty_trace(void **state)
{
	struct tc_trace *t = trace__new(), *u;
	struct tc_buf b = {0};
	uint32_t type;

	(void)state;
	encode(t, &b);
	/* header + END only */
	assert_int_equal(block_at(&b, 0, &type), TC_TRACE_HEADER_LEN);
	assert_int_equal(type, TC_BLOCK_END);
	assert_int_equal(block_at(&b, 1, &type), 0);
	assert_int_equal(decode(b.data, b.len, &u, NULL), 0);
	assert_int_equal(u->truncated, 0);
	assert_traces_equal(t, u);
	trace__free(u);
	trace__free(t);
	tc_buf_free(&b);
}

static void test_codec_events_comm_table_interned(void **state)
{
	struct tc_event e[6];
	uint8_t raw[4096];
	const uint8_t *p = raw;
	struct tc_buf b = {0};
	uint64_t n_comms;

	(void)state;
	e[0] = mkev(1, 10, 1, 0, 1, 0, 5, "bash");
	e[1] = mkev(1, 20, 1, 0, 1, 0, 6, "make");
	e[2] = mkev(1, 30, 1, 0, 1, 0, 5, "bash");
	e[3] = mkev(1, 40, 1, 0, 1, 0, 6, "make");
	e[4] = mkev(1, 50, 1, 0, 1, 0, 7, "");
	e[5] = mkev(1, 60, 1, 0, 1, 0, 5, "bash");
	assert_int_equal(codec_encode_events(&b, e, 6), 0);
	inflate_at(&b, 0, raw, sizeof(raw)); /* b holds just the one block */
	assert_int_equal(varint_get(&p, raw + sizeof(raw), &n_comms), 0);
	assert_int_equal(n_comms, 3);
	tc_buf_free(&b);
}

static void test_codec_encode_comm_cut_to_15_bytes(void **state)
{
	struct tc_trace *t = trace__new(), *u;
	struct tc_event e = mkev(1, 10, 1, 0, 1, 0, 5, "");
	struct tc_buf b = {0};

	(void)state;
	memset(e.other_comm, 'x', TC_COMM_LEN); /* no NUL at all */
	assert_int_equal(trace__add_events(t, &e, 1), 0);
	encode(t, &b);
	assert_int_equal(decode(b.data, b.len, &u, NULL), 0);
	assert_int_equal(strlen(u->events[0].other_comm), 15);
	assert_int_equal(u->events[0].other_comm[15], '\0');
	trace__free(u);
	trace__free(t);
	tc_buf_free(&b);
}

static void test_codec_encode_samples_rejects_end_before_start(void **state)
{
	struct tc_sample s[2] = {{10, 20, 0, 1}, {30, 29, 0, 1}};
	struct tc_buf b = {0};

	(void)state;
	header_only(&b);
	assert_int_equal(codec_encode_samples(&b, s, 2), -EINVAL);
	assert_int_equal(b.len, TC_TRACE_HEADER_LEN);
	tc_buf_free(&b);
}

/* --- a later writer's files ------------------------------------------------------ */

static void test_codec_decode_longer_header_skipped(void **state)
{
	struct tc_trace *t = small_trace(), *u;
	struct tc_buf b = {0};

	(void)state;
	encode(t, &b);
	/* a later writer's header with 8 more bytes */
	b.data = realloc(b.data, b.len + 8);
	assert_non_null(b.data);
	memmove(b.data + 40, b.data + 32, b.len - 32);
	memset(b.data + 32, 0xee, 8);
	b.len += 8;
	b.data[10] = 40;
	assert_int_equal(decode(b.data, b.len, &u, NULL), 0);
	assert_int_equal(u->truncated, 0);
	assert_traces_equal(t, u);
	trace__free(u);
	trace__free(t);
	tc_buf_free(&b);
}

static void test_codec_decode_unknown_block_skipped(void **state)
{
	struct tc_trace *t = small_trace(), *u;
	struct tc_buf b = {0};
	size_t end_off, nth;
	uint32_t type;

	(void)state;
	chunked_file(&b, t);
	/* splice a block of a future type in front of END */
	for (nth = 0; block_at(&b, nth, &type) && type != TC_BLOCK_END; nth++)
		;
	end_off = block_at(&b, nth, &type);
	assert_int_equal(type, TC_BLOCK_END);
	b.len = end_off;
	add_block(&b, 99, "future data", 11);
	assert_int_equal(codec_encode_end(&b, t->n_samples, t->n_events), 0);
	assert_int_equal(decode(b.data, b.len, &u, NULL), 0);
	assert_int_equal(u->truncated, 0);
	assert_traces_equal(t, u);
	trace__free(u);
	/* skipped, but still checked */
	b.data[end_off + TC_BLOCK_HEADER_LEN + 2] ^= 0x10;
	assert_rejected(&b, "crc32 mismatch");
	trace__free(t);
	tc_buf_free(&b);
}

static void test_codec_decode_empty_meta_block_accepted(void **state)
{
	struct tc_trace *u;
	struct tc_buf b = {0};

	(void)state;
	header_only(&b);
	add_block(&b, TC_BLOCK_META, "", 0);
	assert_int_equal(codec_encode_end(&b, 0, 0), 0);
	assert_int_equal(decode(b.data, b.len, &u, NULL), 0);
	assert_int_equal(u->truncated, 0);
	assert_int_equal(u->n_meta, 0);
	assert_int_equal(u->mono_ns, 1);
	assert_int_equal(u->realtime_ns, 2);
	trace__free(u);
	tc_buf_free(&b);
}

/* --- varints --------------------------------------------------------------------- */

/* With bytes to spare after it, a varint of up to 3 bytes takes the unrolled path: same rules. */
static void test_varint_fast_path_edges(void **state)
{
	static const uint64_t v[] = {0, 1, 127, 128, 255, 16383, 16384, (1u << 21) - 1, 1u << 21};
	static const uint8_t overlong[][3] = {{0x80, 0x00, 0x7f}, {0xff, 0x80, 0x00}};
	uint8_t buf[VARINT_MAX_LEN + 8];
	const uint8_t *p;
	uint64_t out;
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		memset(buf, 0x7f, sizeof(buf));
		n = varint_put(buf, v[i]);
		p = buf;
		assert_int_equal(varint_get(&p, buf + sizeof(buf), &out), 0);
		assert_int_equal(out, v[i]);
		assert_ptr_equal(p, buf + n);
	}
	for (i = 0; i < 2; i++) {
		memcpy(buf, overlong[i], 3);
		buf[3] = 0x01;
		p = buf;
		assert_int_equal(varint_get(&p, buf + 4, &out), -1);
	}
}

/*
 * The unrolled path, bounded (varint_get()) and where VARINT_MAX_LEN bytes are known to
 * be left (varint_get_room(), as the record decoders read), against the byte-at-a-time
 * one on 200 000 random byte strings, mostly of valid varints of every length, some
 * damaged: the same verdict, value and length every time.
 */
static void test_varint_fast_path_matches_slow(void **state)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	uint8_t buf[VARINT_MAX_LEN + 8];

	(void)state;
	for (int i = 0; i < 200000; i++) {
		const uint8_t *fast = buf, *slow = buf, *room = buf;
		uint64_t a = 0, b = 0, c = 0, r;
		int ra, rb, rc;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		r = seed >> (seed & 63); /* values of every magnitude */
		memset(buf, (int)(seed >> 8), sizeof(buf));
		varint_put(buf, r);
		if (i % 5 == 0)
			buf[(seed >> 16) % 9] ^= (uint8_t)(1u << ((seed >> 24) % 8)); /* damaged */
		ra = varint_get(&fast, buf + sizeof(buf), &a);
		rb = varint_get_slow(&slow, buf + sizeof(buf), &b);
		rc = varint_get_room(&room, &c);
		assert_int_equal(ra, rb);
		assert_int_equal(rc, rb);
		if (!ra) {
			assert_true(a == b && c == b);
			assert_ptr_equal(fast, slow);
			assert_ptr_equal(room, slow);
		}
	}
}

static void test_varint_roundtrip_edges(void **state)
{
	static const uint64_t v[] = {0,	    1,		127,	    128,       16383,
				     16384, UINT32_MAX, 1ull << 63, UINT64_MAX};
	static const int64_t z[] = {0, -1, 1, INT64_MIN, INT64_MAX};
	uint8_t buf[VARINT_MAX_LEN + 1];
	const uint8_t *p;
	uint64_t out;
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		n = varint_put(buf, v[i]);
		p = buf;
		assert_int_equal(varint_get(&p, buf + n, &out), 0);
		assert_int_equal(out, v[i]);
		assert_ptr_equal(p, buf + n);
		p = buf;
		assert_int_equal(varint_get(&p, buf + n - 1, &out), -1); /* cut short */
	}
	assert_int_equal(varint_put(buf, UINT64_MAX), VARINT_MAX_LEN);
	buf[9] = 0x02; /* a 10th byte above bit 63 */
	p = buf;
	assert_int_equal(varint_get(&p, buf + VARINT_MAX_LEN, &out), -1);
	/* overlong forms: one value, one encoding */
	buf[0] = 0x80;
	buf[1] = 0x00;
	p = buf;
	assert_int_equal(varint_get(&p, buf + 2, &out), -1);
	buf[0] = 0x83;
	p = buf;
	assert_int_equal(varint_get(&p, buf + 2, &out), -1);
	for (i = 0; i < sizeof(z) / sizeof(z[0]); i++)
		assert_int_equal(varint_unzigzag(varint_zigzag(z[i])), z[i]);
	assert_int_equal(varint_zigzag(-1), 1);
	assert_int_equal(varint_zigzag(1), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codec_roundtrip_all_blocks_exact),
		cmocka_unit_test(test_varint_fast_path_matches_slow),
		cmocka_unit_test(test_codec_roundtrip_extreme_values),
		cmocka_unit_test(test_codec_roundtrip_multi_block),
		cmocka_unit_test(test_codec_roundtrip_aux_values),
		cmocka_unit_test(test_codec_events_aux_follows_dur),
		cmocka_unit_test(test_codec_roundtrip_unknown_event_kinds),
		cmocka_unit_test(test_codec_roundtrip_counters_multi_block),
		cmocka_unit_test(test_codec_encode_counters_none_no_block),
		cmocka_unit_test(test_codec_encode_counters_limit),
		cmocka_unit_test(test_codec_roundtrip_empty_trace),
		cmocka_unit_test(test_codec_events_comm_table_interned),
		cmocka_unit_test(test_codec_encode_comm_cut_to_15_bytes),
		cmocka_unit_test(test_codec_encode_samples_rejects_end_before_start),
		cmocka_unit_test(test_codec_decode_longer_header_skipped),
		cmocka_unit_test(test_codec_decode_unknown_block_skipped),
		cmocka_unit_test(test_codec_decode_empty_meta_block_accepted),
		cmocka_unit_test(test_varint_roundtrip_edges),
		cmocka_unit_test(test_varint_fast_path_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
