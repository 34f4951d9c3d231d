// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * sched.bpf.c - off-CPU intervals of the probe threads, their wake-ups and
 * migrations, and the threads of a traced command as they are created.
 *
 * When a probe thread is switched out, its slot is stamped with the time, the
 * CPU and whether it was preempted. While it is off, each switch on that CPU
 * times the task that just ran and keeps the longest runner (per CPU, struct
 * tc_sched_cpu). When it is switched back in, one TC_EV_OFFCPU interval is
 * emitted, with when it became runnable again (so blocked time and run-queue
 * wait can be told apart): on the tp_btf path, where the kernel keeps
 * sched_info, read at that switch from the kernel's own accounting; else
 * stamped by a sched_wakeup program, which runs on every wake-up in the system.
 *
 * On the tp_btf path each task's role and slot live in its task storage,
 * created on its first switch: a switch of tasks not of interest costs two
 * task-storage lookups (a pointer walk), not two hash lookups. The storage
 * caches the role with the probe_tids generation it was read at and asks
 * probe_tids again when user space has changed it. The classic-tracepoint
 * twins keep the role in probe_tids and the slot in the hash offcpu_start.
 */
#include "common.bpf.h"
#include "sched_info.bpf.h"
#include "sibling.bpf.h"
#include "steal.bpf.h"
#include "work.bpf.h"
#include "waker.bpf.h"
#include "compat.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Follow the children of TC_ROLE_TARGET threads and mark the CPUs they run on. */
const volatile __u32 cfg_follow_children = 0;

/*
 * Set by user space where the kernel keeps sched_info (CONFIG_SCHED_INFO) and a CFS
 * run queue knows its run queue (CONFIG_FAIR_GROUP_SCHED): the tp_btf switch then
 * reads the wake-up from there and tc_sched_wakeup_btf is not loaded.
 */
const volatile __u32 cfg_sched_info = 0;

/* The classic-tracepoint path: tid -> slot, created on a thread's first switch-out. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct tc_offcpu_slot);
} offcpu_start SEC(".maps");

/* The tp_btf path: every task that switches gets one (freed with the task). */
struct task_state {
	struct tc_offcpu_slot slot;
	__u32 gen;  /* probe_tids_gen when role was read from probe_tids */
	__u32 role; /* TC_ROLE_*, 0: not of interest */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_state);
} task_state SEC(".maps");

/* Per probe CPU: when the last switch happened and who ran longest for each waiter. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tc_sched_cpu);
} cpu_state SEC(".maps");

/* prev ran from the last switch until now: keep it where it is the longest runner so far. */
static __always_inline void account_runner(struct tc_sched_cpu *cs, __u64 now, __u32 prev_tid,
					   const char *prev_comm, int btf)
{
	__u64 ran = now - cs->last_switch_ns;

	for (int i = 0; i < TC_SCHED_WAITERS; i++) {
		struct tc_sched_waiter *w = &cs->waiters[i];

		if (!w->start_ns || w->tid == prev_tid || ran <= w->top_ns)
			continue;
		w->top_ns = ran;
		w->top_pid = prev_tid;
		copy_comm(w->top_comm, prev_comm, btf);
	}
}

/* The interval of slot, ended at end on cpu; flags adds to what the slot says. */
static __always_inline void emit_offcpu(const struct tc_offcpu_slot *slot,
					const struct tc_sched_waiter *w, __u64 end, __u32 tid,
					__u32 cpu, __u16 flags)
{
	struct tc_event *e = event_reserve(TC_EV_OFFCPU);

	if (!e)
		return;
	e->start_ns = slot->start_ns;
	e->dur_ns = end - slot->start_ns;
	/* an interval whose end is unknown tells no wake-up either */
	e->woken_after_ns = slot->woken_ns > slot->start_ns && !(flags & TC_OFFCPU_UNENDED)
				    ? slot->woken_ns - slot->start_ns
				    : 0;
	e->cpu = slot->cpu;
	e->tid = tid;
	e->arg = slot->state;
	e->kind = TC_EV_OFFCPU;
	e->flags = flags | (slot->preempted ? TC_OFFCPU_PREEMPTED : 0) |
		   (cpu != slot->cpu ? TC_OFFCPU_MIGRATED : 0);
	e->pad = 0;
	if (w) {
		e->other_pid = w->top_pid;
		__builtin_memcpy(e->other_comm, w->top_comm, TC_COMM_LEN);
	} else {
		e->other_pid = slot->top_pid;
		__builtin_memcpy(e->other_comm, slot->top_comm, TC_COMM_LEN);
	}
	event_submit(e);
}

/*
 * The slot is filled in place on every switch-out and marked idle
 * (start_ns = 0) on switch-in, never deleted: an insert and a delete per
 * switch would cost more than everything else here.
 */
