// SPDX-License-Identifier: BSD-2-Clause
/*
 * trace_decode.c - the validating .tct decoder's block walk: the header, each
 * block's lengths, CRC and payload (decompressed by trace_unpack.c), and the END
 * block; it trusts nothing in the file and says where and why a file is bad. The
 * records of each block are decoded by trace_decode_records.c; the payload format
 * is in codec_internal.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h> /* the blocks' CRC32, the decompressor freed */
#include <zstd.h>

#include "decode_internal.h"

/*
 * Whether a block header's lengths can be: raw_len within the limit, comp_len within what
 * raw_len can take, and raw_len within what comp_len may expand to (TC_BLOCK_MAX_RATIO:
 * what a block's payload makes the reader allocate follows from its size).
 */
static int lengths_ok(const struct dec *d, uint32_t raw_len, uint32_t comp_len)
{
	return raw_len <= TC_BLOCK_MAX_RAW && comp_len <= dec_comp_bound(d, raw_len) &&
	       raw_len <= (uint64_t)comp_len * TC_BLOCK_MAX_RATIO;
}

/*
 * Sizes the trace's sample and event arrays once, before decoding, so that
 * no block reallocates them: to the END block's totals when the file has
 * one, else (a truncated file) to the most records the blocks' raw lengths
 * can hold. Only blocks whose lengths check out and whose payload is in the
 * file count, so the room is bounded by the file's size (TC_BLOCK_MAX_RATIO),
 * and it is reserved, not touched: each block faults in only what it writes.
 * Reads block headers only, and inflates END; everything it skips or does not
 * trust is checked by the decoding pass, and a failure here only means the
 * arrays grow as they go.
 */
