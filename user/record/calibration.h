/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * calibration.h - before a recording, what each kind of event costs the probe
 * CPUs (core/attrib/calibrate.h says how the gaps become hidden costs).
 *
 * On each probe CPU in turn a thread reads the clock in a tight loop for a
 * quarter of a second and notes every gap (the CPU was taken) and every first
 * write to a fresh page (a page fault it made, one per millisecond), while a
 * thread on the other probe CPU sends it an IPI every millisecond
 * (membarrier's private expedited command interrupts every CPU that runs a
 * thread of this process), and the loop itself reads a block of its own
 * executable a millisecond, directly (past the page cache) and asynchronously,
 * so that the disk's device interrupts when each read is done; the tick comes
 * by itself. The threads are traced as
 * probe threads while they run, so their faults and preemptions are seen.
 */
#ifndef TAILCAUSE_RECORD_CALIBRATION_H
#define TAILCAUSE_RECORD_CALIBRATION_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/attrib/calibrate.h"
#include "record/bpf/tracer.h"

struct calibration {
	struct tc_gap *gaps;
	size_t n, cap;
	uint64_t loop_ns;	 /* the loop's median time between two reads */
	int ipis;		 /* 1: IPIs could be sent (membarrier), 0: not */
	int disk;		 /* the executable, opened for direct reads; -1: none */
	uint64_t disk_span;	 /* its bytes read in turn */
	unsigned int disk_reads; /* reads done (by the loop threads, one at a time) */
};

/*
 * Measures on cpu[0] then cpu[1], each for ms milliseconds, tracing the
 * threads through t. 0, or -errno (reported); what was measured stays in c.
 */
int calibration_measure(struct tracer *t, const int cpu[2], unsigned int ms, struct calibration *c);
void calibration__free(struct calibration *c);

/*
 * A copy of the records the recorder drains while the calibration runs: the
 * drain thread hands each BPF record and each lost window to calib_tap_keep()
 * (a no-op unless on). With only set, it says 1 and the recorder keeps that BPF
 * record out of the trace (a lost window stays there: the drop counters count
 * it). Zero-initialize; calib_tap__free() after.
 */
struct calib_tap {
	atomic_int on;
	int only;
	pthread_mutex_t lock;
	struct tc_event *ev;
	size_t n, cap;
};

int calib_tap_keep(struct calib_tap *tap, const struct tc_event *e);
void calib_tap__free(struct calib_tap *tap);

/*
 * The whole calibration of a recording: measures (calibration_measure()), lets
 * the drain thread catch up (drained(ctx) returns once every record submitted
 * before the call was drained), matches the gaps against what the tap kept and
 * stores the result in out's meta (calib.*, and calib.status in words). 0, or
 * -ENOMEM; a failed measurement is stored as such, not an error.
 */
int calibration_record(struct tracer *t, const int cpu[2], struct calib_tap *tap,
		       void (*drained)(void *ctx), void *ctx, struct tc_trace *out);

#endif /* TAILCAUSE_RECORD_CALIBRATION_H */
