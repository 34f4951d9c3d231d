/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mark_calib.h - what record --iter's system-call markers do to an iteration,
 * measured on this host before the command starts.
 *
 * A benchmark stamps its clock just before its send and just after its receive
 * returns; a marker fires inside the kernel, after the entry path and before the
 * return path, so a marked iteration is shorter than the benchmark's by what lies
 * between. And every marked call is slower by the marker itself. Both are
 * properties of the host (its entry path, its mitigations, the tracepoint's slow
 * path), so they are measured: this process times the same system calls on a
 * socketpair, first with no marker attached, then marked, taking its own marks
 * out of the drain (mark_calib_take) to pair them with its own clock reads.
 *   pre   from the clock read before the begin call to its mark (median)
 *   post  from the end call's mark to the clock read after it returns (median)
 *   cost  what the markers add to the two calls (marked minus unmarked medians)
 * The report moves a BEGIN..END iteration's bounds out by pre and post
 * (core/iter/iter_samples.h) and states the cost. Measured only where the spec's calls
 * are ones it can make harmlessly (a send: sendto, sendmsg, write; a receive:
 * recvfrom, recvmsg, read); otherwise the trace says why not. Uprobe markers
 * (perftest's) mark to mark, where the blind spots cancel: their cost is measured
 * on a function of this program's own (mark_calib_target), called unmarked, then
 * under a uprobe like theirs: the trap's cost does not depend on the function.
 */
#ifndef TAILCAUSE_RECORD_MARK_CALIB_H
#define TAILCAUSE_RECORD_MARK_CALIB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"
#include "iter_spec.h"

struct bpf_link;

#define MARK_CALIB_ROUNDS 2000

struct mark_calib {
	int send, recv;	       /* which calls (mark_calib.c's table), -1: not measurable */
	int uprobe;	       /* uprobe markers: their cost on a function of our own instead */
	struct bpf_link *link; /* that function's marker, attached while privileged */
	uint64_t base_ns[2];   /* median duration of the send / receive, unmarked */
	uint64_t with_ns[2];   /* and marked */
	uint64_t pre_ns, post_ns;
	uint64_t jitter_ns; /* uprobe: how far the marker alone moves a row (row_jitter) */
	char status[512];   /* "measured ..." or why not */
	int measured;

	atomic_uint tid; /* while measuring: this thread's marks are the calibration's */
	pthread_mutex_t lock;
	uint64_t *marks[2]; /* BEGIN and END mark times seen, in order */
	size_t n_marks[2];
};

/* Picks the calls from s and times them unmarked (before the markers attach). */
void mark_calib_baseline(struct mark_calib *mc, const struct iter_spec *s);
/* Uprobe markers: attaches the one mark_calib_measure() times (needs the privileges). */
void mark_calib_attach(struct mark_calib *mc, struct tracer *t);
/*
 * The drain thread's filter: 1 when e is a mark of the calibration's own thread
 * (kept, and kept out of the trace), else 0.
 */
int mark_calib_take(struct mark_calib *mc, const struct tc_event *e);
/*
 * Times the calls marked, as a thread of interest of t for that time only;
 * drained(ctx) returns once the drain has seen every record submitted before it.
 * The outcome is in mc->status; 0 or -errno of the tracer's maps.
 */
int mark_calib_measure(struct mark_calib *mc, struct tracer *t, void (*drained)(void *ctx),
		       void *ctx);
/*
 * iter.pre_ns, iter.post_ns (system calls) or iter.jitter_ns (uprobes), iter.cost_ns and
 * iter.calib (in words) into out; 0 or -ENOMEM.
 */
int mark_calib_store(const struct mark_calib *mc, struct tc_trace *out);
void mark_calib__free(struct mark_calib *mc);

#endif /* TAILCAUSE_RECORD_MARK_CALIB_H */
