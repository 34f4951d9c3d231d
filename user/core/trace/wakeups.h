/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wakeups.h - a blocked off-CPU interval is two things: asleep until the wake-up
 * (waiting for the peer, the disk, the timer: no host cause), then runnable and
 * waiting for the CPU (whoever ran there instead: a host cause, like a
 * preemption). The recorder sees when the thread was woken (woken_after_ns); the
 * report splits the interval there, so a blocking benchmark's wake-up delays
 * (sockperf's default receive, a futex) are attributed as a busy-polling
 * probe's preemptions are, and the noise report's split of the same intervals
 * (noise.c) is the latency report's too.
 *
 * The waiting part is an OFFCPU event flagged TC_OFFCPU_PREEMPTED |
 * TC_OFFCPU_WOKEN, named by the task that ran longest over the whole interval
 * (all the recorder keeps): preemption:<it>, or idle-exit where the CPU was idle
 * (the wake-up's own way out of idle). In a spike it is weak (spike_window.h): it
 * explains what nothing else does, and an IRQ, a softirq or a timer that delayed
 * the wake-up keeps its own credit instead of nesting in it.
 */
#ifndef TAILCAUSE_CORE_WAKEUPS_H
#define TAILCAUSE_CORE_WAKEUPS_H

#include "trace.h"

/* Whether e is a blocked OFFCPU event with a wake-up inside it: one that
 * trace__split_wakeups() splits. */
static inline int trace__splittable(const struct tc_event *e)
{
	return e->kind == TC_EV_OFFCPU && !(e->flags & (TC_OFFCPU_PREEMPTED | TC_OFFCPU_UNENDED)) &&
	       e->woken_after_ns && e->woken_after_ns < e->dur_ns;
}

/*
 * Splits each blocked OFFCPU event with a wake-up inside it into the blocked part
 * (in place: it ends at the wake-up) and the waiting part (appended: sort after).
 * Returns how many were split, or -ENOMEM (t unchanged).
 */
long trace__split_wakeups(struct tc_trace *t);

#endif /* TAILCAUSE_CORE_WAKEUPS_H */
