/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * coll_report.h - the report's collectives section (record --iter mpi): how long each
 * operation took, which ranks the others waited for, and why.
 *
 * An instance is late when its straggler's step before it (the rank's own thread
 * from its previous call's return to this call's entry, one of the report's samples)
 * was a spike by the report's rule: longer than that thread's usual step, for what
 * the analyzer names. Its cause is that spike's. Being last alone is chance: some
 * rank always is; how often each rank was last is shown beside it.
 *
 * A slow instance that was not late is the collective's own time (the transport): what
 * ran on its ranks' CPUs meanwhile, from the last arrival to the last departure (an IRQ,
 * a softirq, a rank's preemption), the one that overlapped it most, names it; where
 * nothing did, it is `path`.
 */
#ifndef TAILCAUSE_CORE_MODEL_COLL_REPORT_H
#define TAILCAUSE_CORE_MODEL_COLL_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "core/attrib/analyze.h"
#include "core/iter/coll.h"

#define COLL_SLOWEST 10 /* instances listed */

/* One operation and size: its instances' durations. */
struct coll_op_row {
	uint16_t op;
	uint64_t bytes;
	size_t count;
	uint64_t p50_ns, p99_ns, p999_ns, max_ns;
};

/* One rank: how often it was last, and late. */
struct coll_rank_row {
	int32_t rank;
	uint32_t tid;
	size_t last;	    /* instances it arrived last at */
	size_t late;	    /* of those, late: its step before was a spike */
	uint64_t late_ns;   /* their lateness, summed */
	uint32_t top_cause; /* the commonest cause of its late instances (index into causes) */
	size_t top_count;   /* of its late instances, those of top_cause */
	int has_cause;
};

/* One of the slowest instances. */
struct coll_slow_row {
	const struct coll_instance *in;
	const struct coll_call *straggler; /* NULL: nobody to wait for */
	int late;			   /* the straggler's step was a spike */
	uint32_t cause;			   /* with late: its primary cause */
	char transport[TC_CAUSE_NAME_LEN]; /* not late: what its own time overlapped most */
};

struct coll_report {
	struct coll_model m;
	struct coll_op_row *ops;
	size_t n_ops;
	struct coll_rank_row *ranks; /* most lateness first */
	size_t n_ranks;
	struct coll_slow_row slowest[COLL_SLOWEST];
	size_t n_slowest;
	size_t late;  /* instances that were late */
	size_t spans; /* instances with a straggler at all */
};

/*
 * The collectives of t (its TC_EV_COLL events) joined to a's spikes, into *out; 0 with
 * *out NULL where t has none, or -ENOMEM. nic_pattern names the NIC's IRQs (NULL: the
 * default), as the cause table does.
 */
int coll_report_build(const struct tc_trace *t, const struct tc_analysis *a,
		      const char *nic_pattern, struct coll_report **out);
void coll_report_free(struct coll_report *r);

#endif /* TAILCAUSE_CORE_MODEL_COLL_REPORT_H */
