/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * analyze.h - tail-spike attribution. Pure: reads a struct tc_trace, writes a struct
 * tc_analysis, prints nothing. Each sample above the spike rule (spike_rule.h) is a
 * spike; its excess (RTT - median RTT) is credited to the causes (causes.h) of the traced
 * intervals that overlap its window, with their evidence; the primary cause is the
 * largest share where at least half the excess is explained, else the spike is
 * `unattributed` and says why. How the intervals are weighed, nested, shared and credited
 * after the sweep (steal, timer stalls, hw-noise, the path) is docs/design.md's
 * "Attribution model", written there once.
 */
#ifndef TAILCAUSE_CORE_ANALYZE_H
#define TAILCAUSE_CORE_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "causes.h"
#include "core/util/cpuset.h"
#include "core/stats/stats.h"
#include "core/trace/trace.h"

enum tc_spike_mode {
	TC_SPIKE_DEFAULT = 0, /* above p99 and above 2x median */
	TC_SPIKE_PERCENTILE,  /* above the value-th percentile */
	TC_SPIKE_ABSOLUTE,    /* one-way latency above value nanoseconds */
	TC_SPIKE_MEDIAN_X,    /* above value x median */
};

struct tc_spike_rule {
	enum tc_spike_mode mode;
	double value;
};

/*
 * Parses a --spike argument: "p99.9" (percentile), "20us" / "1.5ms" / "800ns"
 * (one-way latency), "3x" (multiple of the median), "default". 0 or -EINVAL.
 */
int spike_rule_parse(const char *s, struct tc_spike_rule *out);

/* Describes the rule in words ("above p99 and above 2x median") into buf. */
void spike_rule_describe(const struct tc_spike_rule *r, char *buf, size_t len);

/* What earlier stretches of a streamed run already gave of a steal interval
 * (TC_EV_STEAL, known by its start and CPU): its amount less that is what is left. */
struct tc_steal_spent {
	uint64_t start_ns;
	uint32_t cpu;
	uint64_t end_ns;
	uint64_t ns;
};

struct tc_analysis_opts {
	struct tc_spike_rule spike;
	const char *nic_irq_pattern; /* NULL: TC_NIC_IRQ_PATTERN_DEFAULT */
	/*
	 * The whole run's statistics and the value at the rule's percentile
	 * (spike_rule_percentile(); core/stats/stats_exact.h), where t holds one stretch of
	 * the run (core/stream/analyze_stream.h); NULL: computed from t's samples.
	 */
	const struct lat_summary *stats;
	uint64_t stats_pct;
	/*
	 * The causes the run's earlier stretches named, numbered first in the same order
	 * (their counts not copied): a tie between two causes of a spike keeps the lower
	 * number, so each stretch decides as the whole run would. NULL: none.
	 */
	const struct tc_cause *seed_causes;
	size_t n_seed_causes;
	/* sorted by start_ns, then cpu; NULL: none spent */
	const struct tc_steal_spent *steal_spent;
	size_t n_steal_spent;
};

#define TC_CAUSE_NAME_LEN 96
#define TC_NO_CAUSE	  UINT32_MAX

/* A cause as measured over the whole run. */
struct tc_cause {
	char name[TC_CAUSE_NAME_LEN];
	enum tc_cause_class cls;
	uint64_t spikes;    /* spikes where it is the primary cause */
	uint64_t excess_ns; /* RTT excess attributed to it, over all spikes */
	uint64_t hidden_ns; /* of which the calibrated hidden cost of its intervals */
	/* the CPUs it was on: of each spike where it is primary, the CPU of its interval
	 * credited most there (none for a cause without intervals) */
	struct tc_cpuset cpus;
};

/* How an interrupt took the cause of what it led to (tc_contrib.joined). */
enum tc_join {
	TC_JOIN_NONE = 0,   /* it keeps its own cause */
	TC_JOIN_WAKEUP = 1, /* a wake-up interrupt credited to the preemption it led to
			     * (spike_window_join_wakeups()) */
	TC_JOIN_SIGNAL = 2, /* a reschedule IPI that carried a signal to its CPU's running
			     * thread, credited to that signal (spike_window_join_signals()) */
};

