// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * sched.bpf.c - off-CPU intervals of the probe threads, their wake-ups and
 * migrations, and the threads of a traced command as they are created.
 *
 * When a probe thread is switched out, its slot is stamped with the time, the
 * CPU and whether it was preempted. While it is off, each switch on that CPU
 * times the task that just ran and keeps the longest runner; sched_wakeup
 * stamps when it became runnable again (so blocked time and run-queue wait
 * can be told apart). When it is switched back in, one TC_EV_OFFCPU interval
 * is emitted. Switches on other CPUs cost one array lookup and two hash
 * lookups.
 */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Follow the children of TC_ROLE_TARGET threads and mark the CPUs they run on. */
const volatile __u32 cfg_follow_children = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct tc_offcpu_slot);
} offcpu_start SEC(".maps");

/* Per probe CPU: when the last switch happened and which probe thread waits for it. */
struct cpu_state {
	__u64 last_switch_ns;
	__u32 waiting_tid;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_state);
} cpu_state SEC(".maps");

/* prev ran from the last switch until now: keep it if it is the longest runner so far. */
static __always_inline void account_runner(struct cpu_state *cs, __u64 now, __u32 prev_tid,
					   const char *prev_comm)
{
	struct tc_offcpu_slot *slot;
	__u64 ran = now - cs->last_switch_ns;

	if (!cs->waiting_tid || prev_tid == cs->waiting_tid)
		return;
	slot = bpf_map_lookup_elem(&offcpu_start, &cs->waiting_tid);
	if (!slot || !slot->start_ns || ran <= slot->top_ns)
		return;
	slot->top_ns = ran;
	slot->top_pid = prev_tid;
	bpf_probe_read_kernel(slot->top_comm, sizeof(slot->top_comm), prev_comm);
}

/*
 * A thread's slot is created on its first switch-out and then reused: filled
 * in place on every switch-out, marked idle (start_ns = 0) on switch-in. A
 * hash insert and delete per switch would cost more than everything else here.
 */
static __always_inline void switch_out(struct cpu_state *cs, __u64 now, __u32 tid, int preempted,
				       __u32 state, __u32 next_pid, const char *next_comm)
{
	struct tc_offcpu_slot *slot = bpf_map_lookup_elem(&offcpu_start, &tid), fresh = {};

	if (!slot) {
		bpf_map_update_elem(&offcpu_start, &tid, &fresh, BPF_NOEXIST);
		slot = bpf_map_lookup_elem(&offcpu_start, &tid);
		if (!slot)
			return;
	}
	slot->start_ns = now;
	slot->top_ns = 0;
	slot->woken_ns = 0;
	slot->cpu = bpf_get_smp_processor_id();
	slot->state = state;
	slot->top_pid = next_pid;	/* until a runner finishes, whoever runs first */
	slot->preempted = preempted;
	bpf_probe_read_kernel(slot->top_comm, sizeof(slot->top_comm), next_comm);
	cs->waiting_tid = tid;
}

static __always_inline void switch_in(struct cpu_state *cs, __u64 now, __u32 tid)
{
	struct tc_offcpu_slot *slot = bpf_map_lookup_elem(&offcpu_start, &tid);
	__u32 cpu = bpf_get_smp_processor_id();
	struct tc_event *e;

	if (cs->waiting_tid == tid)
		cs->waiting_tid = 0;
	if (cfg_follow_children)
		probe_cpu_mark(cpu);
	if (!slot || !slot->start_ns)
		return;
	e = event_reserve();
	if (e) {
		e->start_ns = slot->start_ns;
		e->dur_ns = now - slot->start_ns;
		e->aux = slot->woken_ns > slot->start_ns ? slot->woken_ns - slot->start_ns : 0;
		e->cpu = slot->cpu;
		e->tid = tid;
		e->arg = slot->state;
		e->other_pid = slot->top_pid;
		e->kind = TC_EV_OFFCPU;
		e->flags = (slot->preempted ? TC_OFFCPU_PREEMPTED : 0) |
			   (cpu != slot->cpu ? TC_OFFCPU_MIGRATED : 0);
		e->pad = 0;
		__builtin_memcpy(e->other_comm, slot->top_comm, TC_COMM_LEN);
		event_submit(e);
	}
	slot->start_ns = 0;
}

static __always_inline void on_switch(int preempt, __u32 prev_tid, __u32 prev_state,
				      const char *prev_comm, __u32 next_tid, const char *next_comm)
{
	__u32 zero = 0, cpu = bpf_get_smp_processor_id();
	struct cpu_state *cs = NULL, none = {};
	__u64 now = 0;

	/* Runner accounting only on probe CPUs; a probe thread is followed anywhere. */
	if (cpu_of_interest(cpu)) {
		cs = bpf_map_lookup_elem(&cpu_state, &zero);
		if (cs) {
			now = bpf_ktime_get_ns();
			account_runner(cs, now, prev_tid, prev_comm);
			cs->last_switch_ns = now;
		}
	}
	if (!cs)
		cs = &none;
	if (tid_of_interest(prev_tid)) {
		now = now ?: bpf_ktime_get_ns();
		switch_out(cs, now, prev_tid, preempt, prev_state, next_tid, next_comm);
	}
	if (tid_of_interest(next_tid)) {
		now = now ?: bpf_ktime_get_ns();
		switch_in(cs, now, next_tid);
	}
}

