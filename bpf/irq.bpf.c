// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * irq.bpf.c - hard-IRQ, softirq and NMI intervals on the probe CPUs.
 *
 * Entry stamps a per-CPU slot, exit emits one interval. CPUs that are not of
 * interest return after one array lookup. An NMI handler is one event:
 * nmi_handler fires after it returned, with how long it ran (perf sampling,
 * the NMI watchdog, a backtrace request). IRQ names are resolved in user
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

static __always_inline void emit(__u16 kind, __u64 start_ns, __u32 cpu, __u32 arg, __u64 aux)
{
	struct tc_event *e = event_reserve(kind);

	if (!e)
		return;
	e->start_ns = start_ns;
	e->dur_ns = bpf_ktime_get_ns() - start_ns;
	e->aux = aux;
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
	emit(TC_EV_HARDIRQ, slot->start_ns, cpu, irq, 0);
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

/*
 * In NMI context the ring buffer only tries its lock (the code the NMI interrupted
 * may hold it): when that fails reserve returns NULL as for a full ring, and
 * event_reserve() counts the record in drops. delta_ns is the handler's own
 * sched_clock() time, as close to the trace clock as the kernel offers; a negative
 * one (it cannot be) makes an instant. Every handler of an NMI reports, handled
 * or not (arg 0: not its NMI).
 */
static __always_inline void nmi_handler(const void *handler, __s64 delta_ns, int handled)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u64 now, d;

	if (!cpu_of_interest(cpu))
		return;
	now = bpf_ktime_get_ns();
	d = delta_ns > 0 && (__u64)delta_ns < now ? (__u64)delta_ns : 0;
	emit(TC_EV_NMI, now - d, cpu, handled != 0, (__u64)handler);
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

SEC("tp_btf/nmi_handler")
int BPF_PROG(tc_nmi_handler_btf, void *handler, s64 delta_ns, int handled)
{
	nmi_handler(handler, delta_ns, handled);
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

SEC("tp/nmi/nmi_handler")
int tc_nmi_handler_tp(struct trace_event_raw_nmi_handler *ctx)
{
	nmi_handler(ctx->handler, ctx->delta_ns, ctx->handled);
	return 0;
}
