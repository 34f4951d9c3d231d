/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * histogram.h - a log-linear (HDR-style) histogram of uint64_t values.
 *
 * Values below 2 * HIST_SUB are counted exactly; above, each power of two is
 * cut into HIST_SUB equal buckets, so a bucket is at most 1/128 of its value
 * wide: two significant decimal digits, whatever the magnitude. The layout is
 * fixed (HIST_BUCKETS buckets cover 0 .. UINT64_MAX), so two histograms merge
 * by adding their counts.
 */
#ifndef TAILCAUSE_CORE_HISTOGRAM_H
#define TAILCAUSE_CORE_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

#define HIST_SUB_BITS 7
#define HIST_SUB      (1u << HIST_SUB_BITS)
/* 2 * HIST_SUB exact buckets, then HIST_SUB per power of two up to 2^63. */
#define HIST_BUCKETS (2 * HIST_SUB + (63 - HIST_SUB_BITS) * HIST_SUB)

struct hist {
	uint64_t total; /* values counted */
	uint64_t min;	/* smallest and largest value counted (0 when empty) */
	uint64_t max;
	uint64_t counts[HIST_BUCKETS];
};

/* An empty histogram; NULL with errno set on failure. */
struct hist *hist__new(void);
void hist__free(struct hist *h);
/* Adds src's counts to dst (same layout by construction). */
void hist__merge(struct hist *dst, const struct hist *src);

/* The bucket v falls into, in [0, HIST_BUCKETS). Inline: counted once per round trip. */
static inline size_t hist_bucket(uint64_t v)
{
	unsigned int e;

	if (v < 2 * HIST_SUB)
		return (size_t)v;
	/* >= 1: v >> e is in [HIST_SUB, 2 * HIST_SUB) */
	e = 63u - (unsigned int)__builtin_clzll(v) - HIST_SUB_BITS;
	return 2 * HIST_SUB + (size_t)(e - 1) * HIST_SUB + (size_t)((v >> e) - HIST_SUB);
}
/* Counts value v n times. Inline: counted once per round trip. */
static inline void hist__add(struct hist *h, uint64_t v, uint64_t n)
{
	if (!n)
		return;
	if (!h->total || v < h->min)
		h->min = v;
	if (!h->total || v > h->max)
		h->max = v;
	h->counts[hist_bucket(v)] += n;
	h->total += n;
}

/* The smallest value of bucket b. */
uint64_t hist_bucket_low(size_t b);
/* The largest value of bucket b (inclusive). */
uint64_t hist_bucket_high(size_t b);

/*
 * The first non-empty bucket at or after b, or HIST_BUCKETS when there is none:
 * for (b = hist_next(h, 0); b < HIST_BUCKETS; b = hist_next(h, b + 1)).
 */
size_t hist_next(const struct hist *h, size_t b);

/*
 * The nearest-rank percentile p (in (0, 100]) at bucket resolution: the
 * largest value of the bucket holding the rank, clamped to [min, max]. 0 for
 * an empty histogram.
 */
uint64_t hist_percentile(const struct hist *h, double p);

/* How many values are below v, at bucket resolution (v's own bucket excluded). */
uint64_t hist_count_below(const struct hist *h, uint64_t v);

#endif /* TAILCAUSE_CORE_HISTOGRAM_H */
