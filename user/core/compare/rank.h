/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rank.h - which node is the slow one: many runs (one per node) ordered by a
 * figure, worst first, each with its top causes and failing audit checks; the
 * causes the worst nodes share; the nodes far from the fleet's median.
 *
 * Outliers: a robust z-score, (value - median) / (1.4826 x MAD), beyond 3.5 either
 * way (Iglewicz and Hoaglin's rule), so one bad node cannot hide itself by moving
 * the mean. Shared causes: among the top causes of the worst quarter of the nodes
 * (at least two nodes), those that at least half of them have.
 * Pure: no I/O.
 */
#ifndef TAILCAUSE_CORE_RANK_H
#define TAILCAUSE_CORE_RANK_H

#include <stddef.h>

#include "summary.h"

#define RK_TOP_CAUSES 3
#define RK_OUTLIER_Z  3.5

struct rk_node {
	const struct summary *s;
	size_t index;		   /* its place in the input */
	double value_ns;	   /* the figure ranked by */
	double z;		   /* robust z-score; 0 when the fleet has no spread */
	int outlier;		   /* -1 far faster than the median, 1 far slower, 0 neither */
	size_t top[RK_TOP_CAUSES]; /* indices into s->causes: the most excess, unattributed too */
	size_t n_top;
	enum tc_audit_check failing[TC_AUDIT_CHECK_COUNT];
	size_t n_failing;
};

struct rk_shared {
	char name[TC_CAUSE_NAME_LEN];
	size_t worst_nodes; /* of the worst quarter, how many have it among their top causes */
	size_t all_nodes;   /* of all nodes */
};

struct rank {
	enum sm_figure by;
	struct rk_node *nodes; /* worst first */
	size_t n;
	double median_ns;
	double mad_ns;
	size_t n_worst;		  /* the worst quarter the shared causes are counted over */
	struct rk_shared *shared; /* most common first */
	size_t n_shared;
	size_t n_outliers;
	int same_probe; /* every run of the same probe, message size, division */
	char mismatch[320];
};

/* Ranks s[0..n) by figure by; 0 and a new rank in *out, -EINVAL when n is 0, -ENOMEM. */
int rank__run(const struct summary *s, size_t n, enum sm_figure by, struct rank **out);
void rank__free(struct rank *r);

#endif /* TAILCAUSE_CORE_RANK_H */
