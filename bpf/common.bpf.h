/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * common.bpf.h - maps and helpers every tailcause BPF object shares.
 *
 * Each object declares the same maps; user space creates them once and hands
 * the fds to every object (bpf_map__reuse_fd), so all concerns write one ring
 * buffer and read one filter.
 */
#ifndef TAILCAUSE_COMMON_BPF_H
#define TAILCAUSE_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "events.h"

/* The one ring buffer; its size is set by user space before load. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} events SEC(".maps");

/* Threads of interest: tid -> TC_ROLE_*. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u32);
} probe_tids SEC(".maps");

/*
 * Generation of probe_tids: user space bumps it after each change it makes, so
 * an answer cached elsewhere (sched.bpf.c's task storage) knows when to ask
 * again. 0 while user space has added nothing.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} probe_tids_gen SEC(".maps");

/* CPUs of interest: cpu -> 1. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TC_MAX_CPUS);
	__type(key, __u32);
	__type(value, __u32);
} probe_cpus SEC(".maps");

/* Records the ring buffer had no room for, per CPU and kind (TC_EV_*). Never silent. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TC_DROP_KINDS);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/*
 * Wake the consumer only once this much data waits: a wake-up per event costs
 * >10x the event itself (irq_work + IPI + a context switch), see
 * docs/domain.md, "The cost of tracing". The recorder drains on a timer otherwise.
 */
const volatile __u64 cfg_wakeup_bytes = 1 << 22;

static __always_inline int cpu_of_interest(__u32 cpu)
{
	__u32 *on = bpf_map_lookup_elem(&probe_cpus, &cpu);

	return on && *on;
}

/* Makes cpu a CPU of interest from now on (threads of a traced command ran there). */
static __always_inline void probe_cpu_mark(__u32 cpu)
{
	__u32 *on = bpf_map_lookup_elem(&probe_cpus, &cpu);

	if (on && !*on)
		*on = 1;
}

static __always_inline int tid_of_interest(__u32 tid)
{
	return bpf_map_lookup_elem(&probe_tids, &tid) != NULL;
}

/* Is tid a thread of interest whose own work is measured (a probe's, the command's), not a
 * waker followed for the wait chain (waker.bpf.h), whose iterations are not the run's? */
static __always_inline int tid_of_command(__u32 tid)
{
	__u32 *role = bpf_map_lookup_elem(&probe_tids, &tid);

	return role && *role != TC_ROLE_WAKER;
}

/* A record of kind (TC_EV_*) of a thread or CPU of interest was lost on this CPU. */
static __always_inline void drop_count(__u32 kind)
{
	__u64 *n = bpf_map_lookup_elem(&drops, &kind);

	if (n)
		*n += 1;
}

/* Room for one record of kind, or NULL: then the loss is counted. */
static __always_inline struct tc_event *event_reserve(__u32 kind)
{
	struct tc_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e)
		drop_count(kind);
	return e;
}

static __always_inline void event_submit(struct tc_event *e)
{
	__u64 flags = BPF_RB_NO_WAKEUP;

	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= cfg_wakeup_bytes)
		flags = BPF_RB_FORCE_WAKEUP;
	bpf_ringbuf_submit(e, flags);
}

/*
 * Per-CPU intervals: `starts` is a PERCPU_ARRAY of __u64 start times, one per
 * key (an IPI kind, a softirq vector, a driver function). On a CPU of
 * interest, interval_begin() stamps the slot and interval_end() emits
 * {start, duration, cpu, kind, arg} and clears it.
 */
static __always_inline void interval_begin(void *starts, __u32 key)
{
	__u64 *start;

	if (!cpu_of_interest(bpf_get_smp_processor_id()))
		return;
	start = bpf_map_lookup_elem(starts, &key);
	if (start)
		*start = bpf_ktime_get_ns();
}

static __always_inline void interval_end(void *starts, __u32 key, __u16 kind, __u32 arg)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct tc_event *e;
	__u64 *start;

	if (!cpu_of_interest(cpu))
		return;
	start = bpf_map_lookup_elem(starts, &key);
	if (!start || !*start)
		return;
	e = event_reserve(kind);
	if (e) {
		__builtin_memset(e, 0, sizeof(*e));
		e->start_ns = *start;
		e->dur_ns = bpf_ktime_get_ns() - *start;
		e->cpu = cpu;
		e->kind = kind;
		e->arg = arg;
		event_submit(e);
	}
	*start = 0;
}

/*
 * A task's comm into dst. tp_btf: two loads through the BTF pointer, no helper
 * call (the verifier allows any load inside the comm array). Classic
 * tracepoints: from the record, as always.
 */
static __always_inline void copy_comm(char *dst, const char *src, int btf)
{
	if (btf) {
		((__u64 *)dst)[0] = ((const __u64 *)src)[0];
		((__u64 *)dst)[1] = ((const __u64 *)src)[1];
	} else {
		bpf_probe_read_kernel(dst, TC_COMM_LEN, src);
	}
}

#endif /* TAILCAUSE_COMMON_BPF_H */
