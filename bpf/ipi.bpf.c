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
 *
 * Delivery: ipi_send_cpu/ipi_send_cpumask stamp when the first IPI still
 * pending for a CPU of interest was sent; its next IPI entry takes the stamp
 * into the event's sent_ns. Under a hypervisor the target vCPU stops for the
 * delivery (tens of us here), and that is part of what the IPI cost the
 * probe. A send answered without an IPI (the target polled in idle) clears
 * it. A csd function run inside the IPI that is RPS's trigger marks the IPI
 * TC_IPI_RPS: it is the NET_RX softirq's work; one that is the scheduler's
 * queued wake-ups (sched_ttwu_pending) marks it TC_IPI_TTWU: a remote wake-up,
 * as a reschedule IPI is between CPUs that share a cache (kernels >= 6.6 have
 * these tracepoints; elsewhere sent_ns stays 0 and no IPI is marked).
 */
#include "common.bpf.h"
#include "steal.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define SLOT_TIMER 0 /* the other slots are TC_IPI_* */
#define N_SLOTS	   8

/* Only sends this recent count as the delivery of the IPI that follows. */
#define DELIVERY_MAX_NS 10000000ull

/* Possible CPUs (words of a cpumask worth reading), set by user space. */
const volatile __u32 cfg_nr_cpus = 1;

struct vec_slot {
	__u64 start; /* entry of the handler running now (0: none) */
	__u64 sent;  /* when the IPI it serves was sent (0: unknown) */
	__u32 flags; /* TC_IPI_* flags seen inside it */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, N_SLOTS);
	__type(key, __u32);
	__type(value, struct vec_slot);
} vector_start SEC(".maps");

/* Per target CPU: when the first IPI not yet handled there was sent (0: none). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TC_MAX_CPUS);
	__type(key, __u32);
	__type(value, __u64);
} ipi_sent SEC(".maps");

extern const void rps_trigger_softirq __ksym __weak;
extern const void sched_ttwu_pending __ksym __weak;

static __always_inline void vec_entry(__u32 slot)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct vec_slot *v;
	__u64 now, *sent;

	if (!cpu_of_interest(cpu))
		return;
	v = bpf_map_lookup_elem(&vector_start, &slot);
	if (!v)
		return;
	now = bpf_ktime_get_ns();
	v->start = now;
	v->sent = 0;
	v->flags = 0;
	if (slot == SLOT_TIMER)
		return;
	sent = bpf_map_lookup_elem(&ipi_sent, &cpu);
	if (sent && *sent) {
		if (*sent <= now && now - *sent <= DELIVERY_MAX_NS)
			v->sent = *sent;
		*sent = 0;
	}
}

static __always_inline void vec_exit(__u32 slot)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct tc_event *e;
	struct vec_slot *v;
	__u64 now;

	if (!cpu_of_interest(cpu))
		return;
	v = bpf_map_lookup_elem(&vector_start, &slot);
	if (!v || !v->start)
		return;
	now = bpf_ktime_get_ns();
	if (slot == SLOT_TIMER)
		steal_read(cpu, now); /* the tick has updated the run-queue clock, and its steal */
	e = event_reserve(slot == SLOT_TIMER ? TC_EV_TIMER : TC_EV_IPI);
	if (e) {
		__builtin_memset(e, 0, sizeof(*e));
		e->start_ns = v->start;
		e->dur_ns = now - v->start;
		e->sent_ns = v->sent;
		e->cpu = cpu;
		e->kind = slot == SLOT_TIMER ? TC_EV_TIMER : TC_EV_IPI;
		e->arg = slot;
		e->flags = v->flags;
		event_submit(e);
	}
	v->start = 0;
}

static __always_inline void ipi_sent_to(__u32 cpu)
{
	__u64 *sent;

	if (!cpu_of_interest(cpu))
		return;
	sent = bpf_map_lookup_elem(&ipi_sent, &cpu);
	if (sent && !*sent)
		*sent = bpf_ktime_get_ns();
}

/* words: the cpumask's bits, read one word at a time. */
static __always_inline void ipi_sent_to_mask(const unsigned long *words)
{
	for (__u32 i = 0; i < TC_MAX_CPUS / 64 && i * 64 < cfg_nr_cpus; i++) {
		unsigned long w = 0;

		if (bpf_probe_read_kernel(&w, sizeof(w), words + i))
			return;
		for (__u32 b = 0; b < 64 && w; b++, w >>= 1)
			if (w & 1)
				ipi_sent_to(i * 64 + b);
	}
}

/* The target handled the call without an IPI: nothing is in flight. */
static __always_inline void woke_without_ipi(__u32 cpu)
{
	__u64 *sent = bpf_map_lookup_elem(&ipi_sent, &cpu);

	if (sent)
		*sent = 0;
}

