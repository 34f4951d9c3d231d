/* SPDX-License-Identifier: BSD-2-Clause */
/* verdict.h - docs/domain.md's judgement of an ib_write_lat t_avg (one-way microseconds). */
#ifndef TAILCAUSE_CORE_VERDICT_H
#define TAILCAUSE_CORE_VERDICT_H

struct tc_verdict {
	const char *cls;  /* "excellent", "good", "fair", "problem", "failure" */
	const char *text; /* "excellent (< 2 us: one switch hop)" ... */
};

/* The verdict for a one-way t_avg in microseconds; never NULL. */
const struct tc_verdict *verdict_of(double t_avg_us);

#endif /* TAILCAUSE_CORE_VERDICT_H */
