/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * steal.bpf.h - hypervisor steal time on the probe CPUs, read where the
 * scheduler has just brought it up to date: at every context switch
 * (sched.bpf.c) and at the end of every local timer interrupt (ipi.bpf.c: the
 * tick updated the run-queue clock). Both objects share the per-CPU slot
 * steal_last (user space creates the map once and hands its fd to each).
 *
 * The source is the run queue's prev_steal_time_rq, reached through the current
 * task (se.cfs_rq->rq), which needs no kallsyms entry: this is the scheduler's
 * own copy of the paravirt steal clock (KVM's steal_time.steal), accumulated
 * when it updates the run-queue clock. A reading that grew since the last one
 * emits TC_EV_STEAL for the interval between the two: the steal happened in
 * there, somewhere; the analyzer never credits a spike more than was stolen.
 */
#ifndef TAILCAUSE_STEAL_BPF_H
#define TAILCAUSE_STEAL_BPF_H

#include "common.bpf.h"

struct tc_steal_slot {
	__u64 ns;    /* when it was last read (0: never) */
	__u64 steal; /* prev_steal_time_rq then */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tc_steal_slot);
} steal_last SEC(".maps");

/* Set by user space where the kernel's BTF has the fields (CONFIG_PARAVIRT_TIME_ACCOUNTING
 * and CONFIG_FAIR_GROUP_SCHED): 1 reads the run queue's steal, 0 reads nothing. */
const volatile __u32 cfg_steal = 0;

/* The run queue's steal so far, through the current task; 0 where it cannot be read. */
static __always_inline __u64 rq_steal_now(void)
{
	struct task_struct *p = bpf_get_current_task_btf();
	struct cfs_rq *cfs_rq;
	struct rq *rq;

	if (!bpf_core_field_exists(p->se.cfs_rq) || !bpf_core_field_exists(struct cfs_rq, rq) ||
	    !bpf_core_field_exists(struct rq, prev_steal_time_rq))
		return 0;
	cfs_rq = p->se.cfs_rq;
	rq = cfs_rq ? cfs_rq->rq : NULL;
	return rq ? rq->prev_steal_time_rq : 0;
}

/*
 * On probe CPU cpu (the caller checked it), at now (the caller's clock read, so that
 * a switch reads the clock once): a reading, and an interval if steal grew.
 */
static __always_inline void steal_read(__u32 cpu, __u64 now)
{
	struct tc_steal_slot *slot;
	struct tc_event *e;
	__u32 zero = 0;
	__u64 steal;

	if (!cfg_steal)
		return;
	slot = bpf_map_lookup_elem(&steal_last, &zero);
	if (!slot)
		return;
	steal = rq_steal_now();
	if (slot->ns && steal > slot->steal && now > slot->ns) {
		e = event_reserve(TC_EV_STEAL);
		if (e) {
			__u64 stolen = steal - slot->steal;

			__builtin_memset(e, 0, sizeof(*e));
			/*
			 * After a clock update the scheduler skipped, the last reading was
			 * stale and this one can show more steal than the time since it. The
			 * kernel never accounts more steal than its clock advanced since its
			 * own last update (before the last reading), so the interval starts
			 * early enough to hold it, and still inside that span.
			 */
			e->start_ns = now - slot->ns < stolen ? now - stolen : slot->ns;
			e->dur_ns = now - e->start_ns;
			e->stolen_ns = stolen;
			e->cpu = cpu;
			e->arg = TC_STEAL_RQ;
			e->kind = TC_EV_STEAL;
			event_submit(e);
		}
	}
	slot->ns = now;
	slot->steal = steal;
}

#endif /* TAILCAUSE_STEAL_BPF_H */
