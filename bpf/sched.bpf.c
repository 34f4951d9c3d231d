// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * sched.bpf.c - off-CPU intervals of the probe threads.
 *
 * When a probe thread is switched out, its slot is stamped with the time, the
 * CPU, whether it was preempted, and the task that ran next. When it is
 * switched back in, one TC_EV_OFFCPU interval is emitted. Every other switch
 * costs two hash lookups and returns.
 */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct tc_offcpu_slot);
} offcpu_start SEC(".maps");

static __always_inline void switch_out(__u32 tid, int preempted, __u32 state, __u32 next_pid,
				       const char *next_comm)
{
	struct tc_offcpu_slot slot = {};

	slot.start_ns = bpf_ktime_get_ns();
	slot.cpu = bpf_get_smp_processor_id();
	slot.state = state;
	slot.next_pid = next_pid;
	slot.preempted = preempted;
	bpf_probe_read_kernel_str(slot.next_comm, sizeof(slot.next_comm), next_comm);
	bpf_map_update_elem(&offcpu_start, &tid, &slot, BPF_ANY);
}

static __always_inline void switch_in(__u32 tid)
{
	struct tc_offcpu_slot *slot = bpf_map_lookup_elem(&offcpu_start, &tid);
	struct tc_event *e;

	if (!slot)
		return;
	e = event_reserve();
	if (e) {
		e->start_ns = slot->start_ns;
		e->dur_ns = bpf_ktime_get_ns() - slot->start_ns;
		e->cpu = slot->cpu;
		e->tid = tid;
		e->arg = slot->state;
		e->other_pid = slot->next_pid;
		e->kind = TC_EV_OFFCPU;
		e->flags = slot->preempted ? TC_OFFCPU_PREEMPTED : 0;
		e->pad = 0;
		__builtin_memcpy(e->other_comm, slot->next_comm, TC_COMM_LEN);
		event_submit(e);
	}
	bpf_map_delete_elem(&offcpu_start, &tid);
}

/* tp_btf: the `preempt` argument tells preemption from blocking exactly. */
SEC("tp_btf/sched_switch")
int BPF_PROG(tc_sched_switch_btf, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	__u32 prev_tid = BPF_CORE_READ(prev, pid);
	__u32 next_tid = BPF_CORE_READ(next, pid);

	if (tid_of_interest(prev_tid)) {
		__u32 state = BPF_CORE_READ(prev, __state);

		switch_out(prev_tid, preempt || state == 0, state, next_tid, next->comm);
	}
	if (tid_of_interest(next_tid))
		switch_in(next_tid);
	return 0;
}

/* Classic tracepoint fallback: prev_state == TASK_RUNNING means preempted. */
SEC("tp/sched/sched_switch")
int tc_sched_switch_tp(struct trace_event_raw_sched_switch *ctx)
{
	__u32 prev_tid = ctx->prev_pid;
	__u32 next_tid = ctx->next_pid;

	if (tid_of_interest(prev_tid)) {
		__u32 state = (__u32)ctx->prev_state;

		switch_out(prev_tid, state == 0, state, next_tid, ctx->next_comm);
	}
	if (tid_of_interest(next_tid))
		switch_in(next_tid);
	return 0;
}
