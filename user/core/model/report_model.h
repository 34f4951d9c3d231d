/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * report_model.h - what a report says, built once from a trace and what the
 * analysis (or the noise report) computed from it: the header facts, the
 * tracers' status, the lost windows, the statistics and their verdict, the
 * causes in order with their shares, the spikes largest first, the
 * recommendations, the IRQ placement, the host audit joined to the causes.
 * Every renderer (user/report/) formats this and nothing else: none reads the
 * trace's meta data, ranks causes or spikes, or derives a fact for itself.
 * Events and samples are reached through m->t, the trace model, for the
 * renderers that draw them one by one (timelines, Perfetto).
 *
 * Pure: prints nothing.
 */
#ifndef TAILCAUSE_CORE_REPORT_MODEL_H
#define TAILCAUSE_CORE_REPORT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "coll_report.h"
#include "core/attrib/analyze.h"
#include "audit.h"
#include "audit_join.h"
#include "core/stats/histogram.h"
#include "core/noise/noise.h"
#include "plot.h"
#include "core/attrib/calibrate.h"
#include "core/trace/trace.h"
#include "verdict.h"

/* The version of the JSON report's schema (docs/report-schema.md) that this tailcause writes. */
#define TC_REPORT_SCHEMA_VERSION 1

/* --peer: the other host's trace, joined (core/hosts/peer_join.h). */
struct rm_peer {
	int joined;
	const char *path, *host, *mode, *cpus;
	const char *paired_by; /* "run id", or "marked iterations (...)" */
	uint64_t pairs;	       /* round trips the clocks were aligned by */
	uint64_t events;       /* its intervals, merged */
	uint64_t lost;	       /* its records lost to ring-buffer overrun */
	double offset_ns;      /* the peer's clock - this one's, at the first round trip */
	double drift_ppm;      /* and how fast that changes */
	uint64_t uncertainty_ns;
	int consistent;	     /* 0: no line aligned every round trip (a clock step) */
	const char *missing; /* not joined: why a two-host client has no peer trace, or NULL */
};

/* The facts of a report's header; a string is NULL where the trace does not say. */
struct rm_header {
	const char *path; /* the trace file; NULL when it was not kept */
	const char *host_name;
	const char *kernel;
	const char *host_cpus;
	const char *cpu_model;
	const char *probe; /* "shm", "verbs", "command" */
	int command;	   /* record -- CMD: no probe of ours ran */
	int nic_probe;	   /* the probe ran over a NIC (verbs; udp between two hosts) */
	int peer_lost;	   /* two hosts: the peer went away mid-run (run.peer_lost) */
	const char *stretch;
	const char *streamed;
	/* report.streamed: how a trace too long to hold was read */ /* report --from/--to:
									which part of the
									run, or NULL */
	const char *mode;	/* run.mode: loopback, server, client; NULL: older traces */
	const char *cpus;	/* the probe's CPUs, or the command's */
	const char *iterations; /* round trips requested */
	int has_message_bytes;	/* the verbs probe's message size */
	uint64_t message_bytes;
	size_t round_trips; /* samples in the trace */
	int interrupted;    /* the run was ended early (Ctrl-C) */
	const char *probe_detail;
	const char *clock;
	const char *command_line;
	const char *target; /* the command traced, its pid and how it ended */
	const char *target_pid;
	const char *target_status;
	const char *samples_file; /* --samples */
	const char *samples_columns;
	const char *iter_spec;	  /* record --iter: how the command's iterations were marked */
	const char *iter_what;	  /* in words */
	const char *iter_points;  /* where the markers were attached */
	const char *iter_summary; /* the report's count of them (report.c: iter.made) */
	const char *iter_calib;	  /* how the markers' blind spots were measured, or why not */
	uint64_t iter_pre_ns, iter_post_ns; /* with has_iter_bounds */
	uint64_t iter_cost_ns;		    /* with has_iter_calib */
	uint64_t iter_jitter_ns; /* with has_iter_jitter: uprobe markers, how far one moves a row */
	int has_iter_bounds, has_iter_calib, has_iter_jitter;
	int iter_syscalls; /* some markers were system-call tracepoints (iter.syscalls) */
	int has_samples_rows;
	uint64_t samples_rows;
	const char *recorded_by;  /* the tailcause version that recorded it */
	uint64_t realtime_ns;	  /* when it was recorded (CLOCK_REALTIME) */
	uint64_t start_ns;	  /* and on CLOCK_MONOTONIC: "+1.5 s" counts from here */
	uint64_t first_sample_ns; /* the first sample's start, spikes' "at +x s" (0: none) */
	int truncated;		  /* the file ends before its END block */
	size_t n_events;
	const char *hypervisor;	  /* "KVM", "none" (bare metal); NULL: the trace does not say */
	const char *steal;	  /* how steal was read: "traced: <source>" / "not traced: <why>" */
	int steal_traced;	  /* steal readings were taken */
	uint64_t stolen_ns;	  /* steal the readings saw on the probe CPUs, all of it */
	const char *calib_status; /* "measured on CPUs 0,1 ...", "not measured: ..."; NULL */
	int calibrated;		  /* cal holds the trace's calibration */
	struct tc_calibration cal;
	uint64_t lost;	 /* records lost to ring-buffer overrun, all CPUs */
	int has_missed;	 /* the recorder counted the program runs the kernel skipped */
	uint64_t missed; /* runs the kernel's recursion guard skipped: records never made */
	struct rm_peer peer;
	int has_bad_records;
	uint64_t bad_records;
};

/* One BPF program and what became of it. */
struct rm_tracer {
	char concern[32];
	const char *program;
	int attached;
	const char *detail; /* the tracepoint it attached to, or why it did not */
};