static __always_inline void switch_out(struct tc_sched_cpu *cs, struct tc_offcpu_slot *slot,
				       __u64 now, __u32 tid, int preempted, __u32 state,
				       __u32 next_pid, const char *next_comm, int btf)
{
	/*
	 * Still open: the switch back in was never reported. Some hosts hide a task
	 * of their own from sched_switch (seen here: the sandbox's agent is switched
	 * to, never from). The interval is kept as an instant, its end unknown.
	 */
	if (slot->start_ns)
		emit_offcpu(slot, NULL, slot->start_ns, tid, slot->cpu, TC_OFFCPU_UNENDED);
	slot->start_ns = now;
	slot->woken_ns = 0;
	slot->cpu = bpf_get_smp_processor_id();
	slot->state = state;
	slot->top_pid = next_pid; /* until a runner finishes, whoever runs first */
	slot->preempted = preempted;
	copy_comm(slot->top_comm, next_comm, btf);
	if (cs) {
		struct tc_sched_waiter *w = &cs->waiters[tid % TC_SCHED_WAITERS];

		w->start_ns = now;
		w->top_ns = 0;
		w->tid = tid;
	}
}

/*
 * The runner kept for slot's interval on the CPU it left (cs when that is this
 * CPU), or NULL: not a probe CPU, no runner finished yet, or the entry was
 * taken by another waiter. Another CPU's entry is read without a lock: at worst
 * a runner that is being replaced.
 */
static __always_inline struct tc_sched_waiter *waiter_of(struct tc_sched_cpu *cs,
							 const struct tc_offcpu_slot *slot,
							 __u32 tid, __u32 cpu)
{
	struct tc_sched_waiter *w;
	__u32 zero = 0;

	if (slot->cpu != cpu) {
		if (!bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_map_lookup_percpu_elem))
			return NULL;
		cs = bpf_map_lookup_percpu_elem(&cpu_state, &zero, slot->cpu);
	}
	if (!cs)
		return NULL;
	w = &cs->waiters[tid % TC_SCHED_WAITERS];
	if (w->tid != tid || w->start_ns != slot->start_ns || !w->top_ns)
		return NULL;
	return w;
}

static __always_inline void switch_in(struct tc_sched_cpu *cs, struct tc_offcpu_slot *slot,
				      __u64 now, __u32 tid)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct tc_sched_waiter *w;

	if (cfg_follow_children)
		probe_cpu_mark(cpu);
	if (!slot || !slot->start_ns)
		return;
	w = waiter_of(cs, slot, tid, cpu);
	emit_offcpu(slot, w, now, tid, cpu, 0);
	if (cs && slot->cpu == cpu)
		cs->waiters[tid % TC_SCHED_WAITERS].start_ns = 0;
	slot->start_ns = 0;
}

/* Runner accounting only on probe CPUs (NULL elsewhere); a probe thread is followed anywhere. */
static __always_inline struct tc_sched_cpu *account_switch(__u64 *now, __u32 prev_tid,
							   const char *prev_comm, int btf)
{
	__u32 zero = 0;
	struct tc_sched_cpu *cs;

	if (!cpu_of_interest(bpf_get_smp_processor_id())) {
		sibling_switch(bpf_get_smp_processor_id(), prev_tid, prev_comm, btf);
		return NULL;
	}
	*now = bpf_ktime_get_ns();
	/* __schedule() has just updated this CPU's run-queue clock, and its steal */
	steal_read(bpf_get_smp_processor_id(), *now);
	cs = bpf_map_lookup_elem(&cpu_state, &zero);
	if (cs) {
		account_runner(cs, *now, prev_tid, prev_comm, btf);
		cs->last_switch_ns = *now;
	}
	return cs;
}

/* The classic-tracepoint path: the slot in offcpu_start, created on first use. */
static __always_inline struct tc_offcpu_slot *hash_slot(__u32 tid)
{
	struct tc_offcpu_slot *slot = bpf_map_lookup_elem(&offcpu_start, &tid), fresh = {};

	if (slot)
		return slot;
	bpf_map_update_elem(&offcpu_start, &tid, &fresh, BPF_NOEXIST);
	return bpf_map_lookup_elem(&offcpu_start, &tid);
}

