/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * sibling.bpf.h - what runs on the SMT siblings of the probe CPUs, cut at the
 * context switches there (sched.bpf.c's switch program calls sibling_switch() on
 * every CPU that is not a probe CPU): a task that shares the probe CPU's core
 * takes its execution units, which no event of the probe CPU shows.
 */
#ifndef TAILCAUSE_SIBLING_BPF_H
#define TAILCAUSE_SIBLING_BPF_H

#include "common.bpf.h"

/*
 * The SMT siblings of the probe CPUs: sibling_of[cpu] = probe CPU + 1 where cpu
 * shares a core with that probe CPU (0: it does not). Set by user space from the
 * topology; on a machine without SMT nothing is set and nothing is emitted.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TC_MAX_CPUS);
	__type(key, __u32);
	__type(value, __u32);
} sibling_of SEC(".maps");

/* Per CPU: when the task running on a sibling was switched in (0: not yet seen). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sibling_since SEC(".maps");

/*
 * On a sibling of a probe CPU, what ran there until now (not the idle task) is a
 * TC_EV_SIBLING interval: it shared the probe CPU's core meanwhile.
 */
static __always_inline void sibling_switch(__u32 cpu, __u32 prev_pid, const char *prev_comm,
					   int btf)
{
	__u32 zero = 0, *probe = bpf_map_lookup_elem(&sibling_of, &cpu);
	struct tc_event *e;
	__u64 now, *since;

	if (!probe || !*probe)
		return;
	since = bpf_map_lookup_elem(&sibling_since, &zero);
	if (!since)
		return;
	now = bpf_ktime_get_ns();
	if (*since && prev_pid && (e = event_reserve(TC_EV_SIBLING))) {
		__builtin_memset(e, 0, sizeof(*e));
		e->start_ns = *since;
		e->dur_ns = now - *since;
		e->cpu = cpu;
		e->arg = *probe - 1;
		e->other_pid = prev_pid;
		e->kind = TC_EV_SIBLING;
		copy_comm(e->other_comm, prev_comm, btf);
		event_submit(e);
	}
	*since = now;
}

#endif /* TAILCAUSE_SIBLING_BPF_H */
