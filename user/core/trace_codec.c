// SPDX-License-Identifier: BSD-2-Clause
/*
 * trace_codec.c - the .tct trace format: encoder and validating decoder.
 *
 * Block payloads, before zlib (v = LEB128 varint, z = zigzag varint of the
 * difference to the previous record's value in the same block, 0 for the first):
 *   META       key\0value\0 ... (at most META_MAX pairs in a file)
 *   THREADS    v count, count * {v tid, v role, v cpu}
 *   SAMPLES    v count, count * {z t_start, v t_end - t_start, v cpu, v tid}
 *   EVENTS     v n_comms, n_comms * {v len (<= 15), len bytes, no NUL}, each comm
 *              once; v count, count * {v kind, v flags, z start_ns, v dur_ns, v cpu,
 *              v tid, v arg, v other_pid, v comm index}
 *   IRQ_NAMES  v count, count * {v irq, v len (<= 63), len bytes, no NUL}
 *   DROPS      v count, count * {v cpu (< DROPS_MAX_CPU), v drops}, non-zero only
 *   END        v n_samples, v n_events: totals of the file, checked by the reader
 * Every block starts its deltas afresh, so each decodes on its own. A payload
 * must be consumed exactly; trailing bytes are an error, and so are bytes after
 * the END block. Unknown block types are CRC-checked and skipped.
 *
 * A header_len above 32 is a later writer's header extension: its extra bytes
 * are skipped.
 *
 * A block header whose lengths are impossible (raw_len above TC_BLOCK_MAX_RAW,
 * comp_len above zlib's compressBound(raw_len), raw_len above what deflate can
 * expand comp_len to) is corrupt. A plausible header whose payload runs past
 * the end of the data is what a cut-off file looks like: the trace is
 * truncated there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "trace_codec.h"
#include "varint.h"

/* Level 1: on recorder-like events 4-5x faster than level 6, for ~15% more bytes. */
#define ZLEVEL 1
/* deflate emits at least 2 bits per 258-byte match: no stream expands further */
#define ZLIB_MAX_RATIO 1032u
/* Bounds on tables that the trace model searches linearly. */
#define META_MAX      8192
#define IRQ_NAMES_MAX (1u << 20)
#define DROPS_MAX_CPU (1u << 16)
#define COMM_MAX      (TC_COMM_LEN - 1)
#define IRQ_NAME_MAX  63
/* Smallest and largest encodings of one record. */
#define SAMPLE_MIN_LEN 4
#define SAMPLE_MAX_LEN (2 * VARINT_MAX_LEN + 2 * 5)
#define EVENT_MIN_LEN  9
#define EVENT_MAX_LEN  (3 + 3 + 2 * VARINT_MAX_LEN + 4 * 5 + 5)
#define BATCH	       1024 /* decoded records appended to the trace at a time */

_Static_assert(sizeof(((struct tc_irq_name *)0)->name) == IRQ_NAME_MAX + 1, "irq name size");

void tc_buf_free(struct tc_buf *b)
{
	free(b->data);
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

static void put_le(uint8_t *p, uint64_t v, unsigned int bytes)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, unsigned int bytes)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
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

/* Compresses raw into one block appended to out; 0, -E2BIG, -ENOMEM or -EIO. */
static int put_block(struct tc_buf *out, uint32_t type, const uint8_t *raw, size_t raw_len)
{
	uLongf comp_len;
	uint8_t *h;
	int err;

	if (raw_len > TC_BLOCK_MAX_RAW)
		return -E2BIG;
	comp_len = compressBound(raw_len);
	err = buf_reserve(out, TC_BLOCK_HEADER_LEN + comp_len);
	if (err)
		return err;
	h = out->data + out->len;
	err = compress2(h + TC_BLOCK_HEADER_LEN, &comp_len, raw, raw_len, ZLEVEL);
	if (err != Z_OK)
		return err == Z_MEM_ERROR ? -ENOMEM : -EIO;
	put_le(h, type, 4);
	put_le(h + 4, raw_len, 4);
	put_le(h + 8, comp_len, 4);
	put_le(h + 12, crc32(0, h + TC_BLOCK_HEADER_LEN, comp_len), 4);
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
 * The small tables (threads, IRQ names, drops) share one shape: a count, then
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
		err = codec_encode_end(out, t->n_samples, t->n_events);
	if (err)
		out->len = start;
	return err;
}

