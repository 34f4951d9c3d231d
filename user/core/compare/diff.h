/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * diff.h - did the fix work: two runs' figures compared with their uncertainty.
 *
 * Percentiles: a bootstrap of each run (resample, take the percentile, subtract),
 * the 95 % interval of after - before from it, and the change significant when that
 * interval leaves out 0. A run from a trace is resampled in blocks of consecutive
 * samples (the samples of a run are not independent: a noisy second makes many slow
 * round trips); a run from a JSON report only has its histogram, resampled sample by
 * sample. Either way at the histogram's resolution (two significant digits).
 *
 * Causes: spikes and excess per million samples before and after; a change in the
 * spike count is significant when an exact test of the two counts (conditioned on
 * their sum, as Poisson counts) gives p < 0.01. The verdict: gone (none after,
 * significantly fewer), new (none before, significantly more), better, worse, or
 * unchanged (not significant: also when there are too few to tell).
 *
 * Audit: the checks whose status or finding differ, each with the causes it bears on
 * that moved.
 * Pure: no I/O.
 */
#ifndef TAILCAUSE_CORE_DIFF_H
#define TAILCAUSE_CORE_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "summary.h"

#define DF_ALPHA_CAUSE 0.01

enum df_verdict { DF_UNCHANGED = 0, DF_BETTER, DF_WORSE, DF_GONE, DF_NEW };

/* "unchanged", "better", "worse", "gone", "new". */
const char *diff_verdict_name(enum df_verdict v);

struct df_figure {
	enum sm_figure f;
	double before_ns, after_ns;
	int has_ci;		 /* 0 for max: a bootstrap says nothing of the largest value */
	double lo_ns, hi_ns;	 /* 95 % interval of after - before */
	int significant;	 /* the interval leaves out 0 */
	enum df_verdict verdict; /* better, worse or unchanged */
};

struct df_cause {
	char name[TC_CAUSE_NAME_LEN];
	enum tc_cause_class cls;
	uint64_t spikes[2];	/* before, after */
	double spikes_pm[2];	/* per million samples */
	double excess_pm_ns[2]; /* excess per million samples */
	double p_value;
	enum df_verdict verdict;
};

#define DF_CHECK_CAUSES 8

struct df_check {
	enum tc_audit_check id;
	enum tc_audit_status status[2];
	const char *summary[2];
	size_t causes[DF_CHECK_CAUSES]; /* indices into diff.causes: moved, and it bears on them */
	size_t n_causes;
};

struct diff_opts {
	size_t resamples; /* 0: 1000 */
	uint64_t seed;	  /* the bootstrap's; the same seed gives the same answer */
};

struct diff {
	const struct summary *run[2]; /* before, after */
	int same_probe;		      /* both runs of the same probe, message size, division */
	char mismatch[256];	      /* what differs when !same_probe */
	size_t resamples;
	char method[2][96]; /* how each run was resampled, in words */
	struct df_figure figs[SM_FIGURES];
	struct df_cause *causes; /* both runs' causes, most excess (before + after) first */
	size_t n_causes;
	struct df_check checks[TC_AUDIT_CHECK_COUNT];
	size_t n_checks;
};

/* Compares before with after; 0 and a new diff in *out, or -ENOMEM. */
int diff__run(const struct summary *before, const struct summary *after, const struct diff_opts *o,
	      struct diff **out);
void diff__free(struct diff *d);

/*
 * The p-value of an exact two-sided test that counts k1 of n1 and k2 of n2 samples
 * come from one rate (k2 given k1 + k2 is binomial, n2 / (n1 + n2)).
 */
double diff_rate_pvalue(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2);

#endif /* TAILCAUSE_CORE_DIFF_H */
