// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * iter.bpf.c - iteration markers: a thread of a traced command reached the
 * point where its benchmark's iteration begins or ends (record --iter).
 *
 * None of these programs attaches by itself: what they mark is the user's
 * choice, made at run time (record/bpf/tracer_marks.c attaches them):
 *   tc_iter_uprobe     a user-space function's entry (a uprobe on a library or
 *                      executable: perftest's provider post_send, any FUNC);
 *   tc_iter_sys_enter  a system call's entry (syscalls:sys_enter_NAME);
 *   tc_iter_sys_exit   its successful return (syscalls:sys_exit_NAME, ret >= 0:
 *                      a non-blocking receive that found nothing ends nothing).
 * Each hit by a thread of interest is one TC_EV_MARK instant on the tracers'
 * clock: start = now, cpu, tid, arg = TC_MARK_BEGIN or TC_MARK_END. Iterations
 * are made from them by the report (core/iter/iter_samples.c), not here: a mark costs
 * one ring-buffer record and nothing is kept between hits.
 */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* The common layout of syscalls:sys_exit_* records (tracefs .../format). */
struct sys_exit_args {
	__u64 common;
	__s32 syscall_nr;
	__s32 pad;
	__s64 ret;
};

/*
 * --iter-first K: [0] the marks allowed (0: no limit), [1] the marks made. User space
 * sets the budget once its own calibration marks are done, and detaches the programs
 * when it has seen them all (their traps cost until then, their records not).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} mark_budget SEC(".maps");

/* 0: over budget; 1: within it; 2: the last one (the drain wakes for it, to detach). */
static __always_inline int within_budget(void)
{
	__u32 k_budget = 0, k_used = 1;
	__u64 *budget = bpf_map_lookup_elem(&mark_budget, &k_budget);
	__u64 *used = bpf_map_lookup_elem(&mark_budget, &k_used);
	__u64 n;

	if (!budget || !used || !*budget)
		return 1;
	n = __sync_fetch_and_add(used, 1);
	return n + 1 < *budget ? 1 : n + 1 == *budget ? 2 : 0;
}

static __always_inline void mark(__u32 what)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct tc_event *e;

	int budget;

	if (!tid_of_command(tid))
		return;
	budget = within_budget();
	if (!budget)
		return;
	e = event_reserve(TC_EV_MARK);
	if (!e)
		return;
	__builtin_memset(e, 0, sizeof(*e));
	e->start_ns = bpf_ktime_get_ns();
	e->cpu = bpf_get_smp_processor_id();
	e->tid = tid;
	e->arg = what;
	e->kind = TC_EV_MARK;
	if (budget == 2)
		bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP); /* now, not at the next drain */
	else
		event_submit(e);
}

SEC("uprobe")
int tc_iter_uprobe(struct pt_regs *ctx)
{
	mark(TC_MARK_BEGIN);
	return 0;
}

SEC("tracepoint")
int tc_iter_sys_enter(void *ctx)
{
	mark(TC_MARK_BEGIN);
	return 0;
}

SEC("tracepoint")
int tc_iter_sys_exit(struct sys_exit_args *ctx)
{
	if (ctx->ret >= 0)
		mark(TC_MARK_END);
	return 0;
}