/* Decoder state. The trace model grows in BATCH-record steps from a scratch array. */
struct dec {
	struct tc_trace *out;
	struct tc_codec_error *err;
	size_t block_no, block_off;
	uint64_t n_samples, n_events, n_meta;
	z_stream zs;
	int zs_ready;
	uint8_t *raw;
	size_t raw_cap;
	uint32_t *comm_off;
	size_t comm_cap;
	union {
		struct tc_event ev[BATCH];
		struct tc_sample s[BATCH];
	} batch;
};

/* A payload cursor. */
struct rd {
	const uint8_t *p, *end;
};

static int vfail(struct tc_codec_error *e, size_t off, const char *pfx, const char *fmt, va_list ap)
{
	int n;

	if (!e)
		return -EBADMSG;
	e->offset = off;
	n = snprintf(e->msg, sizeof(e->msg), "%s", pfx);
	if (n < 0 || (size_t)n >= sizeof(e->msg))
		n = 0;
	vsnprintf(e->msg + n, sizeof(e->msg) - n, fmt, ap);
	return -EBADMSG;
}

/* Records why the file is bad (at offset off) and returns -EBADMSG. */
static int fail(struct tc_codec_error *e, size_t off, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vfail(e, off, "", fmt, ap);
	va_end(ap);
	return err;
}

/* As fail(), for the current block: "block 3 at offset 4096: <why>". */
static int bfail(struct dec *d, const char *fmt, ...)
{
	char pfx[64];
	va_list ap;
	int err;

	snprintf(pfx, sizeof(pfx), "block %zu at offset %zu: ", d->block_no, d->block_off);
	va_start(ap, fmt);
	err = vfail(d->err, d->block_off, pfx, fmt, ap);
	va_end(ap);
	return err;
}

static inline int get_u64(struct rd *r, uint64_t *v)
{
	return varint_get(&r->p, r->end, v);
}

