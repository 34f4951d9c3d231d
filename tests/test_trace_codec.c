// SPDX-License-Identifier: BSD-2-Clause
/* Unit tests for core/trace_encode.c and trace_decode.c: round trips and a reader that
 * trusts nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/trace_codec.h"
#include "core/varint.h"

/* --- helpers --------------------------------------------------------------------- */

static struct tc_event mkev(uint16_t kind, uint64_t start, uint64_t dur, uint32_t cpu, uint32_t tid,
			    uint32_t arg, uint32_t pid, const char *comm)
{
	struct tc_event e;

	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.flags = kind == TC_EV_OFFCPU ? TC_OFFCPU_PREEMPTED : 0;
	e.start_ns = start;
	e.dur_ns = dur;
	e.cpu = cpu;
	e.tid = tid;
	e.arg = arg;
	e.other_pid = pid;
	memcpy(e.other_comm, comm, strnlen(comm, TC_COMM_LEN - 1));
	return e;
}

/* A trace with a few records of every kind. */
static struct tc_trace *small_trace(void)
{
	struct tc_trace *t = trace__new();
	struct tc_sample s[3] = {
		{1000000, 1003000, 2, 500},
		{1004000, 1044000, 2, 500},
		{1045000, 1045000, 3, 501},
	};
	struct tc_event e[4];

	assert_non_null(t);
	e[0] = mkev(TC_EV_OFFCPU, 1010000, 30000, 2, 500, 0, 77, "kcompactd0");
	e[1] = mkev(TC_EV_HARDIRQ, 1012000, 2000, 2, 0, 24, 0, "");
	e[2] = mkev(TC_EV_SOFTIRQ, 1011000, 900, 2, 0, 3, 0, "");
	e[3] = mkev(TC_EV_OFFCPU, 1020000, 1500, 3, 501, 1, 78, "kcompactd0");
	e[0].aux = 12000; /* woken 12 us into the interval */
	e[3].aux = 1500;
	t->mono_ns = 123456789012345ull;
	t->realtime_ns = 1700000000123456789ull;
	assert_int_equal(trace__set_meta(t, "kernel", "6.1.0-18-amd64"), 0);
	assert_int_equal(trace__set_meta(t, "probe", "shm"), 0);
	assert_int_equal(trace__set_meta(t, "empty", ""), 0);
	assert_int_equal(trace__add_thread(t, 500, TC_THREAD_PROBE, 2), 0);
	assert_int_equal(trace__add_thread(t, 501, TC_THREAD_PROBE, 3), 0);
	assert_int_equal(trace__add_thread(t, 600, TC_THREAD_SELF, UINT32_MAX), 0);
	assert_int_equal(trace__add_samples(t, s, 3), 0);
	assert_int_equal(trace__add_events(t, e, 4), 0);
	assert_int_equal(trace__add_irq_name(t, 24, "mlx5_comp0@pci:0000:3b:00.0"), 0);
	assert_int_equal(trace__add_irq_name(t, 0, "timer"), 0);
	assert_int_equal(trace__set_drops(t, 1, 12), 0);
	assert_int_equal(trace__set_drops(t, 5, 1ull << 40), 0);
	assert_int_equal(trace__add_counter(t, TC_COUNTER_IRQ, 24, 2, 1500), 0);
	assert_int_equal(trace__add_counter(t, TC_COUNTER_IRQ, 24, 3, 7), 0);
	assert_int_equal(trace__add_counter(t, TC_COUNTER_SOFTIRQ, 3, 2, 1ull << 35), 0);
	return t;
}

static void assert_traces_equal(const struct tc_trace *a, const struct tc_trace *b)
{
	size_t i;

	assert_int_equal(a->mono_ns, b->mono_ns);
	assert_int_equal(a->realtime_ns, b->realtime_ns);
	assert_int_equal(a->n_meta, b->n_meta);
	for (i = 0; i < a->n_meta; i++) {
		assert_string_equal(a->meta[i].key, b->meta[i].key);
		assert_string_equal(a->meta[i].val, b->meta[i].val);
	}
	assert_int_equal(a->n_threads, b->n_threads);
	if (a->n_threads)
		assert_memory_equal(a->threads, b->threads, a->n_threads * sizeof(*a->threads));
	assert_int_equal(a->n_samples, b->n_samples);
	if (a->n_samples)
		assert_memory_equal(a->samples, b->samples, a->n_samples * sizeof(*a->samples));
	assert_int_equal(a->n_events, b->n_events);
	if (a->n_events)
		assert_memory_equal(a->events, b->events, a->n_events * sizeof(*a->events));
	assert_int_equal(a->n_irq_names, b->n_irq_names);
	if (a->n_irq_names)
		assert_memory_equal(a->irq_names, b->irq_names,
				    a->n_irq_names * sizeof(*a->irq_names));
	assert_int_equal(a->n_drops, b->n_drops);
	if (a->n_drops)
		assert_memory_equal(a->drops, b->drops, a->n_drops * sizeof(*a->drops));
	assert_int_equal(a->n_counters, b->n_counters);
	if (a->n_counters)
		assert_memory_equal(a->counters, b->counters, a->n_counters * sizeof(*a->counters));
}