static __always_inline void on_switch_tp(int preempt, __u32 prev_tid, __u32 prev_state,
					 const char *prev_comm, __u32 next_tid,
					 const char *next_comm)
{
	struct tc_offcpu_slot *slot;
	struct tc_sched_cpu *cs;
	__u64 now = 0;

	cs = account_switch(&now, prev_tid, prev_comm, 0);
	if (tid_of_interest(prev_tid) && (slot = hash_slot(prev_tid))) {
		now = now ?: bpf_ktime_get_ns();
		switch_out(cs, slot, now, prev_tid, preempt, prev_state, next_tid, next_comm, 0);
	}
	if (tid_of_interest(next_tid)) {
		now = now ?: bpf_ktime_get_ns();
		switch_in(cs, bpf_map_lookup_elem(&offcpu_start, &next_tid), now, next_tid);
	}
}

/*
 * p's state if p is a thread of interest, else NULL. Created on p's first
 * switch; the role is read from probe_tids again when its generation moved
 * (the generation is read first, so a change racing with the lookup is seen
 * next time). Without storage (no memory) a thread of interest loses its
 * record, counted as a drop.
 */
static __always_inline struct task_state *state_of_interest(struct task_struct *p)
{
	__u32 zero = 0, tid, gen, *role, *cur = bpf_map_lookup_elem(&probe_tids_gen, &zero);
	struct task_state *ts;

	ts = bpf_task_storage_get(&task_state, p, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!ts) {
		if (tid_of_interest(p->pid))
			drop_count(TC_EV_OFFCPU);
		return NULL;
	}
	gen = cur ? *cur : 0;
	if (ts->gen != gen) {
		tid = p->pid;
		role = bpf_map_lookup_elem(&probe_tids, &tid);
		ts->role = role ? *role : 0;
		ts->gen = gen;
	}
	return ts->role ? ts : NULL;
}

static __always_inline void on_switch_btf(int preempt, struct task_struct *prev, __u32 prev_state,
					  struct task_struct *next)
{
	__u64 now = 0, clock = 0;
	struct task_state *ts;
	struct tc_sched_cpu *cs;

	cs = account_switch(&now, prev->pid, prev->comm, 1);
	ts = state_of_interest(prev);
	if (ts) {
		now = now ?: bpf_ktime_get_ns();
		switch_out(cs, &ts->slot, now, prev->pid, preempt, prev_state, next->pid,
			   next->comm, 1);
		if (cfg_sched_info) {
			clock = rq_clock_of(prev);
			stamp_sched_info(&ts->slot, prev, clock);
		}
	}
	ts = state_of_interest(next);
	if (ts) {
		now = now ?: bpf_ktime_get_ns();
		if (cfg_sched_info)
			woken_from_sched_info(&ts->slot, next, clock ?: rq_clock_of(next), now);
		switch_in(cs, &ts->slot, now, next->pid);
	}
}

static __always_inline void stamp_woken(struct tc_offcpu_slot *slot)
{
	if (slot && slot->start_ns && !slot->woken_ns)
		slot->woken_ns = bpf_ktime_get_ns();
}

