// SPDX-License-Identifier: BSD-2-Clause
/*
 * trace_encode.c - the .tct encoder: the trace model to varint/delta records
 * in zstd-compressed, CRC-checked blocks. The payload format is described in
 * codec_internal.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h> /* crc32 */
#include <zstd.h>
#include <zstd_errors.h>

#include "codec_internal.h"

void tc_buf_free(struct tc_buf *b)
{
	free(b->data);
	ZSTD_freeCCtx(b->zstd);
	b->zstd = NULL;
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

static int buf_reserve(struct tc_buf *b, size_t more)
{
	size_t ncap;
	uint8_t *p;

	if (more <= b->cap - b->len)
		return 0;
	if (more > SIZE_MAX / 2 - b->len)
		return -ENOMEM;
	ncap = b->cap ? b->cap : 4096;
	while (ncap < b->len + more)
		ncap *= 2;
	p = realloc(b->data, ncap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = ncap;
	return 0;
}

int codec_encode_header(struct tc_buf *out, uint64_t mono_ns, uint64_t realtime_ns)
{
	uint8_t *h;
	int err;

	err = buf_reserve(out, TC_TRACE_HEADER_LEN);
	if (err)
		return err;
	h = out->data + out->len;
	memcpy(h, TC_TRACE_MAGIC, 8);
	put_le(h + 8, TC_TRACE_VERSION, 2);
	put_le(h + 10, TC_TRACE_HEADER_LEN, 2);
	put_le(h + 12, 0, 4);
	put_le(h + 16, mono_ns, 8);
	put_le(h + 24, realtime_ns, 8);
	out->len += TC_TRACE_HEADER_LEN;
	return 0;
}

/* The largest block of a zstd frame (RFC 8878: Block_Maximum_Size) */
#define ZSTD_BLOCK_MAX ((size_t)128 << 10)

/*
 * raw as one zstd frame of uncompressed ("Raw_Block") blocks at dst, with its content
 * size, as RFC 8878 lays it out; returns its length: raw_len and a few bytes more, which
 * ZSTD_compressBound() allows for. For a block that compresses above TC_BLOCK_MAX_RATIO,
 * which a reader refuses.
 */
static size_t store_frame(uint8_t *dst, const uint8_t *raw, size_t raw_len)
{
	uint8_t *p = dst;
	size_t n, off = 0;

	put_le(p, ZSTD_MAGICNUMBER, 4);
	p[4] = 0xa0; /* a 4-byte Frame_Content_Size, Single_Segment: no window descriptor */
	put_le(p + 5, raw_len, 4);
	p += 9;
	do {
		n = raw_len - off < ZSTD_BLOCK_MAX ? raw_len - off : ZSTD_BLOCK_MAX;
		/* Last_Block, Block_Type 0 (raw), Block_Size */
		put_le(p, (uint32_t)(n << 3) | (off + n == raw_len), 3);
		memcpy(p + 3, raw + off, n);
		p += 3 + n;
		off += n;
	} while (off < raw_len);
	return (size_t)(p - dst);
}

/* Compresses raw into one block appended to out; 0, -E2BIG, -ENOMEM or -EIO. */
static int put_block(struct tc_buf *out, uint32_t type, const uint8_t *raw, size_t raw_len)
{
	size_t comp_len;
	uint8_t *h;
	int err;

	if (raw_len > TC_BLOCK_MAX_RAW)
		return -E2BIG;
	if (!out->zstd && !(out->zstd = ZSTD_createCCtx()))
		return -ENOMEM;
	comp_len = ZSTD_compressBound(raw_len);
	err = buf_reserve(out, TC_BLOCK_HEADER_LEN + comp_len);
	if (err)
		return err;
	h = out->data + out->len;
	/* a one-shot frame records its content size, which the reader checks */
	comp_len = ZSTD_compressCCtx(out->zstd, h + TC_BLOCK_HEADER_LEN, comp_len, raw, raw_len,
				     ZSTD_LEVEL);
	if (ZSTD_isError(comp_len))
		return ZSTD_getErrorCode(comp_len) == ZSTD_error_memory_allocation ? -ENOMEM : -EIO;
	if (raw_len > (uint64_t)comp_len * TC_BLOCK_MAX_RATIO)
		comp_len = store_frame(h + TC_BLOCK_HEADER_LEN, raw, raw_len);
	put_le(h, type, 4);
	put_le(h + 4, raw_len, 4);
	put_le(h + 8, comp_len, 4);
	put_le(h + 12, libdeflate_crc32(0, h + TC_BLOCK_HEADER_LEN, comp_len), 4);
	out->len += TC_BLOCK_HEADER_LEN + comp_len;
	return 0;
}

static inline uint8_t *put_bytes(uint8_t *p, const void *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

int codec_encode_meta(struct tc_buf *out, const struct tc_trace *t)
{
	size_t i, raw_len = 0;
	uint8_t *raw, *p;
	int err;

	if (!t->n_meta)
		return 0;
	if (t->n_meta > META_MAX)
		return -E2BIG;
	for (i = 0; i < t->n_meta; i++) {
		raw_len += strlen(t->meta[i].key) + strlen(t->meta[i].val) + 2;
		if (raw_len > TC_BLOCK_MAX_RAW)
			return -E2BIG;
	}
	raw = malloc(raw_len);
	if (!raw)
		return -ENOMEM;
	for (p = raw, i = 0; i < t->n_meta; i++) {
		p = put_bytes(p, t->meta[i].key, strlen(t->meta[i].key) + 1);
		p = put_bytes(p, t->meta[i].val, strlen(t->meta[i].val) + 1);
	}
	err = put_block(out, TC_BLOCK_META, raw, raw_len);
	free(raw);
	return err;
}

/*
 * The small tables (threads, IRQ names, drops, counters) share one shape: a count, then
 * records of varints and strings, TC_BLOCK_RECORDS per block. put_rec() writes
 * record i at p and returns the end; it may write up to max_rec bytes.
 */
typedef uint8_t *(*put_rec_fn)(uint8_t *p, const struct tc_trace *t, size_t i);

static int put_table(struct tc_buf *out, uint32_t type, const struct tc_trace *t, const size_t *idx,
		     size_t n, size_t max_rec, put_rec_fn put_rec)
{
	size_t start = out->len, off, i, chunk;
	uint8_t *raw, *p;
	int err = 0;

	if (!n)
		return 0;
	chunk = n < TC_BLOCK_RECORDS ? n : TC_BLOCK_RECORDS;
	raw = malloc(VARINT_MAX_LEN + chunk * max_rec);
	if (!raw)
		return -ENOMEM;
	for (off = 0; off < n; off += chunk) {
		chunk = n - off < TC_BLOCK_RECORDS ? n - off : TC_BLOCK_RECORDS;
		p = raw + varint_put(raw, chunk);
		for (i = off; i < off + chunk; i++)
			p = put_rec(p, t, idx ? idx[i] : i);
		err = put_block(out, type, raw, p - raw);
		if (err) {
			out->len = start;
			break;
		}
	}
	free(raw);
	return err;
}

static uint8_t *put_thread(uint8_t *p, const struct tc_trace *t, size_t i)
{
	p += varint_put(p, t->threads[i].tid);
	p += varint_put(p, t->threads[i].role);
	return p + varint_put(p, t->threads[i].cpu);
}

int codec_encode_threads(struct tc_buf *out, const struct tc_trace *t)
{
	return put_table(out, TC_BLOCK_THREADS, t, NULL, t->n_threads, 15, put_thread);
}

static uint8_t *put_irq_name(uint8_t *p, const struct tc_trace *t, size_t i)
{
	size_t len = strnlen(t->irq_names[i].name, IRQ_NAME_MAX);

	p += varint_put(p, t->irq_names[i].irq);
	p += varint_put(p, len);
	return put_bytes(p, t->irq_names[i].name, len);
}

int codec_encode_irq_names(struct tc_buf *out, const struct tc_trace *t)
{
	if (t->n_irq_names > IRQ_NAMES_MAX)
		return -E2BIG;
	return put_table(out, TC_BLOCK_IRQ_NAMES, t, NULL, t->n_irq_names, 6 + IRQ_NAME_MAX,
			 put_irq_name);
}

static uint8_t *put_drop(uint8_t *p, const struct tc_trace *t, size_t cpu)
{
	p += varint_put(p, cpu);
	return p + varint_put(p, t->drops[cpu]);
}

int codec_encode_drops(struct tc_buf *out, const struct tc_trace *t)
{
	size_t *idx, i, n = 0;
	int err;

	for (i = 0; i < t->n_drops; i++) {
		if (!t->drops[i])
			continue;
		if (i >= DROPS_MAX_CPU)
			return -E2BIG;
		n++;
	}
	if (!n)
		return 0;
	idx = malloc(n * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (n = 0, i = 0; i < t->n_drops; i++)
		if (t->drops[i])
			idx[n++] = i;
	err = put_table(out, TC_BLOCK_DROPS, t, idx, n, 3 + VARINT_MAX_LEN, put_drop);
	free(idx);
	return err;
}

static uint8_t *put_counter(uint8_t *p, const struct tc_trace *t, size_t i)
{
	p += varint_put(p, t->counters[i].kind);
	p += varint_put(p, t->counters[i].key);
	p += varint_put(p, t->counters[i].cpu);
	return p + varint_put(p, t->counters[i].value);
}

int codec_encode_counters(struct tc_buf *out, const struct tc_trace *t)
{
	if (t->n_counters > COUNTERS_MAX)
		return -E2BIG; /* the reader would reject the file */
	return put_table(out, TC_BLOCK_COUNTERS, t, NULL, t->n_counters, COUNTER_MAX_LEN,
			 put_counter);
}

int codec_encode_samples(struct tc_buf *out, const struct tc_sample *s, size_t n)
{
	size_t start = out->len, off, i, chunk;
	uint64_t prev;
	uint8_t *raw, *p;
	int err = 0;

	for (i = 0; i < n; i++)
		if (s[i].t_end < s[i].t_start)
			return -EINVAL; /* the reader would reject the file */
	if (!n)
		return 0;
	chunk = n < TC_BLOCK_RECORDS ? n : TC_BLOCK_RECORDS;
	raw = malloc(VARINT_MAX_LEN + chunk * SAMPLE_MAX_LEN);
	if (!raw)
		return -ENOMEM;
	for (off = 0; off < n; off += chunk) {
		chunk = n - off < TC_BLOCK_RECORDS ? n - off : TC_BLOCK_RECORDS;
		p = raw + varint_put(raw, chunk);
		for (prev = 0, i = off; i < off + chunk; i++) {
			p += varint_put(p, varint_zigzag((int64_t)(s[i].t_start - prev)));
			p += varint_put(p, s[i].t_end - s[i].t_start);
			p += varint_put(p, s[i].cpu);
			p += varint_put(p, s[i].tid);
			prev = s[i].t_start;
		}
		err = put_block(out, TC_BLOCK_SAMPLES, raw, p - raw);
		if (err) {
			out->len = start;
			break;
		}
	}
	free(raw);
	return err;
}

/* The per-block comm table: an open-addressing set of NUL-padded 16-byte names. */
struct comm_set {
	char (*names)[TC_COMM_LEN];
	uint32_t *slots; /* index + 1 into names, 0 = free */
	uint32_t mask;
	uint32_t n;
};

static uint32_t comm_hash(const char *c)
{
	uint64_t a, b;

	memcpy(&a, c, 8);
	memcpy(&b, c + 8, 8);
	a = (a ^ (b * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
	return (uint32_t)(a >> 32);
}

/* Returns the index of the (already padded) name, adding it if new. */
static uint32_t comm_intern(struct comm_set *cs, const char *name)
{
	uint32_t h = comm_hash(name) & cs->mask;

	for (;; h = (h + 1) & cs->mask) {
		uint32_t s = cs->slots[h];

		if (!s)
			break;
		if (!memcmp(cs->names[s - 1], name, TC_COMM_LEN))
			return s - 1;
	}
	memcpy(cs->names[cs->n], name, TC_COMM_LEN);
	cs->slots[h] = ++cs->n;
	return cs->n - 1;
}

/* Writes one EVENTS block of n events (n <= TC_BLOCK_RECORDS) into raw. */
static uint8_t *put_events(uint8_t *raw, const struct tc_event *e, size_t n, struct comm_set *cs,
			   uint32_t *cidx)
{
	char name[TC_COMM_LEN], last[TC_COMM_LEN];
	uint32_t last_idx = UINT32_MAX, i;
	uint64_t prev = 0;
	uint8_t *p = raw;

	memset(cs->slots, 0, (cs->mask + 1) * sizeof(*cs->slots));
	cs->n = 0;
	for (i = 0; i < n; i++) {
		size_t len = strnlen(e[i].other_comm, COMM_MAX);

		memset(name, 0, sizeof(name));
		memcpy(name, e[i].other_comm, len);
		/* runs of one comm are the common case: skip the hash */
		if (last_idx == UINT32_MAX || memcmp(name, last, sizeof(name))) {
			last_idx = comm_intern(cs, name);
			memcpy(last, name, sizeof(name));
		}
		cidx[i] = last_idx;
	}
	p += varint_put(p, cs->n);
	for (i = 0; i < cs->n; i++) {
		size_t len = strnlen(cs->names[i], COMM_MAX);

		p += varint_put(p, len);
		p = put_bytes(p, cs->names[i], len);
	}
	p += varint_put(p, n);
	for (i = 0; i < n; i++) {
		p += varint_put(p, e[i].kind);
		p += varint_put(p, e[i].flags);
		p += varint_put(p, varint_zigzag((int64_t)(e[i].start_ns - prev)));
		p += varint_put(p, e[i].dur_ns);
		p += varint_put(p, e[i].aux);
		p += varint_put(p, e[i].cpu);
		p += varint_put(p, e[i].tid);
		p += varint_put(p, e[i].arg);
		p += varint_put(p, e[i].other_pid);
		p += varint_put(p, cidx[i]);
		prev = e[i].start_ns;
	}
	return p;
}

int codec_encode_events(struct tc_buf *out, const struct tc_event *e, size_t n)
{
	size_t start = out->len, off, chunk, nslots = 16;
	struct comm_set cs = {0};
	uint32_t *cidx;
	uint8_t *raw, *p;
	int err = -ENOMEM;

	if (!n)
		return 0;
	chunk = n < TC_BLOCK_RECORDS ? n : TC_BLOCK_RECORDS;
	while (nslots < 2 * chunk)
		nslots *= 2; /* load factor <= 1/2 even if every comm differs */
	raw = malloc(2 * VARINT_MAX_LEN + chunk * (EVENT_MAX_LEN + 1 + COMM_MAX));
	cidx = malloc(chunk * sizeof(*cidx));
	cs.names = malloc(chunk * sizeof(*cs.names));
	cs.slots = malloc(nslots * sizeof(*cs.slots));
	cs.mask = nslots - 1;
	if (!raw || !cidx || !cs.names || !cs.slots)
		goto out_free;
	for (off = 0; off < n; off += chunk) {
		chunk = n - off < TC_BLOCK_RECORDS ? n - off : TC_BLOCK_RECORDS;
		p = put_events(raw, e + off, chunk, &cs, cidx);
		err = put_block(out, TC_BLOCK_EVENTS, raw, p - raw);
		if (err) {
			out->len = start;
			break;
		}
	}
out_free:
	free(cs.slots);
	free(cs.names);
	free(cidx);
	free(raw);
	return err;
}

int codec_encode_index(struct tc_buf *out, const struct tc_block_ref *refs, size_t n)
{
	uint8_t *raw, *p;
	uint64_t off = 0, start = 0;
	int err;

	if (!n)
		return 0;
	if (n > INDEX_MAX)
		return -E2BIG;
	raw = malloc(VARINT_MAX_LEN + n * INDEX_MAX_LEN);
	if (!raw)
		return -ENOMEM;
	p = raw + varint_put(raw, n);
	for (size_t i = 0; i < n; i++) {
		const struct tc_block_ref *r = &refs[i];

		p += varint_put(p, r->type);
		p += varint_put(p, r->off - off); /* blocks are listed in file order */
		p += varint_put(p, r->n);
		p += varint_put(p, varint_zigzag((int64_t)(r->min_start - start)));
		p += varint_put(p, r->max_end > r->min_start ? r->max_end - r->min_start : 0);
		off = r->off;
		start = r->min_start;
	}
	err = put_block(out, TC_BLOCK_INDEX, raw, (size_t)(p - raw));
	free(raw);
	return err;
}

int codec_encode_rtt_hist(struct tc_buf *out, const struct tc_rtt_hist *r)
{
	const struct hist *h = r->h;
	uint8_t *raw, *p;
	size_t n = 0, prev = 0;
	int err;

	if (!h || !h->total || r->wrapped)
		return 0;
	raw = malloc(RTT_HIST_MAX_LEN);
	if (!raw)
		return -ENOMEM;
	for (size_t b = hist_next(h, 0); b < HIST_BUCKETS; b = hist_next(h, b + 1))
		n++;
	p = raw + varint_put(raw, HIST_SUB_BITS);
	p += varint_put(p, h->total);
	p += varint_put(p, h->min);
	p += varint_put(p, h->max);
	p += varint_put(p, r->sum);
	p += varint_put(p, n);
	n = 0;
	for (size_t b = hist_next(h, 0); b < HIST_BUCKETS; b = hist_next(h, b + 1)) {
		p += varint_put(p, n++ ? b - prev - 1 : b);
		p += varint_put(p, h->counts[b]);
		prev = b;
	}
	err = put_block(out, TC_BLOCK_RTT_HIST, raw, (size_t)(p - raw));
	free(raw);
	return err;
}

const double tc_rtt_summary_pcts[TC_RTT_SUMMARY_PCTS] = {50.0, 99.0, 99.9, 99.99, 99.999};

int codec_encode_rtt_summary(struct tc_buf *out, const struct tc_rtt_summary *s)
{
	uint8_t raw[RTT_SUMMARY_MAX_LEN], *p = raw;

	if (s->n_cpus > TC_RTT_SUMMARY_CPUS)
		return -EINVAL;
	p += varint_put(p, s->n);
	p += varint_put(p, s->min);
	p += varint_put(p, s->max);
	for (size_t i = 0; i < TC_RTT_SUMMARY_PCTS; i++)
		p += varint_put(p, s->pct[i]);
	p += varint_put(p, s->sum);
	p += varint_put(p, (uint64_t)s->sumsq);
	p += varint_put(p, (uint64_t)(s->sumsq >> 64));
	p += varint_put(p, s->first_start);
	p += varint_put(p, s->last_start);
	p += varint_put(p, s->n_cpus);
	for (size_t i = 0; i < s->n_cpus; i++)
		p += varint_put(p, s->cpus[i]);
	return put_block(out, TC_BLOCK_RTT_SUMMARY, raw, (size_t)(p - raw));
}

int codec_encode_end(struct tc_buf *out, uint64_t n_samples, uint64_t n_events)
{
	uint8_t raw[2 * VARINT_MAX_LEN], *p = raw;

	p += varint_put(p, n_samples);
	p += varint_put(p, n_events);
	return put_block(out, TC_BLOCK_END, raw, p - raw);
}

int codec_encode_trace(struct tc_buf *out, const struct tc_trace *t)
{
	size_t start = out->len;
	int err;

	err = codec_encode_header(out, t->mono_ns, t->realtime_ns);
	if (!err)
		err = codec_encode_meta(out, t);
	if (!err)
		err = codec_encode_threads(out, t);
	if (!err)
		err = codec_encode_irq_names(out, t);
	if (!err)
		err = codec_encode_samples(out, t->samples, t->n_samples);
	if (!err)
		err = codec_encode_events(out, t->events, t->n_events);
	if (!err)
		err = codec_encode_drops(out, t);
	if (!err)
		err = codec_encode_counters(out, t);
	if (!err)
		err = codec_encode_end(out, t->n_samples, t->n_events);
	if (err)
		out->len = start;
	return err;
}
