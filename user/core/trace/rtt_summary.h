/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rtt_summary.h - a trace's round-trip summary (trace_codec.h's RTT_SUMMARY block):
 * made by the writer from its round trips and their exact statistics
 * (stats_exact.h), taken by a streamed report of the whole run as the run's
 * statistics before it has read a round trip, and checked against the round trips
 * as its analysis reads them, every one once. A summary that does not check out is
 * never used for a report: the statistics are counted from the round trips and the
 * run analyzed again (tracefile/trace_stream.h).
 *
 * The check is exact: a percentile p of value x holds when fewer than rank(p) round
 * trips are below x and at least rank(p) are at x or below (stats_rank(), stats.h);
 * the sums, count, extremes, first and last starts and CPUs must be equal, and so
 * must the RTT_HIST block's histogram and the round trips counted into one.
 */
#ifndef TAILCAUSE_CORE_RTT_SUMMARY_H
#define TAILCAUSE_CORE_RTT_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "core/stats/stats.h"
#include "trace.h"
#include "trace_codec.h"

/* What round trips add up to, as they come, in any order. */
struct rtt_tally {
	const struct tc_rtt_summary *want;   /* the summary checked; NULL: one being made */
	uint64_t rank[TC_RTT_SUMMARY_PCTS];  /* want's percentiles' ranks */
	size_t bucket[TC_RTT_SUMMARY_PCTS];  /* and the histogram buckets of their values */
	uint8_t *near;			     /* per bucket: 1 where it holds one of them */
	uint64_t below[TC_RTT_SUMMARY_PCTS]; /* round trips of its bucket below each value */
	uint64_t upto[TC_RTT_SUMMARY_PCTS];  /* at it or below */
	uint64_t n, min, max, first, last;
	struct moments m;
	struct hist *h; /* with want: the round trips counted as RTT_HIST counts them */
	uint32_t cpus[TC_RTT_SUMMARY_CPUS];
	size_t n_cpus;
	int cpus_over; /* more CPUs than a summary lists */
};

/* A tally checking want, or (NULL) making a summary; 0 or -ENOMEM. */
int rtt_tally__init(struct rtt_tally *t, const struct tc_rtt_summary *want);
void rtt_tally_add(struct rtt_tally *t, const struct tc_sample *s, size_t n);
void rtt_tally__free(struct rtt_tally *t);
/* 1 when the round trips tallied are those t->want describes, and hist (their RTT_HIST
 * block's) counts them; else 0. Once all are tallied: it fills in t->h's totals. */
int rtt_tally_agrees(struct rtt_tally *t, const struct tc_rtt_hist *hist);

/* The summary of the round trips tallied (t made without want), whose exact statistics
 * are st: 0, or 1 when there is none to write (a percentile binned, the sums wrapped,
 * more CPUs than it lists, no round trip). */
int rtt_summary_make(struct tc_rtt_summary *out, const struct rtt_tally *t,
		     const struct lat_summary *st);
/* The statistics s holds, as stats_exact_finish() gives them, and *pct the value at p:
 * 0, or 1 when p is not one of its percentiles. */
int rtt_summary_stats(const struct tc_rtt_summary *s, double p, struct lat_summary *st,
		      uint64_t *pct);

#endif /* TAILCAUSE_CORE_RTT_SUMMARY_H */
