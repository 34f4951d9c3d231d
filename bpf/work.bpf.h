/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * work.bpf.h - the work items open on the probe CPUs, shared by workqueue.bpf.c
 * (which opens and closes them at workqueue_execute_start/end) and sched.bpf.c
 * (whose switch program cuts them where their kworker leaves the CPU). User
 * space creates work_open and work_opened once and hands their fds to both.
 *
 * A switch on a probe CPU, where a work item is seldom open, reads work_opened
 * (the open slots) and returns at 0, before the clock or the hash.
 */
#ifndef TAILCAUSE_WORK_BPF_H
#define TAILCAUSE_WORK_BPF_H

#include "common.bpf.h"

/* kworker tid -> the item it runs, opened on a probe CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct tc_work_slot);
} work_open SEC(".maps");

/* How many slots work_open holds: while 0, a switch has no item to cut or resume. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __s64);
} work_opened SEC(".maps");

static __always_inline void opened_add(__s64 d)
{
	__u32 zero = 0;
	__s64 *n = bpf_map_lookup_elem(&work_opened, &zero);

	if (n)
		__sync_fetch_and_add(n, d);
}

/* One record: what the kworker tid ran of its item from s->start_ns until end. */
static __always_inline void emit_stretch(const struct tc_work_slot *s, __u32 tid, __u64 end)
{
	struct tc_event *e = event_reserve(TC_EV_WORK);

	if (!e)
		return;
	__builtin_memset(e, 0, sizeof(*e));
	e->start_ns = s->start_ns;
	e->dur_ns = end - s->start_ns;
	e->func = s->func;
	e->cpu = s->cpu;
	e->other_pid = tid;
	e->kind = TC_EV_WORK;
	__builtin_memcpy(e->other_comm, s->comm, TC_COMM_LEN);
	event_submit(e);
}

/* On a probe CPU: prev's running item stops there, next's paused one resumes. */
static __always_inline void work_switch(__u32 prev, __u32 next)
{
	__u32 cpu = bpf_get_smp_processor_id(), zero = 0;
	__s64 *opened = bpf_map_lookup_elem(&work_opened, &zero);
	struct tc_work_slot *s;
	__u64 now;

	if (!opened || *opened <= 0 || !cpu_of_interest(cpu))
		return;
	now = bpf_ktime_get_ns();
	s = bpf_map_lookup_elem(&work_open, &prev);
	if (s && s->start_ns) {
		emit_stretch(s, prev, now);
		s->start_ns = 0;
	}
	s = bpf_map_lookup_elem(&work_open, &next);
	if (s && !s->start_ns) {
		s->start_ns = now;
		s->cpu = cpu;
	}
}

#endif /* TAILCAUSE_WORK_BPF_H */
