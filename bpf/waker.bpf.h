/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * waker.bpf.h - who wakes the threads of interest, for the wait chain
 * (core/attrib/wait_chain.h): sched.bpf.c's sched_waking programs, attached when a
 * command is recorded, call waker_changed() and emit_waking().
 */
#ifndef TAILCAUSE_WAKER_BPF_H
#define TAILCAUSE_WAKER_BPF_H

#include "common.bpf.h"

/*
 * sched_waking runs in the waker's context, on every wake-up in the system: the filter
 * (is the woken task of interest?) comes first, a task-storage or hash lookup. A waking
 * made on an interrupt's stack (hard IRQs and softirqs run on the per-CPU interrupt stack
 * on x86-64) or by the idle task (queued wake-ups it runs) is the interrupt's: `current`
 * is only what the CPU was running. A task that woke one and is not traced is traced from
 * then on (TC_ROLE_WAKER: its off-CPU intervals, and the CPUs it runs on), up to
 * TC_MAX_WAKERS in a recording, so that what delayed it can explain a wait on it.
 */

/* The size of a task's kernel stack (THREAD_SIZE), set by user space; 0: not known, and
 * only the idle task's wakings are told apart as an interrupt's. */
const volatile __u64 cfg_thread_size = 0;

/* The recorder's process, set by user space: it wakes the command it runs, and is not
 * followed for that. */
const volatile __u32 cfg_self_tgid = 0;

/* Wakers followed so far in this recording (entry 0). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} wakers_followed SEC(".maps");

/* Whether this program runs outside the kernel stack whose base is stack: on an interrupt's. */
static __always_inline int off_task_stack(__u64 stack)
{
	volatile __u64 here = 0;
	__u64 at = (__u64)(long)&here;

	return cfg_thread_size && stack && (at < stack || at >= stack + cfg_thread_size);
}

/*
 * Starts tracing the waker, tid (on this CPU), as TC_ROLE_WAKER where the bound allows:
 * TC_WAKE_FOLLOWED, or TC_WAKE_UNFOLLOWED when it does not. Its cached role and the
 * probe_tids generation it was read at (sched.bpf.c's task storage, tp_btf), where given,
 * learn the role now: its next switch-out opens an interval.
 */
static __always_inline __u16 follow_waker(__u32 tid, __u32 *role, __u32 *gen_read)
{
	__u32 zero = 0, waker = TC_ROLE_WAKER, *gen,
	      *n = bpf_map_lookup_elem(&wakers_followed, &zero);

	/* read, then added: CPUs racing here may pass the bound by a few (an atomic's
	 * return value needs BPF atomics that 5.10 kernels lack) */
	if (!n || *n >= TC_MAX_WAKERS)
		return TC_WAKE_UNFOLLOWED;
	__sync_fetch_and_add(n, 1);
	if (bpf_map_update_elem(&probe_tids, &tid, &waker, BPF_NOEXIST))
		return TC_WAKE_UNFOLLOWED;
	if (role && gen_read) {
		gen = bpf_map_lookup_elem(&probe_tids_gen, &zero);
		*gen_read = gen ? *gen : 0;
		*role = TC_ROLE_WAKER;
	}
	probe_cpu_mark(bpf_get_smp_processor_id());
	return TC_WAKE_FOLLOWED;
}

/*
 * Whether the waking of thread tid by the current context (pid_tgid, 0: an interrupt's) is
 * by another waker, or from another CPU, than its slot's last record: the common case is
 * not, and nothing more is done. Notes the new waker in the slot.
 */
static __always_inline int waker_changed(struct tc_offcpu_slot *slot, __u64 pid_tgid)
{
	__u32 waker = (__u32)pid_tgid;
	__u32 at = (bpf_get_smp_processor_id() + 1) | (waker ? 0 : TC_WAKE_AT_IRQ);

	if (!slot || (slot->waker == waker && slot->waker_at == at))
		return 0;
	slot->waker = waker;
	slot->waker_at = at;
	return 1;
}

/*
 * The record of a waking of thread tid whose waker changed (waker_changed()): pid_tgid the
 * waker's, 0 where an interrupt woke it; traced, whether the waker is; ts, its task storage
 * (tp_btf) or NULL. A waker not traced is followed from here.
 */
static __always_inline void emit_waking(__u32 tid, __u64 pid_tgid, int traced, __u32 *role,
					__u32 *gen_read)
{
	__u32 waker = (__u32)pid_tgid;
	struct tc_event *e;
	__u16 flags = 0;

	if (!waker)
		flags = TC_WAKE_IRQ;
	else if (!traced && waker != tid && (__u32)(pid_tgid >> 32) != cfg_self_tgid)
		flags = follow_waker(waker, role, gen_read);
	e = event_reserve(TC_EV_WAKEUP);
	if (!e)
		return;
	e->start_ns = bpf_ktime_get_ns();
	e->dur_ns = 0;
	e->aux = 0;
	e->cpu = bpf_get_smp_processor_id();
	e->tid = tid;
	e->arg = (__u32)(pid_tgid >> 32);
	e->other_pid = waker;
	e->kind = TC_EV_WAKEUP;
	e->flags = flags;
	e->pad = 0;
	if (waker)
		bpf_get_current_comm(e->other_comm, sizeof(e->other_comm));
	else
		__builtin_memset(e->other_comm, 0, sizeof(e->other_comm));
	event_submit(e);
}

#endif /* TAILCAUSE_WAKER_BPF_H */