/* One interval's part in one spike. */
struct tc_contrib {
	size_t event;	/* index into tc_trace.events */
	uint32_t cause; /* index into tc_analysis.causes */
	uint8_t nested; /* 1: inside a cause-bearing parent, counted there */
	uint8_t joined; /* enum tc_join */
	uint8_t chain;	/* 0: the timing thread's or its CPU's; n: of the task that woke it
			 * (1), that task's waker (2)... (wait_chain.h) */
	uint8_t pad;
	uint64_t overlap_ns;	/* overlap of its weighed span with the window (0: instant) */
	uint64_t attributed_ns; /* part of the excess credited to it */
	uint64_t hidden_ns;	/* of which its calibrated hidden cost (widening) */
};

/* Why a spike is `unattributed` (tc_spike.unexplained). */
enum tc_unexplained {
	TC_EXPLAINED = 0,	 /* it is not: it has a primary cause */
	TC_UNEXPLAINED_LITTLE,	 /* OS events overlap it but explain under half */
	TC_UNEXPLAINED_UNTRACED, /* no OS event, and a tracer that could see one was
				  * missing (tc_analysis.coverage says which) */
	TC_UNEXPLAINED_LOST,	 /* no OS event, and records were lost in its window */
	TC_UNEXPLAINED_CLOCK,	 /* two hosts: smaller than the clock uncertainty, so
				  * the peer's intervals could not be placed in it */
};

struct tc_spike {
	size_t sample;	   /* index into tc_trace.samples */
	size_t run_sample; /* its number in the run: sample, unless the report was streamed */
	uint64_t rtt_ns;
	uint64_t excess_ns;   /* rtt_ns - median RTT */
	uint64_t hw_noise_ns; /* the part credited to hw-noise (no event of its own) */
	uint64_t stall_ns;    /* of hw_noise_ns, what timer interrupts were held up beyond
			       * what a whole tick takes here (analyze_after.c) */
	uint64_t variance_ns; /* no event, less than one exit: cpu-variance (analyze_after.c) */
	uint64_t path_ns;     /* two hosts: the part neither host's intervals explain (path) */
	int cross_host;	      /* two hosts: the peer's intervals were weighed in it */
	uint64_t hidden_ns;   /* of the attributed excess, the calibrated hidden cost */
	uint32_t primary;     /* index into causes; 0 is `unattributed` */
	uint32_t candidate;   /* unattributed: best candidate cause, or TC_NO_CAUSE */
	double explained;     /* attributed / excess, in [0, 1] */
	size_t first_contrib;
	size_t n_contrib;
	enum tc_unexplained unexplained;
};

struct tc_analysis {
	struct lat_summary stats; /* RTT nanoseconds */
	struct tc_spike_rule rule;
	uint64_t threshold_ns;	  /* RTT; samples strictly above it are spikes */
	uint64_t total_excess_ns; /* sum of excess over all spikes */

	struct tc_spike *spikes; /* in sample order */
	size_t n_spikes;
	/* the spikes of the run: n_spikes, or more where a streamed report kept only the
	 * largest (core/stream/analyze_stream.h) */
	uint64_t n_spikes_run;

	struct tc_cause *causes; /* [0] is always `unattributed` */
	size_t n_causes;

	struct tc_contrib *contribs;
	size_t n_contribs;

	/* Whether every tracer that sees OS events on a probe CPU was attached (hw-noise needs
	 * it), and if not, the ones missing ("signal, workqueue"). */
	int coverage_complete;
	char coverage_missing[128];
	int calibrated; /* the trace held a calibration and intervals were widened by it */
};

/* Orders struct tc_steal_spent by start_ns, then cpu (for qsort and bsearch). */
int analyze_cmp_spent(const void *x, const void *y);

/*
 * Analyzes t (whose events and samples must be sorted: trace__sort()).
 * Returns 0 and a new analysis in *out; -EINVAL when t has no samples, is not
 * sorted, or the rule is invalid; -ENOMEM.
 */
int analysis__run(const struct tc_trace *t, const struct tc_analysis_opts *o,
		  struct tc_analysis **out);
void analysis__free(struct tc_analysis *a);

/*
 * Fills idx with the indices (into a->spikes) of the n largest spikes,
 * largest first; returns how many were written (<= n).
 */
size_t analysis_top_spikes(const struct tc_analysis *a, size_t *idx, size_t n);

/* Fills idx with cause indices ordered by attributed excess, largest first (a
 * tie by name); returns a->n_causes. idx must hold a->n_causes entries. */
size_t analysis_causes_by_excess(const struct tc_analysis *a, size_t *idx);

#endif /* TAILCAUSE_CORE_ANALYZE_H */