static __always_inline void on_migrate(__u32 tid, __u32 from, __u32 to)
{
	struct tc_event *e;

	if (!tid_of_interest(tid))
		return;
	e = event_reserve(TC_EV_MIGRATE);
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

/* Adds child to probe_tids when its parent is a followed command thread; 1 if it did. */
static __always_inline int on_fork(__u32 parent, __u32 child)
{
	__u32 *role, target = TC_ROLE_TARGET;

	if (!cfg_follow_children)
		return 0;
	role = bpf_map_lookup_elem(&probe_tids, &parent);
	if (!role || *role != TC_ROLE_TARGET)
		return 0;
	return bpf_map_update_elem(&probe_tids, &child, &target, BPF_ANY) == 0;
}

/* Removes a followed thread from the filter; 1 if it was one. */
static __always_inline int on_exit(__u32 tid)
{
	__u32 *role = bpf_map_lookup_elem(&probe_tids, &tid);

	/* Only followed threads leave the filter; probe threads are removed by user space. */
	if (!role || (*role != TC_ROLE_TARGET && *role != TC_ROLE_WAKER))
		return 0;
	bpf_map_delete_elem(&probe_tids, &tid);
	bpf_map_delete_elem(&offcpu_start, &tid);
	return 1;
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
int BPF_PROG(tc_sched_switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	/* Direct loads through the BTF-typed pointers: no helper call on this hot path. */
	__u32 state = get_task_state(prev);

	on_switch_btf(preempt || state == 0, prev, state, next);
	work_switch(prev->pid, next->pid);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(tc_sched_wakeup_btf, struct task_struct *p)
{
	struct task_state *ts = bpf_task_storage_get(&task_state, p, NULL, 0);

	/* No storage: p never switched while traced, so it has no open slot. */
	if (ts)
		stamp_woken(&ts->slot);
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(tc_sched_waking_btf, struct task_struct *p)
{
	struct task_state *woken = state_of_interest(p), *ts = NULL;
	struct task_struct *cur;
	__u64 pid_tgid;
	int traced;

	if (!woken)
		return 0;
	cur = bpf_get_current_task_btf();
	pid_tgid = off_task_stack((__u64)(long)cur->stack) ? 0 : bpf_get_current_pid_tgid();
	if (!waker_changed(&woken->slot, pid_tgid))
		return 0;
	traced = pid_tgid && state_of_interest(cur);
	if (pid_tgid && !traced) /* created by state_of_interest(): it learns the role */
		ts = bpf_task_storage_get(&task_state, cur, NULL, 0);
	emit_waking(p->pid, pid_tgid, traced, ts ? &ts->role : NULL, ts ? &ts->gen : NULL);
	return 0;
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(tc_sched_migrate_btf, struct task_struct *p, int dest_cpu)
{
	on_migrate(BPF_CORE_READ(p, pid), task_cpu(p), dest_cpu);
	return 0;
}

/* The child is not running yet: give it its role now, so its first switch needs no lookup. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(tc_sched_fork_btf, struct task_struct *parent, struct task_struct *child)
{
	__u32 zero = 0, *gen = bpf_map_lookup_elem(&probe_tids_gen, &zero);
	struct task_state *ts;

	if (!on_fork(parent->pid, child->pid))
		return 0;
	ts = bpf_task_storage_get(&task_state, child, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (ts) {
		ts->gen = gen ? *gen : 0;
		ts->role = TC_ROLE_TARGET;
	}
	return 0;
}

/* The role goes with the thread: its last switch-out (after this) is not an interval. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(tc_sched_exit_btf, struct task_struct *p)
{
	struct task_state *ts;

	if (!on_exit(p->pid))
		return 0;
	ts = bpf_task_storage_get(&task_state, p, NULL, 0);
	if (ts) {
		ts->role = 0;
		ts->slot.start_ns = 0;
	}
	return 0;
}

/*
 * End of a recording: every slot still open in task storage, as a
 * TC_EV_OFFCPU record without its end (user space closes it at "now").
 */
SEC("iter/task")
int tc_sched_open_iter(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct tc_event e = {};
	struct task_state *ts;

	if (!task)
		return 0;
	ts = bpf_task_storage_get(&task_state, task, NULL, 0);
	if (!ts || !ts->role || !ts->slot.start_ns)
		return 0;
	if (cfg_sched_info)
		woken_from_sched_info(&ts->slot, task, rq_clock_of(task), bpf_ktime_get_ns());
	e.start_ns = ts->slot.start_ns;
	e.woken_after_ns = ts->slot.woken_ns > e.start_ns ? ts->slot.woken_ns - e.start_ns : 0;
	e.cpu = ts->slot.cpu;
	e.tid = task->pid;
	e.arg = ts->slot.state;
	e.other_pid = ts->slot.top_pid;
	e.kind = TC_EV_OFFCPU;
	e.flags = ts->slot.preempted ? TC_OFFCPU_PREEMPTED : 0;
	__builtin_memcpy(e.other_comm, ts->slot.top_comm, TC_COMM_LEN);
	bpf_seq_write(ctx->meta->seq, &e, sizeof(e));
	return 0;
}

/* Classic tracepoint fallbacks: prev_state == TASK_RUNNING means preempted. */
SEC("tp/sched/sched_switch")
int tc_sched_switch_tp(struct trace_event_raw_sched_switch *ctx)
{
	__u32 state = (__u32)ctx->prev_state;

	on_switch_tp(state == 0, ctx->prev_pid, state, ctx->prev_comm, ctx->next_pid,
		     ctx->next_comm);
	work_switch(ctx->prev_pid, ctx->next_pid);
	return 0;
}

SEC("tp/sched/sched_wakeup")
int tc_sched_wakeup_tp(struct trace_event_raw_sched_wakeup_template *ctx)
{
	__u32 tid = ctx->pid;

	stamp_woken(bpf_map_lookup_elem(&offcpu_start, &tid));
	return 0;
}

SEC("tp/sched/sched_waking")
int tc_sched_waking_tp(struct trace_event_raw_sched_wakeup_template *ctx)
{
	struct task_struct *cur;
	__u64 pid_tgid;

	if (!tid_of_interest(ctx->pid))
		return 0;
	cur = (struct task_struct *)bpf_get_current_task();
	pid_tgid = off_task_stack((__u64)(long)BPF_CORE_READ(cur, stack))
			   ? 0
			   : bpf_get_current_pid_tgid();
	if (!waker_changed(hash_slot(ctx->pid), pid_tgid))
		return 0;
	emit_waking(ctx->pid, pid_tgid, pid_tgid && tid_of_interest((__u32)pid_tgid), NULL, NULL);
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
