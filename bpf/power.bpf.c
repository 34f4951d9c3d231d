// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * power.bpf.c - C-state residency and exits, and frequency changes, on the
 * probe CPUs.
 *
 * power:cpu_idle fires with the state on entry and with PWR_EVENT_EXIT
 * ((u32)-1) on exit: entry stamps a per-CPU slot, exit emits TC_EV_IDLE with
 * the state. The analyzer charges a spike the state's exit latency (from
 * sysfs, stored in the trace), not the idle time itself.
 */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define PWR_EVENT_EXIT ((__u32)-1)

struct idle_slot {
	__u64 start_ns;
	__u32 state;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct idle_slot);
} idle_start SEC(".maps");

static __always_inline void emit(__u16 kind, __u64 start, __u64 dur, __u32 cpu, __u32 arg)
{
	struct tc_event *e = event_reserve(kind);

	if (!e)
		return;
	__builtin_memset(e, 0, sizeof(*e));
	e->start_ns = start;
	e->dur_ns = dur;
	e->cpu = cpu;
	e->arg = arg;
	e->kind = kind;
	event_submit(e);
}

static __always_inline void cpu_idle(__u32 state, __u32 cpu)
{
	struct idle_slot *slot;
	__u32 zero = 0;
	__u64 now;

	/* cpu_id is the CPU the event is about, which is the current one */
	if (!cpu_of_interest(cpu))
		return;
	slot = bpf_map_lookup_elem(&idle_start, &zero);
	if (!slot)
		return;
	now = bpf_ktime_get_ns();
	if (state != PWR_EVENT_EXIT) {
		slot->start_ns = now;
		slot->state = state;
		return;
	}
	if (!slot->start_ns)
		return;
	emit(TC_EV_IDLE, slot->start_ns, now - slot->start_ns, cpu, slot->state);
	slot->start_ns = 0;
}

static __always_inline void cpu_frequency(__u32 khz, __u32 cpu)
{
	if (cpu_of_interest(cpu))
		emit(TC_EV_CPU_FREQ, bpf_ktime_get_ns(), 0, cpu, khz);
}

SEC("tp_btf/cpu_idle")
int BPF_PROG(tc_cpu_idle_btf, unsigned int state, unsigned int cpu_id)
{
	cpu_idle(state, cpu_id);
	return 0;
}

SEC("tp_btf/cpu_frequency")
int BPF_PROG(tc_cpu_frequency_btf, unsigned int state, unsigned int cpu_id)
{
	cpu_frequency(state, cpu_id);
	return 0;
}

SEC("tp/power/cpu_idle")
int tc_cpu_idle_tp(struct trace_event_raw_cpu *ctx)
{
	cpu_idle(ctx->state, ctx->cpu_id);
	return 0;
}

SEC("tp/power/cpu_frequency")
int tc_cpu_frequency_tp(struct trace_event_raw_cpu *ctx)
{
	cpu_frequency(ctx->state, ctx->cpu_id);
	return 0;
}