/* A run of attached programs of one concern, in the order the trace lists them. */
struct rm_concern {
	char name[32];
	unsigned int attached;
};

/* A cause in the report's order, with its part of the whole. */
struct rm_cause {
	uint32_t cause;	  /* index into a->causes, or noise->causes */
	double share_pct; /* of the total excess (latency), or of the noise (noise) */
};

/* A class of cause that made spikes, and what to do about it. */
struct rm_rec {
	const struct tc_cause_info *info;
	const char *what; /* info->what, or words for this host (hw-noise) */
	uint64_t spikes;
};

/* An IRQ's row of the placement matrix (m->irqs, most handled first). */
struct rm_irq {
	const char *name; /* NULL: the trace has no name for it */
	int nic;	  /* its name matches the NIC pattern */
};

/* The host audit the trace carries, joined to the causes measured. */
#define RM_JOIN_LINES 8
struct rm_audit {
	int present;	 /* 0: an older recorder stored none */
	int join_failed; /* out of memory while joining */
	struct tc_audit au;
	size_t counts[TC_AUDIT_STATUS_COUNT];
	struct tc_audit_join join[RM_JOIN_LINES];
	size_t n_join;
	enum tc_audit_check unused[TC_AUDIT_CHECK_COUNT]; /* warn/fail checks no line cites */
	size_t n_unused;
};

/* The spikes a renderer may draw at most, largest first (HTML dots, Perfetto slices). */
#define RM_RANKED_MAX 20000

struct report_model_opts {
	const char *path;	     /* the trace file, when it was kept */
	unsigned int top;	     /* spikes (or noise intervals) listed with their detail */
	const char *nic_irq_pattern; /* NULL: TC_NIC_IRQ_PATTERN_DEFAULT */
	unsigned int div;	     /* latency = duration / div: 2 one way, 1 whole */
	/* a streamed report's latency series (core/model/plot.h), built as it read the run;
	 * NULL: the HTML report computes it from t's samples */
	const struct plot_series *series;
};

struct report_model {
	const struct tc_trace *t;	  /* events and samples, sorted */
	const struct tc_analysis *a;	  /* a latency report, else NULL */
	const struct hist *hist;	  /* its latency histogram (RTT ns) */
	const struct tc_noise *noise;	  /* a noise report (no samples), else NULL */
	const struct plot_series *series; /* report_model_opts.series */
	unsigned int div;
	unsigned int top;
	const char *nic_irq_pattern;

	struct rm_header h;
	const struct tc_kv *meta; /* every fact the recorder stored, as it stored it */
	size_t n_meta;
	struct rm_tracer *tracers;
	size_t n_tracers;
	size_t n_missing; /* tracers not attached */
	struct rm_concern *concerns;
	size_t n_concerns;
	const struct tc_event **lost; /* the lost windows (TC_EV_LOST events), in time order */
	size_t n_lost;
	const struct tc_event **irq_moves; /* TC_EV_IRQ_MOVE events, in time order */
	size_t n_irq_moves;
	unsigned char probe_cpu[TC_MAX_CPUS]; /* 1: the probe ran or was pinned there */

	/* latency */
	const struct tc_verdict *verdict; /* of t_avg; NULL where it does not apply (div 1) */
	char rule[128];			  /* the spike rule in words */
	const char *rule_mode;		  /* "default", "percentile", "absolute", "median_x" */
	struct rm_cause *causes;	  /* every cause, most excess first (a->n_causes) */
	size_t n_causes;		  /* the first ones, with spikes or excess: the ones
					   * shown (a spike's excess is never 0) */
	size_t *ranked;			  /* spike indices, largest first */
	size_t n_ranked;		  /* min(n_spikes, max(top, RM_RANKED_MAX)) */
	size_t n_top;			  /* min(n_spikes, top): the ones listed in detail */
	struct rm_rec recs[TC_CAUSE_CLASS_COUNT]; /* classes with spikes, in class order */
	size_t n_recs;
	struct rm_audit audit;

	/* noise */
	struct rm_cause *noise_causes; /* every cause, most time first */
	size_t n_noise_causes;
	size_t *worst; /* the top noisiest rows (thread-intervals) */
	size_t n_worst;
	size_t *threads_by_noise; /* thread indices, noisiest first */

	/* record --iter mpi: the collectives, their stragglers and why (NULL: none) */
	struct coll_report *coll;

	/* both */
	struct plot_irq_matrix irqs; /* every IRQ with a count, most handled first */
	struct rm_irq *irq;	     /* per row of irqs */
};

/*
 * Builds the model of t and a (a latency report, with its histogram h) or of t
 * and n (a noise report). m is filled and owns what it allocates; t, a, h and n
 * must outlive it. 0 or -ENOMEM.
 */
int report_model__build(struct report_model *m, const struct tc_trace *t,
			const struct tc_analysis *a, const struct hist *h, const struct tc_noise *n,
			const struct report_model_opts *o);
void report_model__free(struct report_model *m);

/* Latency in microseconds (one way for the probe's round trips) of a duration in ns. */
static inline double rm_lat_us(const struct report_model *m, double ns)
{
	return ns / (1000.0 * m->div);
}

/* The same in ns, and in seconds. */
static inline double rm_lat_ns(const struct report_model *m, double ns)
{
	return ns / (double)m->div;
}

static inline double rm_lat_s(const struct report_model *m, double ns)
{
	return ns / (1e9 * m->div);
}

/* "one way" or "per iteration", after a latency. */
static inline const char *rm_lat_what(const struct report_model *m)
{
	return m->div == 2 ? "one way" : "per iteration";
}

#endif /* TAILCAUSE_CORE_REPORT_MODEL_H */