static inline int get_u32(struct rd *r, uint32_t *v)
{
	uint64_t x;

	if (varint_get(&r->p, r->end, &x) || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

static inline int get_u16(struct rd *r, uint16_t *v)
{
	uint64_t x;

	if (varint_get(&r->p, r->end, &x) || x > UINT16_MAX)
		return -1;
	*v = (uint16_t)x;
	return 0;
}

static inline size_t left(const struct rd *r)
{
	return (size_t)(r->end - r->p);
}

/* Reads a record count that min_len-byte records must fit in what is left. */
static int get_count(struct dec *d, struct rd *r, const char *what, size_t min_len, size_t *n)
{
	uint64_t v;

	if (get_u64(r, &v))
		return bfail(d, "%s: malformed count", what);
	if (v > left(r) / min_len)
		return bfail(d, "%s: count %" PRIu64 " exceeds the payload", what, v);
	*n = (size_t)v;
	return 0;
}

/* A len-prefixed string of at most max bytes without NUL; returns its start. */
static const uint8_t *get_str(struct rd *r, size_t max, size_t *len)
{
	const uint8_t *s;
	uint64_t v;

	if (get_u64(r, &v) || v > max || v > left(r))
		return NULL;
	s = r->p;
	if (memchr(s, 0, v))
		return NULL;
	r->p += v;
	*len = v;
	return s;
}

static int dec_meta(struct dec *d, struct rd *r)
{
	const char *key, *val, *nul;
	int err;

	while (r->p < r->end) {
		key = (const char *)r->p;
		nul = memchr(key, 0, left(r));
		if (!nul)
			return bfail(d, "meta: unterminated key");
		r->p = (const uint8_t *)nul + 1;
		val = (const char *)r->p;
		nul = memchr(val, 0, left(r));
		if (!nul)
			return bfail(d, "meta: unterminated value for %.32s", key);
		r->p = (const uint8_t *)nul + 1;
		if (++d->n_meta > META_MAX)
			return bfail(d, "meta: more than %d entries", META_MAX);
		err = trace__set_meta(d->out, key, val);
		if (err)
			return err;
	}
	return 0;
}

static int dec_threads(struct dec *d, struct rd *r)
{
	uint32_t tid, role, cpu;
	size_t n, i;
	int err;

	err = get_count(d, r, "threads", 3, &n);
	for (i = 0; !err && i < n; i++) {
		if (get_u32(r, &tid) || get_u32(r, &role) || get_u32(r, &cpu))
			return bfail(d, "threads: record %zu malformed", i);
		err = trace__add_thread(d->out, tid, role, cpu);
	}
	return err;
}

static int dec_irq_names(struct dec *d, struct rd *r)
{
	char name[IRQ_NAME_MAX + 1];
	const uint8_t *s;
	size_t n, i, len;
	uint32_t irq;
	int err;

	err = get_count(d, r, "irq names", 2, &n);
	if (!err && d->out->n_irq_names + n > IRQ_NAMES_MAX)
		return bfail(d, "irq names: more than %u", IRQ_NAMES_MAX);
	for (i = 0; !err && i < n; i++) {
		if (get_u32(r, &irq) || !(s = get_str(r, IRQ_NAME_MAX, &len)))
			return bfail(d, "irq names: record %zu malformed", i);
		memcpy(name, s, len);
		name[len] = '\0';
		err = trace__add_irq_name(d->out, irq, name);
	}
	return err;
}

static int dec_drops(struct dec *d, struct rd *r)
{
	uint32_t cpu, max = 0;
	uint64_t count;
	size_t n, i;
	struct rd again;
	int err;

	err = get_count(d, r, "drops", 2, &n);
	if (err || !n)
		return err;
	/* check every record, then grow drops[] once, not once per CPU */
	again = *r;
	for (i = 0; i < n; i++) {
		if (get_u32(r, &cpu) || get_u64(r, &count))
			return bfail(d, "drops: record %zu malformed", i);
		if (cpu >= DROPS_MAX_CPU)
			return bfail(d, "drops: cpu %" PRIu32 " out of range", cpu);
		if (cpu > max)
			max = cpu;
	}
	if (max >= d->out->n_drops) {
		err = trace__set_drops(d->out, max, 0);
		if (err)
			return err;
	}
	for (i = 0; i < n; i++) {
		get_u32(&again, &cpu);
		get_u64(&again, &count);
		d->out->drops[cpu] = count;
	}
	return 0;
}

static int dec_samples(struct dec *d, struct rd *r)
{
	struct tc_sample *s = d->batch.s;
	uint64_t delta, dur, prev = 0;
	size_t n, i, k = 0;
	int err;

	err = get_count(d, r, "samples", SAMPLE_MIN_LEN, &n);
	for (i = 0; !err && i < n; i++) {
		if (get_u64(r, &delta) || get_u64(r, &dur) || get_u32(r, &s[k].cpu) ||
		    get_u32(r, &s[k].tid))
			return bfail(d, "samples: record %zu malformed", i);
		s[k].t_start = prev + (uint64_t)varint_unzigzag(delta);
		if (dur > UINT64_MAX - s[k].t_start)
			return bfail(d, "samples: record %zu ends before it starts", i);
		s[k].t_end = s[k].t_start + dur;
		prev = s[k].t_start;
		if (++k == BATCH || i + 1 == n) {
			err = trace__add_samples(d->out, s, k);
			k = 0;
		}
	}
	d->n_samples += n;
	return err;
}

/*
 * The comm table, as where each name starts in the payload (which is at most
 * TC_BLOCK_MAX_RAW bytes, so it fits 28 bits) shifted left by 4, or its length.
 */
static int dec_comms(struct dec *d, struct rd *r, const uint8_t *base, size_t *n_comms)
{
	const uint8_t *name;
	size_t n, i, len;
	uint32_t *p;
	int err;

	_Static_assert(TC_BLOCK_MAX_RAW <= (1u << 28) && COMM_MAX < 16, "comm table packing");
	err = get_count(d, r, "events: comm table", 1, &n);
	if (err)
		return err;
	if (n > d->comm_cap) {
		p = realloc(d->comm_off, n * sizeof(*p));
		if (!p)
			return -ENOMEM;
		d->comm_off = p;
		d->comm_cap = n;
	}
	for (i = 0; i < n; i++) {
		name = get_str(r, COMM_MAX, &len);
		if (!name)
			return bfail(d, "events: comm %zu malformed", i);
		d->comm_off[i] = (uint32_t)(name - base) << 4 | (uint32_t)len;
	}
	*n_comms = n;
	return 0;
}

static int dec_events(struct dec *d, struct rd *r)
{
	const uint8_t *base = r->p;
	struct tc_event *e;
	uint64_t delta, dur, prev = 0;
	size_t n = 0, i, k = 0, n_comms = 0;
	uint32_t ci;
	int err;

	err = dec_comms(d, r, base, &n_comms);
	if (!err)
		err = get_count(d, r, "events", EVENT_MIN_LEN, &n);
	for (i = 0; !err && i < n; i++) {
		e = &d->batch.ev[k];
		memset(e, 0, sizeof(*e));
		if (get_u16(r, &e->kind) || get_u16(r, &e->flags) || get_u64(r, &delta) ||
		    get_u64(r, &dur) || get_u32(r, &e->cpu) || get_u32(r, &e->tid) ||
		    get_u32(r, &e->arg) || get_u32(r, &e->other_pid) || get_u32(r, &ci))
			return bfail(d, "events: record %zu malformed", i);
		if (ci >= n_comms)
			return bfail(d, "events: record %zu: comm %" PRIu32 " of %zu", i, ci,
				     n_comms);
		memcpy(e->other_comm, base + (d->comm_off[ci] >> 4), d->comm_off[ci] & 15);
		e->start_ns = prev + (uint64_t)varint_unzigzag(delta);
		e->dur_ns = dur;
		prev = e->start_ns;
		if (++k == BATCH || i + 1 == n) {
			err = trace__add_events(d->out, d->batch.ev, k);
			k = 0;
		}
	}
	if (!err)
		d->n_events += n;
	return err;
}

static int dec_end(struct dec *d, struct rd *r)
{
	uint64_t ns, ne;

	if (get_u64(r, &ns) || get_u64(r, &ne))
		return bfail(d, "end: malformed totals");
	if (ns != d->n_samples || ne != d->n_events)
		return bfail(d,
			     "end: totals say %" PRIu64 " samples, %" PRIu64
			     " events; read %" PRIu64 " and %" PRIu64,
			     ns, ne, d->n_samples, d->n_events);
	return 0;
}

/* Inflates a block's payload into d->raw; it must come to exactly raw_len bytes. */
static int inflate_block(struct dec *d, const uint8_t *src, uint32_t comp_len, uint32_t raw_len)
{
	int zerr;

	if (raw_len > d->raw_cap || !d->raw) {
		uint8_t *p = realloc(d->raw, raw_len ? raw_len : 1);

		if (!p)
			return -ENOMEM;
		d->raw = p;
		d->raw_cap = raw_len;
	}
	if (!d->zs_ready) {
		if (inflateInit(&d->zs) != Z_OK)
			return -ENOMEM;
		d->zs_ready = 1;
	} else if (inflateReset(&d->zs) != Z_OK) {
		return bfail(d, "zlib reset failed");
	}
	d->zs.next_in = (Bytef *)src;
	d->zs.avail_in = comp_len;
	d->zs.next_out = d->raw;
	d->zs.avail_out = raw_len;
	zerr = inflate(&d->zs, Z_FINISH);
	if (zerr == Z_MEM_ERROR)
		return -ENOMEM;
	if (zerr == Z_STREAM_END && d->zs.avail_in)
		return bfail(d, "bytes after the zlib stream");
	if (zerr == Z_STREAM_END && d->zs.avail_out)
		return bfail(d, "payload inflates to %lu bytes, raw_len says %" PRIu32,
			     d->zs.total_out, raw_len);
	if (zerr == Z_STREAM_END)
		return 0;
	if (zerr == Z_BUF_ERROR && d->zs.avail_in && !d->zs.avail_out)
		return bfail(d, "payload inflates to more than raw_len %" PRIu32, raw_len);
	if (zerr == Z_BUF_ERROR)
		return bfail(d, "zlib stream ends early");
	return bfail(d, "zlib: %s", d->zs.msg ? d->zs.msg : "inflate failed");
}

static int dec_block(struct dec *d, uint32_t type, const uint8_t *payload, uint32_t comp_len,
		     uint32_t raw_len)
{
	struct rd r;
	int err;

	if (type < TC_BLOCK_META || type > TC_BLOCK_END)
		return 0; /* from a newer writer: checked, skipped */
	err = inflate_block(d, payload, comp_len, raw_len);
	if (err)
		return err;
	r.p = d->raw;
	r.end = d->raw + raw_len;
	switch (type) {
	case TC_BLOCK_META:
		err = dec_meta(d, &r);
		break;
	case TC_BLOCK_THREADS:
		err = dec_threads(d, &r);
		break;
	case TC_BLOCK_SAMPLES:
		err = dec_samples(d, &r);
		break;
	case TC_BLOCK_EVENTS:
		err = dec_events(d, &r);
		break;
	case TC_BLOCK_IRQ_NAMES:
		err = dec_irq_names(d, &r);
		break;
	case TC_BLOCK_DROPS:
		err = dec_drops(d, &r);
		break;
	default:
		err = dec_end(d, &r);
		break;
	}
	if (!err && r.p != r.end)
		return bfail(d, "%zu bytes after the records", left(&r));
	return err;
}

/* Walks the blocks after the header; returns 0 at END or at a cut, else an error. */
static int dec_blocks(struct dec *d, const uint8_t *data, size_t len, size_t off)
{
	uint32_t type, raw_len, comp_len, crc;
	const uint8_t *h;
	int err;

	for (d->block_no = 0;; d->block_no++) {
		d->block_off = off;
		if (len - off < TC_BLOCK_HEADER_LEN)
			break; /* no END: cut inside or before a block header */
		h = data + off;
		type = (uint32_t)get_le(h, 4);
		raw_len = (uint32_t)get_le(h + 4, 4);
		comp_len = (uint32_t)get_le(h + 8, 4);
		crc = (uint32_t)get_le(h + 12, 4);
		if (raw_len > TC_BLOCK_MAX_RAW)
			return bfail(d, "raw_len %" PRIu32 " above the %u limit", raw_len,
				     TC_BLOCK_MAX_RAW);
		if (comp_len > compressBound(raw_len) ||
		    raw_len > (uint64_t)comp_len * ZLIB_MAX_RATIO)
			return bfail(d, "comp_len %" PRIu32 " impossible for raw_len %" PRIu32,
				     comp_len, raw_len);
		if (comp_len > len - off - TC_BLOCK_HEADER_LEN)
			break; /* cut inside the payload */
		if (crc32(0, h + TC_BLOCK_HEADER_LEN, comp_len) != crc)
			return bfail(d, "crc32 mismatch");
		err = dec_block(d, type, h + TC_BLOCK_HEADER_LEN, comp_len, raw_len);
		if (err)
			return err;
		off += TC_BLOCK_HEADER_LEN + comp_len;
		if (type == TC_BLOCK_END) {
			if (off != len)
				return fail(d->err, off, "%zu bytes after the end block",
					    len - off);
			return 0;
		}
	}
	d->out->truncated = 1;
	return 0;
}

int codec_decode(const uint8_t *data, size_t len, struct tc_trace *out, struct tc_codec_error *err)
{
	unsigned int version, header_len;
	struct dec *d;
	uint32_t flags;
	int ret;

	if (err) {
		err->offset = 0;
		err->msg[0] = '\0';
	}
	if (!out || (!data && len))
		return -EINVAL;
	if (len < TC_TRACE_HEADER_LEN)
		return fail(err, 0, "file of %zu bytes is shorter than the %d-byte header", len,
			    TC_TRACE_HEADER_LEN);
	if (memcmp(data, TC_TRACE_MAGIC, 8))
		return fail(err, 0, "bad magic: not a tailcause trace");
	version = (unsigned int)get_le(data + 8, 2);
	if (version != TC_TRACE_VERSION)
		return fail(err, 8, "unsupported version %u (this reader knows %d)", version,
			    TC_TRACE_VERSION);
	header_len = (unsigned int)get_le(data + 10, 2);
	if (header_len < TC_TRACE_HEADER_LEN || header_len > len)
		return fail(err, 10, "bad header length %u", header_len);
	flags = (uint32_t)get_le(data + 12, 4);
	if (flags)
		return fail(err, 12, "unknown header flags 0x%" PRIx32, flags);
	out->mono_ns = get_le(data + 16, 8);
	out->realtime_ns = get_le(data + 24, 8);

	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->out = out;
	d->err = err;
	ret = dec_blocks(d, data, len, header_len);
	if (d->zs_ready)
		inflateEnd(&d->zs);
	free(d->comm_off);
	free(d->raw);
	free(d);
	return ret;
}
