/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * codec_internal.h - what the .tct encoder (trace_encode.c) and decoder
 * (trace_decode.c) share: the block payload format, its limits and the
 * little-endian helpers. Private to those two files; the public API is
 * trace_codec.h.
 *
 * Block payloads, before compression (v = LEB128 varint, z = zigzag varint of the
 * difference to the previous record's value in the same block, 0 for the first):
 *   META       key\0value\0 ... (at most META_MAX pairs in a file)
 *   THREADS    v count, count * {v tid, v role, v cpu}
 *   SAMPLES    v count, count * {z t_start, v t_end - t_start, v cpu, v tid}
 *   EVENTS     v n_comms, n_comms * {v len (<= 15), len bytes, no NUL}, each comm
 *              once, and each some event's; v count, count * {v kind, v flags,
 *              z start_ns, v dur_ns, v aux, v cpu, v tid, v arg, v other_pid,
 *              v comm index}
 *   IRQ_NAMES  v count, count * {v irq, v len (<= 63), len bytes, no NUL}
 *   DROPS      v count, count * {v cpu (< DROPS_MAX_CPU), v drops}, non-zero only
 *   END        v n_samples, v n_events: totals of the file, checked by the reader
 *   COUNTERS   v count, count * {v kind, v key, v cpu, v value} (at most
 *              COUNTERS_MAX in a file)
 *   INDEX      v count, count * {v type, v offset - the previous entry's (file
 *              order), v records, z min_start - the previous entry's, v max_end -
 *              min_start}: one entry per SAMPLES and EVENTS block before it
 *   RTT_HIST   v HIST_SUB_BITS of its layout, v total, v min, v max, v sum, v count,
 *              count * {v bucket - the previous entry's - 1 (the first: bucket), v n},
 *              the non-empty buckets in order; their n add up to total, which is
 *              every sample of the file (at most one such block, after them)
 * Every block starts its deltas afresh, so each decodes on its own. A payload
 * must be consumed exactly; trailing bytes are an error, and so are bytes after
 * the END block. Unknown block types are CRC-checked and skipped. Event kinds
 * are not checked: a kind above TC_EV_KIND_MAX is a later writer's, kept as is.
 *
 * A header_len above 32 is a later writer's header extension: its extra bytes
 * are skipped.
 *
 * A block header whose lengths are impossible (raw_len above TC_BLOCK_MAX_RAW,
 * comp_len above the codec's bound for raw_len, raw_len above TC_BLOCK_MAX_RATIO
 * times comp_len, which is below what either codec can expand to) is corrupt. A
 * plausible header whose payload runs past the end of the data is what a cut-off file
 * looks like: the trace is truncated there.
 *
 * What the decoder allocates follows from the bytes it has read, never from a length
 * or count alone: a block's raw buffer from a raw_len that the ratio and the bytes
 * present allow, a table from a count its payload can hold (at least the *_MIN_LEN of
 * each record; a comm is some event's, so a comm table holds at most one entry per
 * COMM_MIN_LEN bytes), an INDEX from one entry per block header the file can hold.
 */
#ifndef TAILCAUSE_CORE_CODEC_INTERNAL_H
#define TAILCAUSE_CORE_CODEC_INTERNAL_H

#include <stdint.h>

#include "core/stats/histogram.h"
#include "trace_codec.h"
#include "varint.h"

/* zstd level 1: on recorder-like blocks ~13 % smaller than deflate's level 1, written 3x faster */
#define ZSTD_LEVEL 1
/* Bounds on tables that the trace model searches linearly or only appends to. */
#define META_MAX	 8192
#define IRQ_NAMES_MAX	 (1u << 20)
#define COUNTERS_MAX	 (1u << 22)
#define INDEX_MAX	 (1u << 22) /* 2^38 records of blocks listed */
#define INDEX_MAX_LEN	 (5 * VARINT_MAX_LEN)
#define RTT_HIST_MAX_LEN (6 * VARINT_MAX_LEN + HIST_BUCKETS * 2 * VARINT_MAX_LEN)
#define RTT_SUMMARY_MAX_LEN                                                                        \
	((14 + TC_RTT_SUMMARY_PCTS) * VARINT_MAX_LEN + TC_RTT_SUMMARY_CPUS * VARINT_MAX_LEN)
#define DROPS_MAX_CPU (1u << 16)
#define COMM_MAX      (TC_COMM_LEN - 1)
#define IRQ_NAME_MAX  63
/* Smallest and largest encodings of one record (a u16 varint takes up to 3 bytes, a u32 5). */
#define SAMPLE_MIN_LEN	4
#define SAMPLE_MAX_LEN	(2 * VARINT_MAX_LEN + 2 * 5)
#define EVENT_MIN_LEN	10
#define EVENT_MAX_LEN	(3 + 3 + 3 * VARINT_MAX_LEN + 4 * 5 + 5)
#define COUNTER_MIN_LEN 4
/* What a comm table entry brings with it: its length byte, and an event that names it */
#define COMM_MIN_LEN	(1 + EVENT_MIN_LEN)
#define COUNTER_MAX_LEN (3 * 5 + VARINT_MAX_LEN)

_Static_assert(sizeof(((struct tc_irq_name *)0)->name) == IRQ_NAME_MAX + 1, "irq name size");

static inline void put_le(uint8_t *p, uint64_t v, unsigned int bytes)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t get_le(const uint8_t *p, unsigned int bytes)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

#endif /* TAILCAUSE_CORE_CODEC_INTERNAL_H */
