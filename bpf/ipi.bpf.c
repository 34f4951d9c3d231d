// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ipi.bpf.c - the local timer and IPIs on the probe CPUs (x86 irq_vectors),
 * and IRQ vector moves on any CPU (irqbalance at work).
 *
 * Entry stamps a per-CPU slot per vector kind, exit emits one interval:
 * TC_EV_TIMER for the local timer, TC_EV_IPI with the kind for the others.
 * vector_update emits an instant TC_EV_IRQ_MOVE when an IRQ changes CPU.
 * These tracepoints exist on x86 only; elsewhere the programs are not loaded
 * and `tailcause probes` says so.
 */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define SLOT_TIMER 0	/* the other slots are TC_IPI_* */
#define N_SLOTS 8

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, N_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} vector_start SEC(".maps");

static __always_inline void vec_entry(__u32 slot)
{
	interval_begin(&vector_start, slot);
}

static __always_inline void vec_exit(__u32 slot)
{
	interval_end(&vector_start, slot, slot == SLOT_TIMER ? TC_EV_TIMER : TC_EV_IPI, slot);
}

static __always_inline void vector_moved(__u32 irq, __u32 cpu, __u32 prev_cpu)
{
	struct tc_event *e;

	if (cpu == prev_cpu)
		return;
	e = event_reserve();
	if (!e)
		return;
	__builtin_memset(e, 0, sizeof(*e));
	e->start_ns = bpf_ktime_get_ns();
	e->cpu = cpu;
	e->arg = irq;
	e->aux = prev_cpu;
	e->kind = TC_EV_IRQ_MOVE;
	event_submit(e);
}

/* tp_btf twins: every irq_vectors entry/exit event takes the vector number. */
#define VECTOR_PAIR(name, slot)                                                        \
	SEC("tp_btf/" #name "_entry")                                                  \
	int BPF_PROG(tc_##name##_entry_btf, int vector)                               \
	{                                                                              \
		vec_entry(slot);                                                       \
		return 0;                                                              \
	}                                                                              \
	SEC("tp_btf/" #name "_exit")                                                   \
	int BPF_PROG(tc_##name##_exit_btf, int vector)                                \
	{                                                                              \
		vec_exit(slot);                                                        \
		return 0;                                                              \
	}                                                                              \
	SEC("tp/irq_vectors/" #name "_entry")                                          \
	int tc_##name##_entry_tp(struct trace_event_raw_x86_irq_vector *ctx)          \
	{                                                                              \
		vec_entry(slot);                                                       \
		return 0;                                                              \
	}                                                                              \
	SEC("tp/irq_vectors/" #name "_exit")                                           \
	int tc_##name##_exit_tp(struct trace_event_raw_x86_irq_vector *ctx)           \
	{                                                                              \
		vec_exit(slot);                                                        \
		return 0;                                                              \
	}

VECTOR_PAIR(local_timer, SLOT_TIMER)
VECTOR_PAIR(reschedule, TC_IPI_RESCHEDULE)
VECTOR_PAIR(call_function, TC_IPI_CALL_FUNCTION)
VECTOR_PAIR(call_function_single, TC_IPI_CALL_FUNCTION_SINGLE)
VECTOR_PAIR(irq_work, TC_IPI_IRQ_WORK)

SEC("tp_btf/vector_update")
int BPF_PROG(tc_vector_update_btf, unsigned int irq, unsigned int vector, unsigned int cpu,
	     unsigned int prev_vector, unsigned int prev_cpu)
{
	vector_moved(irq, cpu, prev_cpu);
	return 0;
}

SEC("tp/irq_vectors/vector_update")
int tc_vector_update_tp(struct trace_event_raw_vector_mod *ctx)
{
	vector_moved(ctx->irq, ctx->cpu, ctx->prev_cpu);
	return 0;
}
