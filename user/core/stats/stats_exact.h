/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stats_exact.h - the exact statistics of more values than memory holds, in two
 * passes over them (a trace read block by block: core/stream/analyze_stream.h).
 *
 * Pass 1 counts every value in an HDR histogram (core/stats/histogram.h). That places
 * each wanted percentile's rank in one bucket, at most 1/128 of its value wide.
 * Pass 2 keeps only the values of those buckets (or, for a bucket holding very
 * many values, counts them value by value) and takes the moments (struct
 * moments). The result is what stats_summarize_spans() gives on the same values,
 * bit for bit. Only a bucket that is both wider than
 * STATS_EXACT_MAX_SPAN ns and holds more than STATS_EXACT_MAX_KEEP values gives
 * its percentile at bucket resolution instead; the summary is then `binned`.
 */
#ifndef TAILCAUSE_CORE_STATS_EXACT_H
#define TAILCAUSE_CORE_STATS_EXACT_H

#include <stddef.h>
#include <stdint.h>

#include "stats.h"

#define STATS_EXACT_MAX_KEEP (1u << 20) /* values of one bucket kept for the selection */
#define STATS_EXACT_MAX_SPAN (1u << 20) /* widest bucket counted value by value */
#define STATS_EXACT_TARGETS  6		/* p50, p99, p99.9, p99.99, p99.999, the caller's */

struct stats_target {
	double p;
	uint64_t rank;	 /* 1-based, among all values */
	size_t bucket;	 /* the histogram bucket holding it */
	uint64_t lo, hi; /* its values */
	uint64_t below;	 /* values in the buckets below */
	uint64_t *vals;	 /* pass 2: the bucket's values (n_vals of them), or */
	uint64_t *cnt;	 /* a count per value lo .. hi, or neither (binned) */
	size_t n_vals, cap_vals;
	uint64_t value;
};

struct stats_exact {
	struct hist *h;
	struct moments m; /* pass 2's */
	struct stats_target t[STATS_EXACT_TARGETS];
	uint8_t *keeper; /* per histogram bucket: 1 + the target keeping its values, or 0 */
	int binned;
};

/* 0 or -ENOMEM. */
int stats_exact__init(struct stats_exact *s);
/* Pass 1. */
void stats_exact_count(struct stats_exact *s, uint64_t v);
/* Instead of pass 1: its result, counted before (a trace's RTT_HIST block), h. */
void stats_exact_given(struct stats_exact *s, const struct hist *h);
/*
 * Between the passes: the percentiles to select (p50 ... p99.999 and p, the
 * caller's own, in (0, 100]). 0, -EINVAL when pass 1 saw no value, -ENOMEM.
 */
int stats_exact_begin(struct stats_exact *s, double p);
/* Pass 2: the same values again, in any order. */
void stats_exact_select(struct stats_exact *s, uint64_t v);
/* The summary, and *pct the caller's percentile p; 0 or -ENOMEM. */
int stats_exact_finish(struct stats_exact *s, struct lat_summary *out, uint64_t *pct);
void stats_exact__free(struct stats_exact *s);

#endif /* TAILCAUSE_CORE_STATS_EXACT_H */
