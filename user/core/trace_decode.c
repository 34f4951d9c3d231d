// SPDX-License-Identifier: BSD-2-Clause
/*
 * trace_decode.c - the validating .tct decoder: it trusts nothing in the file,
 * bounds every count by the bytes that must hold it and says where and why a
 * file is bad. The payload format is described in codec_internal.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>
#include <zlib.h> /* compressBound: what the writer's deflate can produce */

#include "codec_internal.h"

/*
 * Decoder state. Samples and events are written in place into the trace's
 * arrays, sized once before the first block (presize()).
 */
struct dec {
	struct tc_trace *out;
	struct tc_codec_error *err;
	void (*consumed)(void *arg, size_t off); /* see codec_decode_release() */
	void *consumed_arg;
	size_t block_no, block_off;
	uint64_t n_samples, n_events, n_meta;
	struct libdeflate_decompressor *inflater;
	int zlib_wrapped;	 /* a version 1 file: zlib streams, not raw deflate */
	size_t in_used, out_len; /* of the last inflate_raw() */
	uint8_t *raw;
	size_t raw_cap;
	char (*comms)[TC_COMM_LEN]; /* the block's comm table, NUL-padded */
	size_t comm_cap;
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

static int dec_counters(struct dec *d, struct rd *r)
{
	uint32_t kind, key, cpu;
	uint64_t value;
	size_t n, i;
	int err;

	err = get_count(d, r, "counters", COUNTER_MIN_LEN, &n);
	if (!err && d->out->n_counters + n > COUNTERS_MAX)
		return bfail(d, "counters: more than %u", COUNTERS_MAX);
	for (i = 0; !err && i < n; i++) {
		if (get_u32(r, &kind) || get_u32(r, &key) || get_u32(r, &cpu) || get_u64(r, &value))
			return bfail(d, "counters: record %zu malformed", i);
		err = trace__add_counter(d->out, kind, key, cpu, value);
	}
	return err;
}

static int dec_samples(struct dec *d, struct rd *r)
{
	struct tc_sample *s;
	uint64_t delta, dur, prev = 0;
	size_t n, i;
	int err;

	err = get_count(d, r, "samples", SAMPLE_MIN_LEN, &n);
	if (!err)
		err = trace__reserve(d->out, n, 0);
	if (err)
		return err;
	s = d->out->samples + d->out->n_samples;
	for (i = 0; i < n; i++, s++) {
		if (get_u64(r, &delta) || get_u64(r, &dur) || get_u32(r, &s->cpu) ||
		    get_u32(r, &s->tid))
			return bfail(d, "samples: record %zu malformed", i);
		s->t_start = prev + (uint64_t)varint_unzigzag(delta);
		if (dur > UINT64_MAX - s->t_start)
			return bfail(d, "samples: record %zu ends before it starts", i);
		s->t_end = s->t_start + dur;
		prev = s->t_start;
	}
	d->out->n_samples += n;
	d->n_samples += n;
	return 0;
}

/* The comm table, each name NUL-padded to TC_COMM_LEN so an event copies it whole. */
static int dec_comms(struct dec *d, struct rd *r, size_t *n_comms)
{
	const uint8_t *name;
	size_t n, i, len;
	void *p;
	int err;

	err = get_count(d, r, "events: comm table", 1, &n);
	if (err)
		return err;
	if (n > d->comm_cap) {
		p = realloc(d->comms, n * sizeof(*d->comms));
		if (!p)
			return -ENOMEM;
		d->comms = p;
		d->comm_cap = n;
	}
	for (i = 0; i < n; i++) {
		name = get_str(r, COMM_MAX, &len);
		if (!name)
			return bfail(d, "events: comm %zu malformed", i);
		memset(d->comms[i], 0, TC_COMM_LEN);
		memcpy(d->comms[i], name, len);
	}
	*n_comms = n;
	return 0;
}

static int dec_events(struct dec *d, struct rd *r)
{
	struct tc_event *e;
	uint64_t delta, dur, aux, prev = 0;
	size_t n = 0, i, n_comms = 0;
	uint32_t ci;
	int err;

	err = dec_comms(d, r, &n_comms);
	if (!err)
		err = get_count(d, r, "events", EVENT_MIN_LEN, &n);
	if (!err)
		err = trace__reserve(d->out, 0, n);
	if (err)
		return err;
	e = d->out->events + d->out->n_events;
	for (i = 0; i < n; i++, e++) {
		/* any kind is kept: one above TC_EV_KIND_MAX is a later writer's */
		if (get_u16(r, &e->kind) || get_u16(r, &e->flags) || get_u64(r, &delta) ||
		    get_u64(r, &dur) || get_u64(r, &aux) || get_u32(r, &e->cpu) ||
		    get_u32(r, &e->tid) || get_u32(r, &e->arg) || get_u32(r, &e->other_pid) ||
		    get_u32(r, &ci))
			return bfail(d, "events: record %zu malformed", i);
		if (ci >= n_comms)
			return bfail(d, "events: record %zu: comm %" PRIu32 " of %zu", i, ci,
				     n_comms);
		memcpy(e->other_comm, d->comms[ci], TC_COMM_LEN);
		e->start_ns = prev + (uint64_t)varint_unzigzag(delta);
		e->dur_ns = dur;
		e->aux = aux;
		e->pad = 0;
		prev = e->start_ns;
	}
	d->out->n_events += n;
	d->n_events += n;
	return 0;
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

/*
 * Inflates comp_len bytes at src into d->raw, room for raw_len: libdeflate's
 * result, -ENOMEM, with d->in_used and d->out_len set on success.
 */
static int inflate_raw(struct dec *d, const uint8_t *src, uint32_t comp_len, uint32_t raw_len)
{
	if (raw_len > d->raw_cap || !d->raw) {
		uint8_t *p = realloc(d->raw, raw_len ? raw_len : 1);

		if (!p)
			return -ENOMEM;
		d->raw = p;
		d->raw_cap = raw_len;
	}
	if (!d->inflater && !(d->inflater = libdeflate_alloc_decompressor()))
		return -ENOMEM;
	if (d->zlib_wrapped)
		return libdeflate_zlib_decompress_ex(d->inflater, src, comp_len, d->raw, raw_len,
						     &d->in_used, &d->out_len);
	return libdeflate_deflate_decompress_ex(d->inflater, src, comp_len, d->raw, raw_len,
						&d->in_used, &d->out_len);
}

/* Inflates a block's payload into d->raw; it must come to exactly raw_len bytes. */
static int inflate_block(struct dec *d, const uint8_t *src, uint32_t comp_len, uint32_t raw_len)
{
	int res = inflate_raw(d, src, comp_len, raw_len);

	if (res == -ENOMEM)
		return res;
	if (res == LIBDEFLATE_INSUFFICIENT_SPACE)
		return bfail(d, "payload inflates to more than raw_len %" PRIu32, raw_len);
	if (res != LIBDEFLATE_SUCCESS)
		return bfail(d, "%s stream corrupt or cut short",
			     d->zlib_wrapped ? "zlib" : "deflate");
	if (d->in_used != comp_len)
		return bfail(d, "bytes after the deflate stream");
	if (d->out_len != raw_len)
		return bfail(d, "payload inflates to %zu bytes, raw_len says %" PRIu32, d->out_len,
			     raw_len);
	return 0;
}

/*
 * Sizes the trace's sample and event arrays once, before decoding, so that
 * no block reallocates them: to the END block's totals when the file has
 * one, else (a truncated file) to the most records the blocks' raw lengths
 * can hold, room that is never touched costing only address space. Reads
 * block headers only, and inflates END; everything it skips or does not
 * trust is checked by the decoding pass, and a failure here only means the
 * arrays grow as they go.
 */
static void presize(struct dec *d, const uint8_t *data, size_t len, size_t off)
{
	uint64_t max_s = 0, max_e = 0, end_s, end_e;
	uint32_t type, raw_len, comp_len;
	struct rd r;

	while (len - off >= TC_BLOCK_HEADER_LEN) {
		type = (uint32_t)get_le(data + off, 4);
		raw_len = (uint32_t)get_le(data + off + 4, 4);
		comp_len = (uint32_t)get_le(data + off + 8, 4);
		if (raw_len > TC_BLOCK_MAX_RAW || comp_len > len - off - TC_BLOCK_HEADER_LEN)
			break;
		if (type == TC_BLOCK_SAMPLES)
			max_s += raw_len / SAMPLE_MIN_LEN;
		else if (type == TC_BLOCK_EVENTS)
			max_e += raw_len / EVENT_MIN_LEN;
		if (type == TC_BLOCK_END && inflate_raw(d, data + off + TC_BLOCK_HEADER_LEN,
							comp_len, raw_len) == LIBDEFLATE_SUCCESS) {
			r.p = d->raw;
			r.end = d->raw + d->out_len;
			if (!get_u64(&r, &end_s) && !get_u64(&r, &end_e) && end_s <= max_s &&
			    end_e <= max_e) {
				max_s = end_s;
				max_e = end_e;
			}
			break;
		}
		off += TC_BLOCK_HEADER_LEN + comp_len;
	}
	if (max_s > SIZE_MAX / sizeof(struct tc_sample) ||
	    max_e > SIZE_MAX / sizeof(struct tc_event))
		return;
	trace__reserve(d->out, (size_t)max_s, (size_t)max_e);
}

static int dec_block(struct dec *d, uint32_t type, const uint8_t *payload, uint32_t comp_len,
		     uint32_t raw_len)
{
	struct rd r;
	int err;

	if (type < TC_BLOCK_META || type > TC_BLOCK_COUNTERS)
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
	case TC_BLOCK_END:
		err = dec_end(d, &r);
		break;
	case TC_BLOCK_COUNTERS:
		err = dec_counters(d, &r);
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
		if (libdeflate_crc32(0, h + TC_BLOCK_HEADER_LEN, comp_len) != crc)
			return bfail(d, "crc32 mismatch");
		err = dec_block(d, type, h + TC_BLOCK_HEADER_LEN, comp_len, raw_len);
		if (err)
			return err;
		off += TC_BLOCK_HEADER_LEN + comp_len;
		if (d->consumed)
			d->consumed(d->consumed_arg, off);
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
	return codec_decode_release(data, len, out, err, NULL, NULL);
}

int codec_decode_release(const uint8_t *data, size_t len, struct tc_trace *out,
			 struct tc_codec_error *err, void (*consumed)(void *arg, size_t off),
			 void *arg)
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
	if (version < TC_TRACE_VERSION_ZLIB || version > TC_TRACE_VERSION)
		return fail(err, 8, "unsupported version %u (this reader knows %d to %d)", version,
			    TC_TRACE_VERSION_ZLIB, TC_TRACE_VERSION);
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
	d->consumed = consumed;
	d->consumed_arg = arg;
	d->zlib_wrapped = version == TC_TRACE_VERSION_ZLIB;
	presize(d, data, len, header_len);
	ret = dec_blocks(d, data, len, header_len);
	libdeflate_free_decompressor(d->inflater);
	free(d->comms);
	free(d->raw);
	free(d);
	return ret;
}
