/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * decode_internal.h - private to the .tct decoder: its state, shared by the
 * block walk (trace_decode.c) and the record decoders (trace_decode_records.c).
 */
#ifndef TAILCAUSE_CORE_DECODE_INTERNAL_H
#define TAILCAUSE_CORE_DECODE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "codec_internal.h"

/*
 * Decoder state. Samples and events are written in place into the trace's
 * arrays, sized once before the first block (presize()) unless the caller walks
 * the blocks itself (codec_walk()), taking the records out as they come.
 */
struct dec {
	struct tc_trace *out;
	struct tc_codec_error *err;
	void (*consumed)(void *arg, size_t off); /* see codec_decode_release() */
	void *consumed_arg;
	const struct codec_walk *walk; /* see codec_walk(); NULL: a whole decode */
	struct tc_block_ref **index;   /* codec_decode_index(): the INDEX block goes there */
	size_t *n_index;
	struct tc_rtt_hist *rtt_hist;	    /* codec_decode_rtt_hist(): the RTT_HIST block there */
	int rtt_hist_other;		    /* it was of another layout */
	struct tc_rtt_summary *rtt_summary; /* codec_decode_rtt_summary(): the block there */
	size_t block_no, block_off;
	size_t len;		      /* of the file image the blocks are read from */
	struct codec_block_span span; /* the current block's records */
	uint64_t n_samples, n_events, n_meta;
	unsigned int version;			  /* the file's: how its payloads are compressed */
	struct libdeflate_decompressor *inflater; /* versions 1 and 2 */
	struct ZSTD_DCtx_s *zstd;		  /* version 3 */
	size_t out_len;				  /* of the last unpack() */
	uint8_t *raw;
	size_t raw_cap;
	char (*comms)[TC_COMM_LEN]; /* the block's comm table, NUL-padded */
	size_t comm_cap;
};

/* A payload cursor. */
struct rd {
	const uint8_t *p, *end;
};

/*
 * A varint field from r: bounded by r->end, or (room) where the caller knows that
 * VARINT_MAX_LEN bytes are left (varint_get_room()). A record decoder checks once
 * for a record's worth of bytes and inlines its fields' reads with room a constant.
 */
static inline __attribute__((always_inline)) int get_varint(struct rd *r, uint64_t *v, int room)
{
	return room ? varint_get_room(&r->p, v) : varint_get(&r->p, r->end, v);
}

static inline int get_u64(struct rd *r, uint64_t *v)
{
	return get_varint(r, v, 0);
}

static inline __attribute__((always_inline)) int get_u32_room(struct rd *r, uint32_t *v, int room)
{
	uint64_t x;

	if (get_varint(r, &x, room) || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

static inline int get_u32(struct rd *r, uint32_t *v)
{
	return get_u32_room(r, v, 0);
}

static inline __attribute__((always_inline)) int get_u16_room(struct rd *r, uint16_t *v, int room)
{
	uint64_t x;

	if (get_varint(r, &x, room) || x > UINT16_MAX)
		return -1;
	*v = (uint16_t)x;
	return 0;
}

static inline int get_u16(struct rd *r, uint16_t *v)
{
	return get_u16_room(r, v, 0);
}

static inline size_t left(const struct rd *r)
{
	return (size_t)(r->end - r->p);
}

/* Records why the file is bad (at offset off) and returns -EBADMSG. */
int codec_fail(struct tc_codec_error *e, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* As codec_fail(), for the current block: "block 3 at offset 4096: <why>". */
int codec_bfail(struct dec *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One block's records, appended to d->out: 0 or an error (codec_bfail(), -ENOMEM). */
int dec_meta(struct dec *d, struct rd *r);
int dec_threads(struct dec *d, struct rd *r);
int dec_irq_names(struct dec *d, struct rd *r);
int dec_drops(struct dec *d, struct rd *r);
int dec_counters(struct dec *d, struct rd *r);
int dec_samples(struct dec *d, struct rd *r);
int dec_events(struct dec *d, struct rd *r);
int dec_end(struct dec *d, struct rd *r);
/* The RTT_HIST block into out: 0, 1 for another histogram layout (the rest unread), an error. */
int dec_rtt_hist(struct dec *d, struct rd *r, struct tc_rtt_hist *out);
int dec_rtt_summary(struct dec *d, struct rd *r, struct tc_rtt_summary *out);

/* trace_unpack.c: a block's payload decompressed into d->raw (d->out_len bytes); it must
 * come to exactly raw_len bytes: 0, -EBADMSG (said, codec_bfail()) or -ENOMEM. */
int dec_unpack(struct dec *d, const uint8_t *src, uint32_t comp_len, uint32_t raw_len);
/* The most bytes a block of raw_len bytes can take in a file of d's version. */
size_t dec_comp_bound(const struct dec *d, uint32_t raw_len);

#endif /* TAILCAUSE_CORE_DECODE_INTERNAL_H */
