/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * analyze_internal.h - private to user/core: the analyzer's state, shared by
 * the sweep (analyze.c), each spike's window of items (analyze_window.c), and
 * what it credits after the sweep (analyze_after.c: steal, hw-noise).
 */
#ifndef TAILCAUSE_CORE_ANALYZE_INTERNAL_H
#define TAILCAUSE_CORE_ANALYZE_INTERNAL_H

#include "active_set.h"
#include "calibrate.h"
#include "analyze.h"
#include "cause_table.h"
#include "spike_context.h"
#include "spike_window.h"
#include "wait_chain.h"

/* CPUs beyond this (a corrupt trace) are looked up the slow way. */
#define CPU_MAP_MAX (1u << 16)
#define CPU_PROBE   0x1 /* a probe thread is pinned there */
#define CPU_SAMPLE  0x2 /* some sample was timed there */

/* A steal interval's contrib in one spike, credited after the sweep. */
struct steal_link {
	size_t ev;	/* the TC_EV_STEAL event */
	size_t spike;	/* index into tc_analysis.spikes */
	size_t contrib; /* index into tc_analysis.contribs */
	uint64_t cap;	/* its overlap with the spike's window */
};

/* A window of lost records (TC_EV_LOST), by start. */
struct lost_span {
	uint64_t start, end;
	uint32_t cpu;
};

struct ctx {
	const struct tc_trace *t;
	const char *pattern;
	struct tc_analysis *a;

	uint32_t *probe_tids; /* sorted */
	size_t n_probe_tids;
	uint8_t *cpu_map; /* CPU_PROBE | CPU_SAMPLE per CPU */
	size_t n_cpu_map;
	int wide_sample_cpu; /* a sample's CPU is beyond the map */
	struct idle_latency lat;
	struct tc_calibration cal; /* hidden costs per kind, where the trace has them */
	uint64_t max_pre, max_post;

	struct active_set act;		    /* the intervals that may still overlap a window */
	struct wait_chain chain;	    /* who woke whom: the current spike's wait chain */
	struct spike_window win;	    /* the current spike's intervals */
	struct spike_context sc;	    /* and what the context rules consult */
	struct context_parents parents;	    /* where a callback's parent ends */
	size_t next;			    /* the first event the sweep has not passed */
	const struct tc_steal_spent *spent; /* tc_analysis_opts.steal_spent */
	size_t n_spent;
	int peer_off; /* two hosts: this spike is below the clock uncertainty, the peer stays out */

	struct cause_table causes;
	size_t cap_contribs;
	size_t cap_spikes;

	struct steal_link *links; /* steal contribs, in the order the sweep made them */
	size_t n_links, cap_links;
	struct lost_span *lost; /* sorted by start */
	size_t n_lost;
	uint64_t lost_max_ns; /* the longest lost window */
};

/* analyze_filters.c */

/*
 * The probe threads and their CPUs, the CPUs samples were timed on, and the
 * calibration (max_pre, max_post). One pass over the samples marks their CPUs and
 * checks their order: 0, -EINVAL when they are not sorted, or -ENOMEM.
 */
int analyze_setup_filters(struct ctx *c);
/* Is tid a probe thread's? (0, a CPU-wide event's, is not.) */
int analyze_probe_tid(const struct ctx *c, uint32_t tid);
/* Is a probe thread pinned to cpu? */
int analyze_probe_cpu(const struct ctx *c, uint32_t cpu);
/* An SMT sibling's event matters where its core's other thread, cpu, is a probe's or timed. */
int analyze_beside_probe(const struct ctx *c, uint32_t cpu);
/* Whether e can delay round trip s: not another thread's off-CPU interval (s's thread known),
 * unless of a probe thread (a followed thread of a command waits while the timed one runs: it
 * delays nothing). */
int analyze_thread_counts(const struct ctx *c, const struct tc_event *e, const struct tc_sample *s);
/* Could the event matter to some spike? Cheap test, at push time. */
int analyze_maybe_relevant(const struct ctx *c, const struct tc_event *e, int probe_rel);

/* analyze_window.c */

/*
 * Collects the relevant active spans overlapping [s's start, we) into c->win, in event
 * order, and what the context rules consult into c->sc; 0 or -ENOMEM.
 */
int analyze_gather(struct ctx *c, const struct tc_sample *s, uint64_t we);
/* Applies the context rules to the window [ws, we) (timer callbacks, what ran instead of
 * a preempted probe and its compaction/reclaim); 0 or -ENOMEM. */
int analyze_apply_context(struct ctx *c, uint64_t ws, uint64_t we);
/* Names the window's items (a context-free name cached in the active set); 0 or -ENOMEM. */
int analyze_name_items(struct ctx *c);
/* Fills each preemption's `woke` where an item of the window may be a woken task's way in. */
void analyze_preemptors_woke(struct ctx *c);

/* analyze_after.c */

/* Reads the lost windows and the tracers' coverage; 0 or -ENOMEM. */
int analysis_after_setup(struct ctx *c);
/* Notes a deferred (steal) contrib of the current spike; 0 or -ENOMEM. */
int analysis_after_note(struct ctx *c, size_t spike, size_t contrib, uint64_t cap);
/* Credits steal and hw-noise, re-decides the spikes they changed, and says why the rest are
 * unattributed; 0 or -ENOMEM. */
int analysis_after_run(struct ctx *c);
void analysis_after_free(struct ctx *c);
/* spike_credit.c */

/* The part of sp's excess no interval (nor hw-noise) explains yet. */
uint64_t spike_credit_unexplained_ns(const struct tc_analysis *a, const struct tc_spike *sp);
/* The credit of sp's intervals that explain nothing (the timing thread blocked while it
 * waited for the answer): held only until something that explains the time takes it. */
uint64_t spike_credit_waiting_ns(const struct tc_analysis *a, const struct tc_spike *sp);
/* Takes up to n ns of that credit (the books still add up); returns what was taken. */
uint64_t spike_credit_take_waiting(struct tc_analysis *a, struct tc_spike *sp, uint64_t n);

/* analyze_steal.c */

/* Hands every steal interval's stolen time to the spikes it overlaps; 0 or -ENOMEM. */
int analysis_credit_steal(struct ctx *c);

#endif /* TAILCAUSE_CORE_ANALYZE_INTERNAL_H */