static void presize(struct dec *d, const uint8_t *data, size_t len, size_t off)
{
	struct tc_codec_error *err = d->err;
	uint64_t max_s = 0, max_e = 0, end_s, end_e;
	uint32_t type, raw_len, comp_len;
	struct rd r;

	d->err = NULL; /* what fails here fails again where the decoding pass says so */

	while (len - off >= TC_BLOCK_HEADER_LEN) {
		type = (uint32_t)get_le(data + off, 4);
		raw_len = (uint32_t)get_le(data + off + 4, 4);
		comp_len = (uint32_t)get_le(data + off + 8, 4);
		if (!lengths_ok(d, raw_len, comp_len) || comp_len > len - off - TC_BLOCK_HEADER_LEN)
			break;
		if (type == TC_BLOCK_SAMPLES)
			max_s += raw_len / SAMPLE_MIN_LEN;
		else if (type == TC_BLOCK_EVENTS)
			max_e += raw_len / EVENT_MIN_LEN;
		if (type == TC_BLOCK_END &&
		    !dec_unpack(d, data + off + TC_BLOCK_HEADER_LEN, comp_len, raw_len)) {
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
	d->err = err;
	if (max_s > SIZE_MAX / sizeof(struct tc_sample) ||
	    max_e > SIZE_MAX / sizeof(struct tc_event))
		return;
	trace__presize(d->out, (size_t)max_s, (size_t)max_e);
}

/* The INDEX block's entries, from the raw payload in d->raw. */
static int dec_index(struct dec *d, struct tc_block_ref **refs, size_t *n)
{
	struct rd r = {d->raw, d->raw + d->out_len};
	uint64_t count, off = 0, start = 0, v[5];
	struct tc_block_ref *x;

	/* an entry lists a block of the file: no more of them than block headers fit in it */
	if (get_u64(&r, &count) || count > INDEX_MAX || count > left(&r) / 5 ||
	    count > d->len / TC_BLOCK_HEADER_LEN)
		return codec_bfail(d, "index: malformed count");
	x = malloc((count ? count : 1) * sizeof(*x));
	if (!x)
		return -ENOMEM;
	for (size_t i = 0; i < count; i++) {
		for (int k = 0; k < 5; k++)
			if (get_u64(&r, &v[k])) {
				free(x);
				return codec_bfail(d, "index: entry %zu malformed", i);
			}
		off += v[1];
		start += (uint64_t)varint_unzigzag(v[3]);
		x[i] = (struct tc_block_ref){(uint32_t)v[0], off, v[2], start, start + v[4]};
	}
	if (r.p != r.end) {
		free(x);
		return codec_bfail(d, "index: %zu bytes after the entries", left(&r));
	}
	*refs = x;
	*n = (size_t)count;
	return 0;
}

/* Whether d decodes a block of type: the tables it was aimed at and the records; a newer
 * writer's block, or a table not asked for, is checked and skipped. */
static int wanted(const struct dec *d, uint32_t type)
{
	switch (type) {
	case TC_BLOCK_INDEX:
		return d->index != NULL;
	case TC_BLOCK_RTT_HIST:
		return d->rtt_hist != NULL;
	case TC_BLOCK_RTT_SUMMARY:
		return d->rtt_summary != NULL;
	default:
		return type >= TC_BLOCK_META && type <= TC_BLOCK_COUNTERS;
	}
}

static int dec_block(struct dec *d, uint32_t type, const uint8_t *payload, uint32_t comp_len,
		     uint32_t raw_len)
{
	const char *what = "records";
	struct rd r;
	int err;

	if (!wanted(d, type))
		return 0;
	err = dec_unpack(d, payload, comp_len, raw_len);
	if (err)
		return err;
	r = (struct rd){d->raw, d->raw + raw_len};
	switch (type) {
	case TC_BLOCK_INDEX:
		return dec_index(d, d->index, d->n_index); /* it checks its own end */
	case TC_BLOCK_RTT_HIST:
		what = "histogram";
		err = dec_rtt_hist(d, &r, d->rtt_hist);
		if (err == 1) {
			d->rtt_hist_other = 1; /* its bytes are not this reader's to check */
			return 0;
		}
		break;
	case TC_BLOCK_RTT_SUMMARY:
		what = "round-trip summary";
		err = dec_rtt_summary(d, &r, d->rtt_summary);
		break;
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
		return codec_bfail(d, "%zu bytes after the %s", left(&r), what);
	return err;
}

/* The payload's CRC is right. A fuzz build (Makefile FUZZ_FLAGS) takes any, so that
 * mutated payloads reach the decoders behind it. */
static int crc_ok(const uint8_t *payload, uint32_t len, uint32_t crc)
{
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	(void)payload;
	(void)len;
	(void)crc;
	return 1;
#else
	return libdeflate_crc32(0, payload, len) == crc;
#endif
}

/*
 * Checks the block header at data[off] and decodes its block; *next is the offset
 * after it. 1: there is no whole block there (the file is cut), 0, or an error.
 */
static int one_block(struct dec *d, const uint8_t *data, size_t len, size_t off, uint32_t *type,
		     size_t *next)
{
	uint32_t raw_len, comp_len, crc;
	const uint8_t *h;

	d->block_off = off;
	d->len = len;
	d->span = (struct codec_block_span){0, UINT64_MAX, 1};
	if (off > len || len - off < TC_BLOCK_HEADER_LEN)
		return 1; /* no END: cut inside or before a block header */
	h = data + off;
	*type = (uint32_t)get_le(h, 4);
	raw_len = (uint32_t)get_le(h + 4, 4);
	comp_len = (uint32_t)get_le(h + 8, 4);
	crc = (uint32_t)get_le(h + 12, 4);
	if (raw_len > TC_BLOCK_MAX_RAW)
		return codec_bfail(d, "raw_len %" PRIu32 " above the %u limit", raw_len,
				   TC_BLOCK_MAX_RAW);
	if (!lengths_ok(d, raw_len, comp_len))
		return codec_bfail(d,
				   "comp_len %" PRIu32 " impossible for raw_len %" PRIu32
				   " (at most %u:1 is read)",
				   comp_len, raw_len, TC_BLOCK_MAX_RATIO);
	if (comp_len > len - off - TC_BLOCK_HEADER_LEN)
		return 1; /* cut inside the payload */
	if (!crc_ok(h + TC_BLOCK_HEADER_LEN, comp_len, crc))
		return codec_bfail(d, "crc32 mismatch");
	*next = off + TC_BLOCK_HEADER_LEN + comp_len;
	return dec_block(d, *type, h + TC_BLOCK_HEADER_LEN, comp_len, raw_len);
}

/* Walks the blocks after the header; returns 0 at END or at a cut, else an error. */
static int dec_blocks(struct dec *d, const uint8_t *data, size_t len, size_t off)
{
	uint32_t type = 0;
	size_t next = off;
	int err;

	for (d->block_no = 0;; d->block_no++) {
		err = one_block(d, data, len, off, &type, &next);
		if (err == 1)
			break;
		if (!err && d->walk && d->walk->block)
			err = d->walk->block(d->walk->arg, d->out, type, off, next);
		if (err)
			return err;
		off = next;
		if (d->consumed)
			d->consumed(d->consumed_arg, off);
		if (type == TC_BLOCK_END) {
			if (off != len)
				return codec_fail(d->err, off, "%zu bytes after the end block",
						  len - off);
			return 0;
		}
	}
	d->out->truncated = 1;
	return 0;
}

/* Checks the file header: 0 with *version and *header_len, or -EBADMSG. */
static int check_header(const uint8_t *data, size_t len, struct tc_codec_error *err,
			unsigned int *version, unsigned int *header_len)
{
	uint32_t flags;

	if (err) {
		err->offset = 0;
		err->msg[0] = '\0';
	}
	if (len < TC_TRACE_HEADER_LEN)
		return codec_fail(err, 0, "file of %zu bytes is shorter than the %d-byte header",
				  len, TC_TRACE_HEADER_LEN);
	if (memcmp(data, TC_TRACE_MAGIC, 8))
		return codec_fail(err, 0, "bad magic: not a tailcause trace");
	*version = (unsigned int)get_le(data + 8, 2);
	if (*version < TC_TRACE_VERSION_ZLIB || *version > TC_TRACE_VERSION)
		return codec_fail(err, 8, "unsupported version %u (this reader knows %d to %d)",
				  *version, TC_TRACE_VERSION_ZLIB, TC_TRACE_VERSION);
	*header_len = (unsigned int)get_le(data + 10, 2);
	if (*header_len < TC_TRACE_HEADER_LEN || *header_len > len)
		return codec_fail(err, 10, "bad header length %u", *header_len);
	flags = (uint32_t)get_le(data + 12, 4);
	if (flags)
		return codec_fail(err, 12, "unknown header flags 0x%" PRIx32, flags);
	return 0;
}

/* Frees what d holds between blocks: its decompressors and buffers. */
static void dec_release(struct dec *d)
{
	libdeflate_free_decompressor(d->inflater);
	ZSTD_freeDCtx(d->zstd);
	free(d->comms);
	free(d->raw);
}

static void dec_free(struct dec *d)
{
	dec_release(d);
	free(d);
}

/* The whole decode, or with walk set the caller's walk: no presizing. */
static int decode(const uint8_t *data, size_t len, struct tc_trace *out, struct tc_codec_error *err,
		  void (*consumed)(void *arg, size_t off), void *arg, const struct codec_walk *walk)
{
	unsigned int version, header_len;
	struct dec *d;
	int ret;

	if (!out || (!data && len))
		return -EINVAL;
	ret = codec_decode_header(data, len, out, err);
	ret = ret ?: check_header(data, len, err, &version, &header_len);
	if (ret)
		return ret;

	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->out = out;
	d->err = err;
	d->consumed = consumed;
	d->consumed_arg = arg;
	d->walk = walk;
	d->version = version;
	if (!walk)
		presize(d, data, len, header_len);
	ret = dec_blocks(d, data, len, header_len);
	dec_free(d);
	return ret;
}

int codec_decode(const uint8_t *data, size_t len, struct tc_trace *out, struct tc_codec_error *err)
{
	return decode(data, len, out, err, NULL, NULL, NULL);
}

int codec_decode_release(const uint8_t *data, size_t len, struct tc_trace *out,
			 struct tc_codec_error *err, void (*consumed)(void *arg, size_t off),
			 void *arg)
{
	return decode(data, len, out, err, consumed, arg, NULL);
}

int codec_walk(const uint8_t *data, size_t len, struct tc_trace *out, struct tc_codec_error *err,
	       const struct codec_walk *walk)
{
	return walk ? decode(data, len, out, err, NULL, NULL, walk) : -EINVAL;
}

/* Decodes the block at data[off] with d; a cut one is an error here. */
static int the_block(struct dec *d, const uint8_t *data, size_t len, size_t off)
{
	uint32_t type;
	size_t next;
	int ret = one_block(d, data, len, off, &type, &next);

	return ret == 1 ? codec_fail(d->err, off, "the block at offset %zu is cut short", off)
			: ret;
}

struct codec_blocks {
	struct dec d; /* between blocks: only its buffers and decompressors */
};

struct codec_blocks *codec_blocks__new(void)
{
	return calloc(1, sizeof(struct codec_blocks));
}

void codec_blocks__free(struct codec_blocks *b)
{
	if (!b)
		return;
	dec_release(&b->d);
	free(b);
}

/* Checks the file header and readies b's decoder for the block at off: 0 or -EBADMSG. */
static int blocks_start(struct codec_blocks *b, const uint8_t *data, size_t len, size_t off,
			struct tc_codec_error *err)
{
	unsigned int version, header_len;
	struct dec keep = b->d;
	int ret;

	if (!data)
		return -EINVAL;
	ret = check_header(data, len, err, &version, &header_len);
	if (ret)
		return ret;
	if (off < header_len)
		return codec_fail(err, off, "no block starts at offset %zu", off);
	memset(&b->d, 0, sizeof(b->d));
	b->d.inflater = keep.inflater;
	b->d.zstd = keep.zstd;
	b->d.raw = keep.raw;
	b->d.raw_cap = keep.raw_cap;
	b->d.comms = keep.comms;
	b->d.comm_cap = keep.comm_cap;
	b->d.err = err;
	b->d.version = version;
	return 0;
}

int codec_blocks_decode(struct codec_blocks *b, const uint8_t *data, size_t len, size_t off,
			struct tc_trace *out, struct tc_codec_error *err)
{
	int ret = out ? blocks_start(b, data, len, off, err) : -EINVAL;

	if (ret)
		return ret;
	b->d.out = out;
	return the_block(&b->d, data, len, off);
}

void codec_blocks_span(const struct codec_blocks *b, struct codec_block_span *span)
{
	*span = b->d.span;
}

int codec_decode_block(const uint8_t *data, size_t len, size_t off, struct tc_trace *out,
		       struct tc_codec_error *err)
{
	struct codec_blocks *b = codec_blocks__new();
	int ret = b ? codec_blocks_decode(b, data, len, off, out, err) : -ENOMEM;

	codec_blocks__free(b);
	return ret;
}

int codec_scan(const uint8_t *data, size_t len,
	       int (*block)(void *arg, uint32_t type, size_t off, size_t end), void *arg,
	       struct tc_codec_error *err)
{
	unsigned int version, header_len;
	size_t off;
	int ret;

	if (!data || !block)
		return -EINVAL;
	ret = check_header(data, len, err, &version, &header_len);
	for (off = header_len; !ret && len - off >= TC_BLOCK_HEADER_LEN;) {
		uint32_t type = (uint32_t)get_le(data + off, 4);
		uint32_t comp_len = (uint32_t)get_le(data + off + 8, 4);

		if (comp_len > len - off - TC_BLOCK_HEADER_LEN)
			break; /* cut: a decode says the rest */
		ret = block(arg, type, off, off + TC_BLOCK_HEADER_LEN + comp_len);
		if (type == TC_BLOCK_END)
			break;
		off += TC_BLOCK_HEADER_LEN + comp_len;
	}
	return ret;
}

/* A table read on its own (the INDEX, RTT_HIST and RTT_SUMMARY blocks): the type it must
 * be, its name in an error, and where the decoder puts it. */
struct table_at {
	uint32_t type;
	const char *what;
	struct tc_block_ref **index;
	size_t *n_index;
	struct tc_rtt_hist *rtt_hist;
	struct tc_rtt_summary *rtt_summary;
};

/* The table block at data[off]: 0, 1 for a RTT_HIST block of another layout, -EBADMSG with
 * err filled, -ENOMEM. */
static int decode_table(const uint8_t *data, size_t len, size_t off, const struct table_at *x,
			struct tc_codec_error *err)
{
	struct codec_blocks *b;
	int ret;

	/* only that block: the decoder has no trace to put another's records in */
	if (off > len || len - off < TC_BLOCK_HEADER_LEN || get_le(data + off, 4) != x->type)
		return codec_fail(err, off, "no %s at offset %zu", x->what, off);
	b = codec_blocks__new();
	ret = b ? blocks_start(b, data, len, off, err) : -ENOMEM;
	if (!ret) {
		b->d.index = x->index;
		b->d.n_index = x->n_index;
		b->d.rtt_hist = x->rtt_hist;
		b->d.rtt_summary = x->rtt_summary;
		ret = the_block(&b->d, data, len, off);
	}
	if (!ret && b->d.rtt_hist_other)
		ret = 1;
	codec_blocks__free(b);
	return ret;
}

int codec_decode_index(const uint8_t *data, size_t len, size_t off, struct tc_block_ref **refs,
		       size_t *n, struct tc_codec_error *err)
{
	const struct table_at x = {TC_BLOCK_INDEX, "index block", .index = refs, .n_index = n};
	int ret;

	if (!data || !refs || !n)
		return -EINVAL;
	*refs = NULL;
	ret = decode_table(data, len, off, &x, err);
	if (!ret && !*refs)
		ret = codec_fail(err, off, "no index block at offset %zu", off);
	return ret;
}

int codec_decode_rtt_hist(const uint8_t *data, size_t len, size_t off, struct tc_rtt_hist *r,
			  struct tc_codec_error *err)
{
	const struct table_at x = {TC_BLOCK_RTT_HIST, "round-trip histogram", .rtt_hist = r};

	if (!data || !r || !r->h)
		return -EINVAL;
	return decode_table(data, len, off, &x, err);
}

int codec_decode_rtt_summary(const uint8_t *data, size_t len, size_t off, struct tc_rtt_summary *s,
			     struct tc_codec_error *err)
{
	const struct table_at x = {TC_BLOCK_RTT_SUMMARY, "round-trip summary", .rtt_summary = s};

	if (!data || !s)
		return -EINVAL;
	return decode_table(data, len, off, &x, err);
}

int codec_decode_header(const uint8_t *data, size_t len, struct tc_trace *out,
			struct tc_codec_error *err)
{
	unsigned int version, header_len;
	int ret;

	if (!data || !out)
		return -EINVAL;
	ret = check_header(data, len, err, &version, &header_len);
	if (ret)
		return ret;
	out->mono_ns = get_le(data + 16, 8);
	out->realtime_ns = get_le(data + 24, 8);
	return 0;
}
