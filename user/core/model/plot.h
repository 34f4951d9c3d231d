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

#include "core/attrib/analyze.h"
#include "core/stats/histogram.h"
#include "core/trace/trace.h"

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
 * A latency series cut into cols equal columns from the first to the last round
 * trip's start, filled as the samples come in start order: a whole trace's at once,
 * a streamed report's a segment at a time. A column keeps up to exact_max latencies
 * and reduces them exactly (selection, not sorting); past that it counts them in a
 * histogram (histogram.h), and its p50 and p99 are then at the histogram's
 * resolution (1/128 of the value): binned counts those columns. Memory: exact_max
 * values and one histogram.
 */
struct plot_series {
	uint64_t t0, span; /* the columns cover starts in [t0, t0 + span) */
	size_t cols;
	struct plot_column *c; /* cols columns */
	uint64_t n;	       /* samples added */
	size_t binned;	       /* columns whose p50 and p99 are binned */
	/* private to plot_series.c */
	size_t cur, exact_max, n_v, cap_v;
	uint64_t cur_end, *v;
	struct hist *h;
	int binned_now;
};

/* Columns from the first to the last round trip's start; 0, -EINVAL or -ENOMEM. */
int plot_series_init(struct plot_series *ps, uint64_t first_start, uint64_t last_start, size_t cols,
		     size_t exact_max);
/* Adds s[0..n), in start order after the samples added before (a sample starting
 * earlier goes into the current column); 0 or -ENOMEM. */
int plot_series_add(struct plot_series *ps, const struct tc_sample *s, size_t n);
/* Reduces the last column and frees the buffers: ps->c is complete. */
void plot_series_finish(struct plot_series *ps);
void plot_series__free(struct plot_series *ps);
/* The series of s[0..n) (sorted by t_start), every column exact: 0, -EINVAL (n or
 * cols 0) or -ENOMEM; free with plot_series__free(). */
int plot_series_of(const struct tc_sample *s, size_t n, size_t cols, struct plot_series *ps);

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
