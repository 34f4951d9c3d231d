// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * workqueue.bpf.c - the work items kworkers run on the probe CPUs, named by
 * their work function.
 *
 * workqueue_execute_start on a probe CPU opens a slot for the kworker
 * (current) with the work function; workqueue_execute_end emits TC_EV_WORK
 * {start, dur, cpu, func, other_pid/other_comm = the kworker} and frees it.
 *
 * The slot is the kworker's, not the CPU's: a work item may sleep (a mutex, a
 * firmware command: mlx5's page requests wait for the device) or be preempted,
 * and the workqueue then runs another kworker's item on the same CPU, so on
 * one CPU a second start comes before the first item's end (seen here:
 * kworker/1:1H's blk_mq_run_work_fn starting while kworker/u8:3 was inside
 * wb_workfn on CPU 1). A kworker runs one item at a time, from its start to
 * its end. And a record covers only what ran on the CPU: sched_switch on a
 * probe CPU cuts the item where its kworker is switched out (one record per
 * stretch it ran) and resumes it where it is switched back in on a probe CPU,
 * so an item that sleeps while the probe runs is not blamed for that time. The
 * switch is sched.bpf.c's program (one program on sched_switch, not two: an
 * entry costs ~50 ns here), through work.bpf.h and the maps user space shares.
 *
 * An item that starts on another CPU is not followed (an unbound kworker that
 * later moves to a probe CPU keeps its `preemption:kworker/...` name): the
 * filter stays on the probe CPUs. User space flushes the stretches still
 * running at the end of a recording (tracer_read.c).
 */
#include "common.bpf.h"
#include "work.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

static __always_inline void work_start(__u64 func)
{
	__u32 cpu = bpf_get_smp_processor_id(), tid = (__u32)bpf_get_current_pid_tgid();
	struct tc_work_slot *s, fresh = {};
	__u64 now;

	if (!cpu_of_interest(cpu))
		return;
	now = bpf_ktime_get_ns();
	s = bpf_map_lookup_elem(&work_open, &tid);
	if (!s) {
		fresh.start_ns = now;
		fresh.func = func;
		fresh.cpu = cpu;
		bpf_get_current_comm(fresh.comm, sizeof(fresh.comm));
		if (!bpf_map_update_elem(&work_open, &tid, &fresh, BPF_NOEXIST))
			opened_add(1);
		return;
	}
	/*
	 * The kworker's previous item had no end (its end program did not run):
	 * it ran on this CPU at most until this start, which is what it gets.
	 */
	if (s->start_ns && s->start_ns <= now)
		emit_stretch(s, tid, now);
	s->start_ns = now;
	s->func = func;
	s->cpu = cpu;
	bpf_get_current_comm(s->comm, sizeof(s->comm));
}

/* func: the end's own copy of the work function. */
static __always_inline void work_end(__u64 func)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct tc_work_slot *s = bpf_map_lookup_elem(&work_open, &tid);

	/* Looked up on every CPU: an item opened on a probe CPU may end elsewhere. */
	if (!s)
		return;
	/* Another function: the slot is an older item's, this one's start was not seen. */
	if (s->start_ns && s->func == func)
		emit_stretch(s, tid, bpf_ktime_get_ns());
	if (!bpf_map_delete_elem(&work_open, &tid))
		opened_add(-1);
}

/* The work's func field, read where the kernel has it (CO-RE). */
SEC("tp_btf/workqueue_execute_start")
int BPF_PROG(tc_work_start_btf, struct work_struct *work)
{
	work_start((__u64)BPF_CORE_READ(work, func));
	return 0;
}

/*
 * The work may be freed by its own function: only the function argument is read.
 * A function pointer, which BTF context access refuses: read the slot.
 */
SEC("tp_btf/workqueue_execute_end")
int tc_work_end_btf(__u64 *ctx)
{
	__u64 func = 0;

	bpf_probe_read_kernel(&func, sizeof(func), ctx + 1);
	work_end(func);
	return 0;
}

SEC("tp/workqueue/workqueue_execute_start")
int tc_work_start_tp(struct trace_event_raw_workqueue_execute_start *ctx)
{
	work_start((__u64)ctx->function);
	return 0;
}

SEC("tp/workqueue/workqueue_execute_end")
int tc_work_end_tp(struct trace_event_raw_workqueue_execute_end *ctx)
{
	work_end((__u64)ctx->function);
	return 0;
}