static __always_inline void on_wakeup(__u32 tid)
{
	struct tc_offcpu_slot *slot = bpf_map_lookup_elem(&offcpu_start, &tid);

	if (slot && slot->start_ns && !slot->woken_ns)
		slot->woken_ns = bpf_ktime_get_ns();
}

static __always_inline void on_migrate(__u32 tid, __u32 from, __u32 to)
{
	struct tc_event *e;

	if (!tid_of_interest(tid))
		return;
	e = event_reserve();
	if (!e)
		return;
	__builtin_memset(e, 0, sizeof(*e));
	e->start_ns = bpf_ktime_get_ns();
	e->cpu = to;
	e->tid = tid;
	e->arg = from;
	e->kind = TC_EV_MIGRATE;
	event_submit(e);
}

static __always_inline void on_fork(__u32 parent, __u32 child)
{
	__u32 *role, target = TC_ROLE_TARGET;

	if (!cfg_follow_children)
		return;
	role = bpf_map_lookup_elem(&probe_tids, &parent);
	if (role && *role == TC_ROLE_TARGET)
		bpf_map_update_elem(&probe_tids, &child, &target, BPF_ANY);
}

static __always_inline void on_exit(__u32 tid)
{
	__u32 *role = bpf_map_lookup_elem(&probe_tids, &tid);

	/* Only followed threads leave the filter; probe threads are removed by user space. */
	if (role && *role == TC_ROLE_TARGET) {
		bpf_map_delete_elem(&probe_tids, &tid);
		bpf_map_delete_elem(&offcpu_start, &tid);
	}
}

/* The CPU a task is on: thread_info.cpu on x86 (THREAD_INFO_IN_TASK), else task->cpu. */
static __always_inline __u32 task_cpu(struct task_struct *p)
{
	if (bpf_core_field_exists(p->thread_info.cpu))
		return BPF_CORE_READ(p, thread_info.cpu);
	return bpf_get_smp_processor_id();
}

/* tp_btf: the `preempt` argument tells preemption from blocking exactly. */
SEC("tp_btf/sched_switch")
int BPF_PROG(tc_sched_switch_btf, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	/* Direct loads through the BTF-typed pointers: no helper call on this hot path. */
	__u32 state = prev->__state;

	on_switch(preempt || state == 0, prev->pid, state, prev->comm, next->pid, next->comm);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(tc_sched_wakeup_btf, struct task_struct *p)
{
	on_wakeup(p->pid);
	return 0;
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(tc_sched_migrate_btf, struct task_struct *p, int dest_cpu)
{
	on_migrate(BPF_CORE_READ(p, pid), task_cpu(p), dest_cpu);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(tc_sched_fork_btf, struct task_struct *parent, struct task_struct *child)
{
	on_fork(BPF_CORE_READ(parent, pid), BPF_CORE_READ(child, pid));
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(tc_sched_exit_btf, struct task_struct *p)
{
	on_exit(BPF_CORE_READ(p, pid));
	return 0;
}

/* Classic tracepoint fallbacks: prev_state == TASK_RUNNING means preempted. */
SEC("tp/sched/sched_switch")
int tc_sched_switch_tp(struct trace_event_raw_sched_switch *ctx)
{
	__u32 state = (__u32)ctx->prev_state;

	on_switch(state == 0, ctx->prev_pid, state, ctx->prev_comm, ctx->next_pid, ctx->next_comm);
	return 0;
}

SEC("tp/sched/sched_wakeup")
int tc_sched_wakeup_tp(struct trace_event_raw_sched_wakeup_template *ctx)
{
	on_wakeup(ctx->pid);
	return 0;
}

SEC("tp/sched/sched_migrate_task")
int tc_sched_migrate_tp(struct trace_event_raw_sched_migrate_task *ctx)
{
	on_migrate(ctx->pid, ctx->orig_cpu, ctx->dest_cpu);
	return 0;
}

SEC("tp/sched/sched_process_fork")
int tc_sched_fork_tp(struct trace_event_raw_sched_process_fork *ctx)
{
	on_fork(ctx->parent_pid, ctx->child_pid);
	return 0;
}

SEC("tp/sched/sched_process_exit")
int tc_sched_exit_tp(struct trace_event_raw_sched_process_template *ctx)
{
	on_exit(ctx->pid);
	return 0;
}
