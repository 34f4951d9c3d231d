// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * irq.bpf.c - hard-IRQ and softirq intervals on the probe CPUs.
 *
 * Entry stamps a per-CPU slot, exit emits one interval. CPUs that are not of
 * interest return after one array lookup. IRQ names are resolved in user
 * space from /proc/interrupts. Every hard IRQ on every CPU is also counted
 * per IRQ and CPU (irq_count), never as an event: that is the IRQ placement
 * the report compares with the NIC's NUMA node and the probe CPUs.
 */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define NR_SOFTIRQS_MAX 16

struct irq_slot {
	__u64 start_ns;
	__u32 irq;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct irq_slot);
} irq_start SEC(".maps");

/* Per-CPU start time per softirq vector; the map bounds the index for the verifier. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NR_SOFTIRQS_MAX);
	__type(key, __u32);
	__type(value, __u64);
} softirq_start SEC(".maps");

/* IRQ placement: irq -> handler runs, per CPU, on all CPUs. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} irq_count SEC(".maps");

static __always_inline void count_irq(__u32 irq)
{
	__u64 *n = bpf_map_lookup_elem(&irq_count, &irq), one = 1;

	if (n)
		*n += 1;
	else
		bpf_map_update_elem(&irq_count, &irq, &one, BPF_NOEXIST);
}

static __always_inline void emit(__u16 kind, __u64 start_ns, __u32 cpu, __u32 arg)
{
	struct tc_event *e = event_reserve(kind);

	if (!e)
		return;
	e->start_ns = start_ns;
	e->dur_ns = bpf_ktime_get_ns() - start_ns;
	e->aux = 0;
	e->cpu = cpu;
	e->tid = 0;
	e->arg = arg;
	e->other_pid = 0;
	e->kind = kind;
	e->flags = 0;
	e->pad = 0;
	e->other_comm[0] = 0;
	event_submit(e);
}

static __always_inline void hardirq_entry(int irq)
{
	__u32 zero = 0;
	struct irq_slot *slot;

	count_irq(irq);
	if (!cpu_of_interest(bpf_get_smp_processor_id()))
		return;
	slot = bpf_map_lookup_elem(&irq_start, &zero);
	if (!slot)
		return;
	slot->start_ns = bpf_ktime_get_ns();
	slot->irq = irq;
}

static __always_inline void hardirq_exit(int irq)
{
	__u32 zero = 0, cpu = bpf_get_smp_processor_id();
	struct irq_slot *slot;

	if (!cpu_of_interest(cpu))
		return;
	slot = bpf_map_lookup_elem(&irq_start, &zero);
	if (!slot || !slot->start_ns || slot->irq != (__u32)irq)
		return;
	emit(TC_EV_HARDIRQ, slot->start_ns, cpu, irq);
	slot->start_ns = 0;
}

static __always_inline void softirq_entry(unsigned int vec)
{
	interval_begin(&softirq_start, vec);
}

static __always_inline void softirq_exit(unsigned int vec)
{
	interval_end(&softirq_start, vec, TC_EV_SOFTIRQ, vec);
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(tc_irq_entry_btf, int irq, struct irqaction *action)
{
	hardirq_entry(irq);
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(tc_irq_exit_btf, int irq, struct irqaction *action, int ret)
{
	hardirq_exit(irq);
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(tc_softirq_entry_btf, unsigned int vec)
{
	softirq_entry(vec);
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(tc_softirq_exit_btf, unsigned int vec)
{
	softirq_exit(vec);
	return 0;
}

SEC("tp/irq/irq_handler_entry")
int tc_irq_entry_tp(struct trace_event_raw_irq_handler_entry *ctx)
{
	hardirq_entry(ctx->irq);
	return 0;
}

SEC("tp/irq/irq_handler_exit")
int tc_irq_exit_tp(struct trace_event_raw_irq_handler_exit *ctx)
{
	hardirq_exit(ctx->irq);
	return 0;
}

SEC("tp/irq/softirq_entry")
int tc_softirq_entry_tp(struct trace_event_raw_softirq *ctx)
{
	softirq_entry(ctx->vec);
	return 0;
}

SEC("tp/irq/softirq_exit")
int tc_softirq_exit_tp(struct trace_event_raw_softirq *ctx)
{
	softirq_exit(ctx->vec);
	return 0;
}
