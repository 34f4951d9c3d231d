// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * timer.bpf.c - the timer callbacks that run on the probe CPUs: hrtimers
 * (hrtimer_expire_entry .. exit) and timer-list timers (timer_expire_entry ..
 * exit), each a TC_EV_TIMER_FN with the callback in func. The analyzer names
 * a local timer interrupt or a TIMER/HRTIMER softirq by the callback that ran
 * inside it: the tick (which nohz_full removes) or someone's timer (which it
 * does not).
 *
 * These fire on every CPU, the tick alone a few hundred times a second: the
 * CPU filter comes first and the programs stay short.
 *
 * Nesting: a callback runs in one of three contexts, and only a later context
 * can interrupt an earlier one on a CPU: a timer-list callback (TIMER softirq)
 * or a soft hrtimer's (HRTIMER softirq) runs with interrupts on, so a hard
 * hrtimer's (the timer interrupt) may run inside it. Softirqs do not nest and
 * the timer interrupt runs with interrupts off, so one slot per context is
 * enough: a slot is never reentered, and one left open (its exit not seen) is
 * simply overwritten by the next entry. hrtimer.is_soft says which context an
 * hrtimer's callback runs in (on PREEMPT_RT too, where it is set for every
 * timer not marked hard). An exit closes the slot that holds its timer.
 */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define SLOT_LIST    0 /* timer-list callback, TIMER softirq */
#define SLOT_HR_SOFT 1 /* soft hrtimer, HRTIMER softirq */
#define SLOT_HR_HARD 2 /* hard hrtimer, the timer interrupt */
#define N_SLOTS	     3

struct fn_slot {
	__u64 start; /* 0: closed */
	__u64 timer; /* the timer_list or hrtimer, to match the exit */
	__u64 func;
};

struct fn_slots {
	struct fn_slot s[N_SLOTS];
};

/* One entry per CPU holding all three slots: one lookup per event. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fn_slots);
} timer_open SEC(".maps");

/* This CPU's slots, or NULL when it is not a probe CPU. */
static __always_inline struct fn_slots *probe_cpu_slots(void)
{
	__u32 zero = 0;

	if (!cpu_of_interest(bpf_get_smp_processor_id()))
		return NULL;
	return bpf_map_lookup_elem(&timer_open, &zero);
}

static __always_inline void slot_open(struct fn_slot *s, const void *timer, const void *func)
{
	s->start = bpf_ktime_get_ns();
	s->timer = (__u64)timer;
	s->func = (__u64)func;
}

static __always_inline void slot_close(struct fn_slot *s, __u32 arg)
{
	struct tc_event *e = event_reserve(TC_EV_TIMER_FN);

	if (e) {
		__builtin_memset(e, 0, sizeof(*e));
		e->start_ns = s->start;
		e->dur_ns = bpf_ktime_get_ns() - s->start;
		e->func = s->func;
		e->cpu = bpf_get_smp_processor_id();
		e->arg = arg;
		e->kind = TC_EV_TIMER_FN;
		event_submit(e);
	}
	s->start = 0;
	s->timer = 0;
}

static __always_inline __u32 hr_slot(__u8 is_soft)
{
	return is_soft ? SLOT_HR_SOFT : SLOT_HR_HARD;
}

static __always_inline void hrtimer_exit(const void *timer)
{
	struct fn_slots *s = probe_cpu_slots();

	if (!s)
		return;
	/* The hard slot first: it is the one that can be inside the other. */
	if (s->s[SLOT_HR_HARD].start && s->s[SLOT_HR_HARD].timer == (__u64)timer)
		slot_close(&s->s[SLOT_HR_HARD], TC_TIMER_HRTIMER);
	else if (s->s[SLOT_HR_SOFT].start && s->s[SLOT_HR_SOFT].timer == (__u64)timer)
		slot_close(&s->s[SLOT_HR_SOFT], TC_TIMER_HRTIMER);
}

static __always_inline void list_exit(const void *timer)
{
	struct fn_slots *s = probe_cpu_slots();

	if (s && s->s[SLOT_LIST].start && s->s[SLOT_LIST].timer == (__u64)timer)
		slot_close(&s->s[SLOT_LIST], TC_TIMER_LIST);
}

/* tp_btf: the callback is read from the timer itself (CO-RE), after the CPU filter. */
SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(tc_hrtimer_entry_btf, struct hrtimer *timer, ktime_t *now)
{
	struct fn_slots *s = probe_cpu_slots();
	__u8 is_soft = 0;

	if (!s)
		return 0;
	/* Kernels before 4.16 have no soft hrtimers: there every callback is hard. */
	if (bpf_core_field_exists(timer->is_soft))
		is_soft = timer->is_soft;
	slot_open(&s->s[hr_slot(is_soft)], timer, timer->function);
	return 0;
}

SEC("tp_btf/hrtimer_expire_exit")
int BPF_PROG(tc_hrtimer_exit_btf, struct hrtimer *timer)
{
	hrtimer_exit(timer);
	return 0;
}

SEC("tp_btf/timer_expire_entry")
int BPF_PROG(tc_timer_entry_btf, struct timer_list *timer)
{
	struct fn_slots *s = probe_cpu_slots();

	if (s)
		slot_open(&s->s[SLOT_LIST], timer, timer->function);
	return 0;
}

SEC("tp_btf/timer_expire_exit")
int BPF_PROG(tc_timer_exit_btf, struct timer_list *timer)
{
	list_exit(timer);
	return 0;
}

/* Classic twins: the event records the callback; is_soft is read from the timer. */
SEC("tp/timer/hrtimer_expire_entry")
int tc_hrtimer_entry_tp(struct trace_event_raw_hrtimer_expire_entry *ctx)
{
	struct hrtimer *timer = ctx->hrtimer;
	struct fn_slots *s = probe_cpu_slots();
	__u8 is_soft = 0;

	if (!s)
		return 0;
	if (bpf_core_field_exists(timer->is_soft))
		BPF_CORE_READ_INTO(&is_soft, timer, is_soft);
	slot_open(&s->s[hr_slot(is_soft)], ctx->hrtimer, ctx->function);
	return 0;
}

SEC("tp/timer/hrtimer_expire_exit")
int tc_hrtimer_exit_tp(struct trace_event_raw_hrtimer_class *ctx)
{
	hrtimer_exit(ctx->hrtimer);
	return 0;
}

SEC("tp/timer/timer_expire_entry")
int tc_timer_entry_tp(struct trace_event_raw_timer_expire_entry *ctx)
{
	struct fn_slots *s = probe_cpu_slots();

	if (s)
		slot_open(&s->s[SLOT_LIST], ctx->timer, ctx->function);
	return 0;
}

SEC("tp/timer/timer_expire_exit")
int tc_timer_exit_tp(struct trace_event_raw_timer_class *ctx)
{
	list_exit(ctx->timer);
	return 0;
}
