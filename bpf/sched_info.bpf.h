/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * sched_info.bpf.h - when a switched-in task became runnable, from the kernel's own
 * accounting (sched_info and the run queue's clock) as sched.bpf.c's tp_btf switch
 * program sees it: no sched_wakeup program needed on that path.
 */
#ifndef TAILCAUSE_SCHED_INFO_BPF_H
#define TAILCAUSE_SCHED_INFO_BPF_H

#include "common.bpf.h"

/*
 * The clock of the run queue p is on (0: unknown), through its CFS run queue (every
 * task has one, whatever its class). At sched_switch prev and next are on this CPU's,
 * its clock as of this __schedule's update. Not the `runqueues` ksym: per-CPU data has
 * no kallsyms entry without CONFIG_KALLSYMS_ALL (this host), and a program using it
 * then fails to load.
 */
static __always_inline __u64 rq_clock_of(struct task_struct *p)
{
	struct cfs_rq *cfs_rq;
	struct rq *rq;

	if (!bpf_core_field_exists(p->se.cfs_rq) || !bpf_core_field_exists(struct cfs_rq, rq))
		return 0;
	cfs_rq = p->se.cfs_rq;
	rq = cfs_rq ? cfs_rq->rq : NULL;
	return rq ? rq->clock : 0;
}

/*
 * tp_btf with sched_info, at p's switch-out: its run queue's clock (clock, updated at
 * the start of this __schedule) and its sched_info.run_delay, for woken_from_sched_info.
 */
static __always_inline void stamp_sched_info(struct tc_offcpu_slot *slot, struct task_struct *p,
					     __u64 clock)
{
	if (!bpf_core_field_exists(p->sched_info.run_delay))
		return;
	slot->rq_clock = clock;
	slot->run_delay = p->sched_info.run_delay;
}

/*
 * tp_btf with sched_info: when p became runnable, from the kernel's accounting as
 * sched_switch sees it (before sched_info_arrive resets it), into slot->woken_ns.
 * last_queued is when p was last queued, on the rq clock: its wake-up, unless it
 * migrated while runnable, which adds the wait so far to run_delay and queues it
 * anew. Two lower bounds of the wait since then: the rq clock now less last_queued
 * (plus what run_delay gained since p left), short when this __schedule skipped
 * the clock update, as it does when a wake-up asked for it (then the clock is the
 * wake-up's); and the interval less the sleep on the rq clock (from the clock at
 * the switch-out to the wake-up), short by the time that __schedule took from its
 * clock update to the tracepoint (~0.4 us on the dev VM). The larger one counts
 * (the rq and BPF clocks' rates differ by ~0.3 ppm there). Left at 0 (unknown: all
 * of it counts as blocked) where the kernel has no stamp; a preempted interval
 * stays 0 by definition.
 */
static __always_inline void woken_from_sched_info(struct tc_offcpu_slot *slot,
						  struct task_struct *p, __u64 clock, __u64 now)
{
	__u64 queued, gained, asleep, off, wait;

	if (!bpf_core_field_exists(p->sched_info.last_queued) || !slot->start_ns ||
	    slot->preempted || !slot->rq_clock || now <= slot->start_ns)
		return;
	queued = p->sched_info.last_queued;
	gained = p->sched_info.run_delay - slot->run_delay;
	if (!queued || (__s64)(queued - gained - slot->rq_clock) <= 0)
		return;
	asleep = queued - gained - slot->rq_clock;
	off = now - slot->start_ns;
	wait = off > asleep ? off - asleep : 0;
	if ((__s64)(clock - queued) > 0 && clock - queued + gained > wait)
		wait = clock - queued + gained;
	if (wait < off)
		slot->woken_ns = now - wait;
}

#endif /* TAILCAUSE_SCHED_INFO_BPF_H */
