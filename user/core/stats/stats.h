/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stats.h - latency statistics as perftest reports them, minus its habits:
 * every sample is kept (perftest drops the two largest) and the standard
 * deviation is not truncated to an integer.
 *
 * Values are round-trip times in nanoseconds; reports print them halved
 * (one-way = RTT/2, like ib_write_lat). Halving commutes with every figure
 * here, so it is done once, at print time.
 */
#ifndef TAILCAUSE_CORE_STATS_H
#define TAILCAUSE_CORE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "stats_rank.h"

struct lat_summary {
	size_t n;
	uint64_t min;
	uint64_t max;
	uint64_t p50; /* t_typical */
	uint64_t p99;
	uint64_t p999;
	uint64_t p9999;
	uint64_t p99999;
	double mean;  /* t_avg */
	double stdev; /* population standard deviation */
	int binned;   /* the percentiles come from a histogram (stats_acc): within 1/128 */
};

/*
 * The moments of many values, exact in integers: their sum and the sum of their squares
 * (128 bits), in any order, in one pass. Past 2^64 ns of sum or 2^128 of squares (no
 * latency gets there) they go on in long double, by Welford's update. The standard
 * deviation is taken from them once, so every path that sums the same values prints the
 * same t_avg and t_stdev.
 */
struct moments {
	uint64_t n, sum;
	unsigned __int128 sumsq;
	int wrapped;
	long double mean, m2; /* once wrapped: the mean and the summed squared deviations */
};

/* moments_add() once the integers would wrap. */
void moments_add_wide(struct moments *m, uint64_t v);

static inline void moments_add(struct moments *m, uint64_t v)
{
	unsigned __int128 sumsq;
	uint64_t sum;

	if (m->wrapped || __builtin_add_overflow(m->sum, v, &sum) ||
	    __builtin_add_overflow(m->sumsq, (unsigned __int128)v * v, &sumsq)) {
		moments_add_wide(m, v);
		return;
	}
	m->n++;
	m->sum = sum;
	m->sumsq = sumsq;
}

/* The mean and the population standard deviation of what was added (n > 0). */
void moments_result(const struct moments *m, double *mean, double *stdev);

/*
 * Statistics of a run too long to keep (lat --duration): every value counted in an
 * HDR-style histogram (core/stats/histogram.h) and the moments, memory fixed.
 */
struct stats_acc {
	struct hist *h;
	struct moments m;
};

/* 0 or -ENOMEM. */
int stats_acc__init(struct stats_acc *a);
void stats_acc__add(struct stats_acc *a, uint64_t v);
/* The summary so far: percentiles at the histogram's resolution; 0, or -EINVAL if empty. */
int stats_acc_summary(const struct stats_acc *a, struct lat_summary *out);
void stats_acc__free(struct stats_acc *a);

/* Summarizes v[0..n); v is sorted in place. 0, or -EINVAL if n == 0. */
int stats_summarize(uint64_t *v, size_t n, struct lat_summary *out);

/*
 * Latencies read in place: value i is end - start (0 when end < start) of
 * the two uint64_t at start_off and end_off of record i, records of stride
 * bytes from base (the t_start and t_end of struct tc_sample, say).
 */
struct lat_spans {
	const void *base;
	size_t n;
	size_t stride;
	size_t start_off;
	size_t end_off;
};

/*
 * Summarizes the spans' values as stats_summarize() does, with no copy and no
 * sort: a few counting passes select the percentiles. *pct is the
 * nearest-rank p-th percentile, for a caller's own threshold. 0, -EINVAL if
 * there are no values, -ENOMEM.
 */
int stats_summarize_spans(const struct lat_spans *s, double p, uint64_t *pct,
			  struct lat_summary *out);

/*
 * Nearest-rank percentile of an ascending array: the smallest value with at
 * least p percent of the samples at or below it (p in (0, 100]). n > 0.
 */
uint64_t stats_percentile(const uint64_t *sorted, size_t n, double p);

#endif /* TAILCAUSE_CORE_STATS_H */
