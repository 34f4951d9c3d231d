/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * plot.h - what the graphical reports draw, computed once: a latency series
 * reduced to one column per pixel, histogram bins on a log axis, the IRQ
 * placement matrix, and track lanes in which intervals nest properly.
 * Pure: no printing.
 */
#ifndef TAILCAUSE_CORE_PLOT_H
#define TAILCAUSE_CORE_PLOT_H

#include <stddef.h>
#include <stdint.h>

#include "analyze.h"
#include "histogram.h"
#include "trace.h"

/* The samples whose t_start falls in one time column. */
struct plot_column {
	uint64_t t_start; /* the column's first ns */
	size_t n;	  /* samples in it (0: a gap) */
	uint64_t min;	  /* RTT ns */
	uint64_t p50;
	uint64_t p99; /* nearest rank */
	uint64_t max;
};

/*
 * Cuts [s[0].t_start, s[n-1].t_start] into cols equal columns; s must be
 * sorted by t_start. Linear (selection, not sorting). Returns 0 and a new
 * array of cols columns in *out, -EINVAL when n or cols is 0, or -ENOMEM.
 */
int plot_columns(const struct tc_sample *s, size_t n, size_t cols, struct plot_column **out);

/* A new histogram of the RTTs (t_end - t_start) of s[0..n); NULL with errno set on failure. */
struct hist *plot_rtt_hist(const struct tc_sample *s, size_t n);

/* One bin of a histogram drawn on a log axis. */
struct plot_bin {
	uint64_t lo; /* values in [lo, hi] */
	uint64_t hi;
	uint64_t count;
};

/*
 * Regroups h's buckets into at most max_bins bins of equal width on a log
 * axis from h->min to h->max (each bucket goes whole into the bin holding
 * its low bound). Returns the number of bins written to out (0: h is empty).
 */
size_t plot_hist_bins(const struct hist *h, struct plot_bin *out, size_t max_bins);

/* IRQ placement from the trace's TC_COUNTER_IRQ counters. */
struct plot_irq_matrix {
	uint32_t *irqs;	   /* rows: IRQ numbers, most handled first */
	uint64_t *totals;  /* per row */
	size_t n_irqs;	   /* rows kept (at most max_rows) */
	size_t n_irqs_all; /* IRQs with a count, kept or not */
	uint32_t n_cpus;   /* columns: CPUs 0 .. n_cpus - 1 */
	uint64_t *counts;  /* [row * n_cpus + cpu] */
	uint64_t max;	   /* the largest cell */
};

/* Fills m (zeroed; free with plot_irq_matrix__free); 0 or -ENOMEM. No counter: n_irqs 0. */
int plot_irq_matrix(const struct tc_trace *t, size_t max_rows, struct plot_irq_matrix *m);
void plot_irq_matrix__free(struct plot_irq_matrix *m);

/*
 * The timeline of a spike, cut down to what matters: the path counters that
 * moved in it (a path cause's evidence, whatever their credit), then the k
 * contributions with the most credit (then overlap), as offsets from
 * sp->first_contrib in idx, in their original (time) order. Returns how many
 * (min(k, sp->n_contrib)); all of them, unpicked, when memory runs out.
 */
size_t plot_timeline_pick(const struct tc_trace *t, const struct tc_analysis *a,
			  const struct tc_spike *sp, size_t k, size_t *idx);

/*
 * Assigns each interval [start[i], end[i]) a lane, the lowest in which it is
 * disjoint from or nested in what the lane holds, so every lane can be drawn
 * as one properly nested track. Intervals must come sorted by start, longer
 * first on ties. slack (ns) keeps a margin for viewers that round: nested
 * needs the same start or an end at least slack before the parent's, disjoint
 * needs a gap of slack. Writes lane[i]; returns the number of lanes used,
 * or 0 with errno ENOMEM.
 */
uint32_t plot_lanes(const uint64_t *start, const uint64_t *end, size_t n, uint64_t slack,
		    uint32_t *lane);

#endif /* TAILCAUSE_CORE_PLOT_H */