static __always_inline void csd_function(const void *func)
{
	__u32 slots[2] = {TC_IPI_CALL_FUNCTION_SINGLE, TC_IPI_CALL_FUNCTION};
	__u16 flag;

	if (!func)
		return;
	if (func == &rps_trigger_softirq)
		flag = TC_IPI_RPS;
	else if (func == &sched_ttwu_pending)
		flag = TC_IPI_TTWU;
	else
		return;
	if (!cpu_of_interest(bpf_get_smp_processor_id()))
		return;
	for (int i = 0; i < 2; i++) {
		struct vec_slot *v = bpf_map_lookup_elem(&vector_start, &slots[i]);

		if (v && v->start)
			v->flags |= flag;
	}
}

static __always_inline void vector_moved(__u32 irq, __u32 cpu, __u32 prev_cpu)
{
	struct tc_event *e;

	if (cpu == prev_cpu)
		return;
	e = event_reserve(TC_EV_IRQ_MOVE);
	if (!e)
		return;
	__builtin_memset(e, 0, sizeof(*e));
	e->start_ns = bpf_ktime_get_ns();
	e->cpu = cpu;
	e->arg = irq;
	e->from_cpu = prev_cpu;
	e->kind = TC_EV_IRQ_MOVE;
	event_submit(e);
}

/* tp_btf twins: every irq_vectors entry/exit event takes the vector number. */
#define VECTOR_PAIR(name, slot)                                                                    \
	SEC("tp_btf/" #name "_entry")                                                              \
	int BPF_PROG(tc_##name##_entry_btf, int vector)                                            \
	{                                                                                          \
		vec_entry(slot);                                                                   \
		return 0;                                                                          \
	}                                                                                          \
	SEC("tp_btf/" #name "_exit")                                                               \
	int BPF_PROG(tc_##name##_exit_btf, int vector)                                             \
	{                                                                                          \
		vec_exit(slot);                                                                    \
		return 0;                                                                          \
	}                                                                                          \
	SEC("tp/irq_vectors/" #name "_entry")                                                      \
	int tc_##name##_entry_tp(struct trace_event_raw_x86_irq_vector *ctx)                       \
	{                                                                                          \
		vec_entry(slot);                                                                   \
		return 0;                                                                          \
	}                                                                                          \
	SEC("tp/irq_vectors/" #name "_exit")                                                       \
	int tc_##name##_exit_tp(struct trace_event_raw_x86_irq_vector *ctx)                        \
	{                                                                                          \
		vec_exit(slot);                                                                    \
		return 0;                                                                          \
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

SEC("tp_btf/ipi_send_cpu")
int BPF_PROG(tc_ipi_send_cpu_btf, unsigned int cpu)
{
	ipi_sent_to(cpu);
	return 0;
}

SEC("tp_btf/ipi_send_cpumask")
int BPF_PROG(tc_ipi_send_mask_btf, const struct cpumask *mask)
{
	ipi_sent_to_mask(mask->bits);
	return 0;
}

SEC("tp_btf/sched_wake_idle_without_ipi")
int BPF_PROG(tc_wake_no_ipi_btf, int cpu)
{
	woke_without_ipi(cpu);
	return 0;
}

/* func is a function pointer, which BTF context access refuses: read the slot. */
SEC("tp_btf/csd_function_entry")
int tc_csd_function_btf(__u64 *ctx)
{
	__u64 func = 0;

	bpf_probe_read_kernel(&func, sizeof(func), ctx);
	csd_function((const void *)func);
	return 0;
}

SEC("tp/ipi/ipi_send_cpu")
int tc_ipi_send_cpu_tp(struct trace_event_raw_ipi_send_cpu *ctx)
{
	ipi_sent_to(ctx->cpu);
	return 0;
}

SEC("tp/ipi/ipi_send_cpumask")
int tc_ipi_send_mask_tp(struct trace_event_raw_ipi_send_cpumask *ctx)
{
	ipi_sent_to_mask((const unsigned long *)((char *)ctx + (ctx->__data_loc_cpumask & 0xffff)));
	return 0;
}

SEC("tp/sched/sched_wake_idle_without_ipi")
int tc_wake_no_ipi_tp(struct trace_event_raw_sched_wake_idle_without_ipi *ctx)
{
	woke_without_ipi(ctx->cpu);
	return 0;
}

SEC("tp/csd/csd_function_entry")
int tc_csd_function_tp(struct trace_event_raw_csd_function *ctx)
{
	csd_function(ctx->func);
	return 0;
}

SEC("tp/irq_vectors/vector_update")
int tc_vector_update_tp(struct trace_event_raw_vector_mod *ctx)
{
	vector_moved(ctx->irq, ctx->cpu, ctx->prev_cpu);
	return 0;
}
