/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * codec_fixture.h - what the trace codec's tests share: a small trace with
 * records of every kind, encode/decode wrappers, a hand-made block writer and
 * a walker over a file's block headers. Include after <cmocka.h>.
 */
#ifndef TAILCAUSE_TESTS_CODEC_FIXTURE_H
#define TAILCAUSE_TESTS_CODEC_FIXTURE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "core/trace/trace_codec.h"
#include "core/trace/varint.h"

static inline struct tc_event mkev(uint16_t kind, uint64_t start, uint64_t dur, uint32_t cpu,
				   uint32_t tid, uint32_t arg, uint32_t pid, const char *comm)
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
static inline struct tc_trace *small_trace(void)
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

static inline void assert_traces_equal(const struct tc_trace *a, const struct tc_trace *b)
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

static inline void encode(const struct tc_trace *t, struct tc_buf *b)
{
	memset(b, 0, sizeof(*b));
	assert_int_equal(codec_encode_trace(b, t), 0);
}

/* Decodes into a fresh trace; returns the result code, the trace in *out. */
static inline int decode(const uint8_t *data, size_t len, struct tc_trace **out,
			 struct tc_codec_error *err)
{
	*out = trace__new();
	assert_non_null(*out);
	return codec_decode(data, len, *out, err);
}

static inline int decode_rc(const uint8_t *data, size_t len, struct tc_codec_error *err)
{
	struct tc_trace *t;
	int rc = decode(data, len, &t, err);

	trace__free(t);
	return rc;
}

static inline void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t get32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * The version in a file's header: 1 wraps payloads in zlib, 2 is raw deflate, 3 zstd. A
 * buffer without a header (blocks alone) is of the version writers write.
 */
static inline unsigned int file_version(const struct tc_buf *b)
{
	if (b->len < 10 || memcmp(b->data, TC_TRACE_MAGIC, 8))
		return TC_TRACE_VERSION;
	return (unsigned int)(b->data[8] | b->data[9] << 8);
}

/* Compresses raw into dst as the given file version does; returns the compressed length. */
static inline uLongf pack(uint8_t *dst, uLongf cap, const void *raw, size_t raw_len,
			  unsigned int version)
{
	z_stream zs;
	size_t n;

	if (version == 3) {
		n = ZSTD_compress(dst, cap, raw, raw_len, 3);
		assert_false(ZSTD_isError(n));
		return (uLongf)n;
	}
	memset(&zs, 0, sizeof(zs));
	assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, version == 1 ? MAX_WBITS : -MAX_WBITS, 8,
				      Z_DEFAULT_STRATEGY),
			 Z_OK);
	zs.next_in = (Bytef *)raw;
	zs.avail_in = (uInt)raw_len;
	zs.next_out = dst;
	zs.avail_out = (uInt)cap;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	deflateEnd(&zs);
	return zs.total_out;
}

/* Inflates len bytes at src into out (size cap) as the given file version does; the raw length. */
static inline size_t unpack(const uint8_t *src, size_t len, uint8_t *out, size_t cap,
			    unsigned int version)
{
	z_stream zs;
	size_t n;

	if (version == 3) {
		n = ZSTD_decompress(out, cap, src, len);
		assert_false(ZSTD_isError(n));
		return n;
	}
	memset(&zs, 0, sizeof(zs));
	assert_int_equal(inflateInit2(&zs, version == 1 ? MAX_WBITS : -MAX_WBITS), Z_OK);
	zs.next_in = (Bytef *)src;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	inflateEnd(&zs);
	return zs.total_out;
}

/*
 * Appends a block with a correct CRC around any payload: for hand-made files.
 * The payload is compressed as the file's header version says.
 */
static inline void add_block(struct tc_buf *b, uint32_t type, const void *raw, size_t raw_len)
{
	uLongf comp_len = compressBound(raw_len) + ZSTD_compressBound(raw_len);
	unsigned int version = file_version(b);
	uint8_t *h;

	b->data = realloc(b->data, b->len + TC_BLOCK_HEADER_LEN + comp_len);
	assert_non_null(b->data);
	h = b->data + b->len;
	comp_len = pack(h + TC_BLOCK_HEADER_LEN, comp_len, raw, raw_len, version);
	put32(h, type);
	put32(h + 4, (uint32_t)raw_len);
	put32(h + 8, (uint32_t)comp_len);
	put32(h + 12, (uint32_t)crc32(0, h + TC_BLOCK_HEADER_LEN, comp_len));
	b->len += TC_BLOCK_HEADER_LEN + comp_len;
	b->cap = b->len;
}