static void encode(const struct tc_trace *t, struct tc_buf *b)
{
	memset(b, 0, sizeof(*b));
	assert_int_equal(codec_encode_trace(b, t), 0);
}

/* Decodes into a fresh trace; returns the result code, the trace in *out. */
static int decode(const uint8_t *data, size_t len, struct tc_trace **out,
		  struct tc_codec_error *err)
{
	*out = trace__new();
	assert_non_null(*out);
	return codec_decode(data, len, *out, err);
}

static int decode_rc(const uint8_t *data, size_t len, struct tc_codec_error *err)
{
	struct tc_trace *t;
	int rc = decode(data, len, &t, err);

	trace__free(t);
	return rc;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Appends a block with a correct CRC around any payload: for hand-made files. */
static void add_block(struct tc_buf *b, uint32_t type, const void *raw, size_t raw_len)
{
	uLongf comp_len = compressBound(raw_len);
	uint8_t *h;

	b->data = realloc(b->data, b->len + TC_BLOCK_HEADER_LEN + comp_len);
	assert_non_null(b->data);
	h = b->data + b->len;
	assert_int_equal(compress2(h + TC_BLOCK_HEADER_LEN, &comp_len, raw, raw_len, 6), Z_OK);
	put32(h, type);
	put32(h + 4, (uint32_t)raw_len);
	put32(h + 8, (uint32_t)comp_len);
	put32(h + 12, (uint32_t)crc32(0, h + TC_BLOCK_HEADER_LEN, comp_len));
	b->len += TC_BLOCK_HEADER_LEN + comp_len;
	b->cap = b->len;
}

/* The reader's bound on counters per file (COUNTERS_MAX in core/codec_internal.h). */
#define COUNTERS_LIMIT (1u << 22)

/* A payload builder for hand-made blocks. */
struct raw {
	uint8_t d[256];
	size_t n;
};

static void rv(struct raw *r, uint64_t v)
{
	r->n += varint_put(r->d + r->n, v);
}

static void rbytes(struct raw *r, const void *p, size_t n)
{
	memcpy(r->d + r->n, p, n);
	r->n += n;
}

/* Offset of the nth block header (0-based) of a well-formed file, or 0. */
static size_t block_at(const struct tc_buf *b, size_t nth, uint32_t *type)
{
	size_t off = TC_TRACE_HEADER_LEN, i;

	for (i = 0; off + TC_BLOCK_HEADER_LEN <= b->len; i++) {
		if (i == nth) {
			*type = get32(b->data + off);
			return off;
		}
		off += TC_BLOCK_HEADER_LEN + get32(b->data + off + 8);
	}
	return 0;
}

static size_t count_blocks(const struct tc_buf *b, uint32_t want)
{
	size_t nth, n = 0;
	uint32_t type;

	for (nth = 0; block_at(b, nth, &type); nth++)
		n += type == want;
	return n;
}

/* Inflates the block whose header is at off into out (size cap); returns the raw length. */
static size_t inflate_at(const struct tc_buf *b, size_t off, uint8_t *out, size_t cap)
{
	uLongf n = cap;

	assert_int_equal(
		uncompress(out, &n, b->data + off + TC_BLOCK_HEADER_LEN, get32(b->data + off + 8)),
		Z_OK);
	return n;
}

/* A file with just a header, for hand-made blocks. */
static void header_only(struct tc_buf *b)
{
	b->len = 0;
	assert_int_equal(codec_encode_header(b, 1, 2), 0);
}

static void assert_rejected(const struct tc_buf *b, const char *needle)
{
	struct tc_codec_error err;

	assert_int_equal(decode_rc(b->data, b->len, &err), -EBADMSG);
	if (!strstr(err.msg, needle))
		fail_msg("message \"%s\" lacks \"%s\"", err.msg, needle);
}

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

/* --- truncation -------------------------------------------------------------------- */

/* A file whose samples and events come in several blocks, so a cut keeps a prefix. */
static void chunked_file(struct tc_buf *b, struct tc_trace *t)
{
	size_t i;

	encode(t, b);
	b->len = TC_TRACE_HEADER_LEN;
	assert_int_equal(codec_encode_meta(b, t), 0);
	assert_int_equal(codec_encode_threads(b, t), 0);
	for (i = 0; i < t->n_samples; i++)
		assert_int_equal(codec_encode_samples(b, &t->samples[i], 1), 0);
	for (i = 0; i < t->n_events; i += 2)
		assert_int_equal(codec_encode_events(b, &t->events[i], 2), 0);
	assert_int_equal(codec_encode_irq_names(b, t), 0);
	assert_int_equal(codec_encode_drops(b, t), 0);
	for (i = 0; i < t->n_counters; i++) {
		struct tc_trace one = *t;

		one.counters = &t->counters[i];
		one.n_counters = 1;
		assert_int_equal(codec_encode_counters(b, &one), 0);
	}
	assert_int_equal(codec_encode_end(b, t->n_samples, t->n_events), 0);
}

static void test_codec_decode_truncated_every_offset(void **state)
{
	struct tc_trace *t = small_trace(), *u;
	struct tc_codec_error err;
	struct tc_buf b = {0};
	size_t cut, nth, off, end, want_s, want_e, want_c;
	uint32_t type;
	int rc;

	(void)state;
	chunked_file(&b, t);
	for (cut = 0; cut <= b.len; cut++) {
		rc = decode(b.data, cut, &u, &err);
		if (cut < TC_TRACE_HEADER_LEN) {
			assert_int_equal(rc, -EBADMSG);
			assert_non_null(strstr(err.msg, "header"));
			trace__free(u);
			continue;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(u->truncated, cut < b.len);
		/* exactly the records of the blocks that lie whole before the cut */
		want_s = want_e = want_c = 0;
		for (nth = 0; (off = block_at(&b, nth, &type)); nth++) {
			end = off + TC_BLOCK_HEADER_LEN + get32(b.data + off + 8);
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

/* --- corruption -------------------------------------------------------------------- */

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

/* Whether a flip of byte i may go unnoticed: the header's clock pair, a block's type, or a
 * block's comp_len grown past the end (which is what a cut file looks like). */
static int flip_may_pass(const struct tc_buf *b, size_t i, const struct tc_trace *u)
{
	size_t nth, off;
	uint32_t type;

	if (i >= 16 && i < TC_TRACE_HEADER_LEN)
		return !u->truncated;
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
		if (rc == 0 && !flip_may_pass(&b, i, u))
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
	assert_rejected(&b, "unsupported version 2");
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
	trace__free(t);
	tc_buf_free(&b);
}

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

static void test_codec_decode_bad_comm_rejected(void **state)
{
	struct raw r = {0};
	struct tc_buf b = {0};

	(void)state;
	header_only(&b);
	rv(&r, 1);
	rv(&r, 16);
	rbytes(&r, "0123456789abcdef", 16); /* one byte too long */
	rv(&r, 0);
	add_block(&b, TC_BLOCK_EVENTS, r.d, r.n);
	assert_rejected(&b, "events: comm 0 malformed");

	header_only(&b);
	r.n = 0;
	rv(&r, 1);
	rv(&r, 3);
	rbytes(&r, "a\0b", 3); /* embedded NUL */
	rv(&r, 0);
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

static void test_codec_decode_zlib_trailing_garbage_rejected(void **state)
{
	struct tc_buf b = {0};
	uint8_t *h;

	(void)state;
	header_only(&b);
	add_block(&b, TC_BLOCK_END, "\0\0", 2);
	b.data = realloc(b.data, b.len + 1);
	assert_non_null(b.data);
	b.data[b.len++] = 0x55; /* one byte past the stream, counted and checksummed */
	h = b.data + TC_TRACE_HEADER_LEN;
	put32(h + 8, get32(h + 8) + 1);
	put32(h + 12, (uint32_t)crc32(0, h + 16, get32(h + 8)));
	assert_rejected(&b, "bytes after the zlib stream");
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

/* Appends a COUNTERS block of n records {IRQ, 24, cpu 0, 5}, 4 bytes each. */
static void add_counters_block(struct tc_buf *b, size_t n)
{
	uint8_t *raw = malloc(VARINT_MAX_LEN + 4 * n);
	size_t len, i;

	assert_non_null(raw);
	len = varint_put(raw, n);
	for (i = 0; i < n; i++, len += 4)
		memcpy(raw + len, "\x01\x18\x00\x05", 4);
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
		cmocka_unit_test(test_codec_meta_limit_enforced_both_ways),
		cmocka_unit_test(test_codec_decode_longer_header_skipped),
		cmocka_unit_test(test_codec_decode_end_totals_mismatch_rejected),
		cmocka_unit_test(test_codec_decode_lying_sample_count_rejected),
		cmocka_unit_test(test_codec_decode_lying_event_counts_rejected),
		cmocka_unit_test(test_codec_decode_comm_index_out_of_range_rejected),
		cmocka_unit_test(test_codec_decode_bad_comm_rejected),
		cmocka_unit_test(test_codec_decode_sample_end_before_start_rejected),
		cmocka_unit_test(test_codec_decode_bad_varint_rejected),
		cmocka_unit_test(test_codec_decode_trailing_payload_bytes_rejected),
		cmocka_unit_test(test_codec_decode_zlib_trailing_garbage_rejected),
		cmocka_unit_test(test_codec_decode_data_after_end_rejected),
		cmocka_unit_test(test_codec_decode_unknown_block_skipped),
		cmocka_unit_test(test_codec_decode_malformed_tables_rejected),
		cmocka_unit_test(test_codec_decode_malformed_counters_rejected),
		cmocka_unit_test(test_codec_decode_counters_over_limit_rejected),
		cmocka_unit_test(test_codec_decode_empty_meta_block_accepted),
		cmocka_unit_test(test_varint_roundtrip_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
