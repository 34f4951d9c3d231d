/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * calibrate.h - what an event really costs a probe CPU, against what the
 * tracers see of it. Pure: no I/O.
 *
 * Before a recording, a thread on each probe CPU reads the clock in a tight
 * loop and notes every gap between two reads much longer than the loop takes
 * (the CPU was taken), and every page it touched for the first time (a fault);
 * meanwhile IPIs are sent to it, a disk it reads directly interrupts it (a
 * device interrupt) and the tick comes by itself. A gap that holds
 * one traced event of a kind (with its bottom half) and nothing else is a
 * measurement of that kind: what the gap lasted beyond the traced interval is
 * the hidden cost, split into before (the way in: on a VM the exit and the
 * injection) and after (the way out). On a VM these are several microseconds
 * that the guest cannot see; on bare metal a few hundred nanoseconds.
 *
 * The per-kind medians go into the trace's meta (calib.<kind>.*) and the
 * analyzer widens every interval of a calibrated kind by them (labelled as
 * hidden, apart from the traced part). A measurement of this host, never a
 * per-scenario constant.
 */
#ifndef TAILCAUSE_CORE_CALIBRATE_H
#define TAILCAUSE_CORE_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#include "spike_context.h"
#include "core/trace/trace.h"

/* What the calibration thread saw. */
#define TC_GAP_LOOP  1 /* two clock reads of the loop further apart than it takes */
#define TC_GAP_TOUCH 2 /* the first write to a fresh page: a page fault */

struct tc_gap {
	uint64_t start, end; /* CLOCK_MONOTONIC */
	uint32_t cpu;
	uint32_t what; /* TC_GAP_* */
	uint32_t tid;  /* the calibration thread */
	uint32_t pad;
};

/* The kinds calibrated, in the order reports list them. */
#define TC_CALIB_KINDS 4
extern const uint16_t tc_calib_kinds[TC_CALIB_KINDS]; /* TIMER, IPI, PAGE_FAULT, HARDIRQ */
/* Each kind in words, for the reports: "timer tick", "IPI", ... */
extern const char *const tc_calib_names[TC_CALIB_KINDS];

/* Fewer measurements than this leave a kind uncalibrated. */
#define TC_CALIB_MIN 20

struct tc_calib_kind {
	uint16_t kind;
	size_t n;		/* gaps that measured it */
	uint64_t gap_ns;	/* median of the gaps: what it cost the CPU */
	uint64_t traced_ns;	/* median of what the tracers saw of it */
	uint64_t traced_p90_ns; /* and its 90th percentile: the top of its usual spread */
	uint64_t pre_ns;	/* median hidden time before the traced interval */
	uint64_t post_ns;	/* and after it */
	uint64_t p10_ns;	/* the spread of the hidden time (pre + post): 10th */
	uint64_t p90_ns;	/* and 90th percentile */
};

struct tc_calibration {
	uint64_t loop_ns; /* the loop's own time between two reads (median) */
	/* The cheapest exit to the hypervisor this host takes (calib.exit_floor_ns): a cpuid,
	 * which always exits on a VM, timed on a probe CPU, its minimum less the clock read's.
	 * calibrate_load() keeps it only where host.hypervisor names one: on bare metal cpuid
	 * does not exit and what takes the CPU there (an SMI) cannot be provoked, so there, as
	 * in an older recorder's trace, it is 0: not known. */
	uint64_t exit_floor_ns;
	struct tc_calib_kind k[TC_CALIB_KINDS];
};

/*
 * Measures the hidden cost of each kind from gaps[0..n) and the events of t
 * (sorted by start). l weighs events as the analyzer does (an IPI from its
 * send). 0, or -ENOMEM.
 */
int calibrate_run(const struct tc_trace *t, const struct idle_latency *l, const struct tc_gap *gaps,
		  size_t n, uint64_t loop_ns, struct tc_calibration *out);

/* Stores c in t's meta as calib.loop_ns, calib.exit_floor_ns (where measured) and
 * calib.<kind>.{n,gap_ns,traced_ns,traced_p90_ns, pre_ns,post_ns,p10_ns,p90_ns}; kinds with fewer
 * than TC_CALIB_MIN measurements are left out. 0 or -ENOMEM. */
int calibrate_store(struct tc_trace *t, const struct tc_calibration *c);

/* Reads what calibrate_store() wrote (absent kinds have n 0); 1 when t was calibrated. */
int calibrate_load(const struct tc_trace *t, struct tc_calibration *c);

/* The entry of kind in c, or NULL when kind is not calibrated (n < TC_CALIB_MIN). */
const struct tc_calib_kind *calibrate_kind(const struct tc_calibration *c, uint16_t kind);

#endif /* TAILCAUSE_CORE_CALIBRATE_H */