/* Appends a block header alone: no payload, whatever its lengths say. */
static inline void add_header(struct tc_buf *b, uint32_t type, uint32_t raw_len, uint32_t comp_len)
{
	b->data = realloc(b->data, b->len + TC_BLOCK_HEADER_LEN);
	assert_non_null(b->data);
	put32(b->data + b->len, type);
	put32(b->data + b->len + 4, raw_len);
	put32(b->data + b->len + 8, comp_len);
	put32(b->data + b->len + 12, 0);
	b->len += TC_BLOCK_HEADER_LEN;
	b->cap = b->len;
}

/* The reader's bound on counters per file (COUNTERS_MAX in core/trace/codec_internal.h). */
#define COUNTERS_LIMIT (1u << 22)

/* A payload builder for hand-made blocks. */
struct raw {
	uint8_t d[256];
	size_t n;
};

static inline void rv(struct raw *r, uint64_t v)
{
	r->n += varint_put(r->d + r->n, v);
}

static inline void rbytes(struct raw *r, const void *p, size_t n)
{
	memcpy(r->d + r->n, p, n);
	r->n += n;
}

/* Offset of the nth block header (0-based) of a well-formed file, or 0. */
static inline size_t block_at(const struct tc_buf *b, size_t nth, uint32_t *type)
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

static inline size_t count_blocks(const struct tc_buf *b, uint32_t want)
{
	size_t nth, n = 0;
	uint32_t type;

	for (nth = 0; block_at(b, nth, &type); nth++)
		n += type == want;
	return n;
}

/* Inflates the block whose header is at off into out (size cap); returns the raw length. */
static inline size_t inflate_at(const struct tc_buf *b, size_t off, uint8_t *out, size_t cap)
{
	return unpack(b->data + off + TC_BLOCK_HEADER_LEN, get32(b->data + off + 8), out, cap,
		      file_version(b));
}

/*
 * Rewrites a well-formed file of the current version as an older version wrote it:
 * the same blocks, their payloads raw deflate (2) or zlib streams (1).
 */
static inline void to_version(struct tc_buf *b, unsigned int version)
{
	struct tc_buf old = {0};
	uint8_t *raw;
	size_t off, nth, raw_len;
	uint32_t type;

	assert_int_equal(file_version(b), TC_TRACE_VERSION);
	old.data = malloc(TC_TRACE_HEADER_LEN);
	assert_non_null(old.data);
	memcpy(old.data, b->data, TC_TRACE_HEADER_LEN);
	old.len = TC_TRACE_HEADER_LEN;
	old.data[8] = (uint8_t)version;
	old.data[9] = 0;
	for (nth = 0; (off = block_at(b, nth, &type)); nth++) {
		raw_len = get32(b->data + off + 4);
		raw = malloc(raw_len ? raw_len : 1);
		assert_non_null(raw);
		assert_int_equal(inflate_at(b, off, raw, raw_len ? raw_len : 1), raw_len);
		add_block(&old, type, raw, raw_len);
		free(raw);
	}
	tc_buf_free(b);
	*b = old;
}

/* A file with just a header, for hand-made blocks. */
static inline void header_only(struct tc_buf *b)
{
	b->len = 0;
	assert_int_equal(codec_encode_header(b, 1, 2), 0);
}

static inline void assert_rejected(const struct tc_buf *b, const char *needle)
{
	struct tc_codec_error err;

	assert_int_equal(decode_rc(b->data, b->len, &err), -EBADMSG);
	if (!strstr(err.msg, needle))
		fail_msg("message \"%s\" lacks \"%s\"", err.msg, needle);
}

/* A file whose samples and events come in several blocks, so a cut keeps a prefix. */
static inline void chunked_file(struct tc_buf *b, struct tc_trace *t)
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

#endif /* TAILCAUSE_TESTS_CODEC_FIXTURE_H */
