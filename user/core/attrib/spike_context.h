/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spike_context.h - private to core: what the analyzer needs beyond the interval
 * itself, the context rules that rename a preempted off-CPU interval from what else
 * ran in the same spike window (the task that ran instead was compacting or
 * reclaiming; which vector ksoftirqd served; which work a kworker ran).
 */
#ifndef TAILCAUSE_CORE_SPIKE_CONTEXT_H
#define TAILCAUSE_CORE_SPIKE_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "causes.h"
#include "event_span.h"
#include "core/trace/trace.h"

/* An interval a context rule may consult. */
struct context_ref {
	uint64_t start;
	uint64_t end;
	size_t item;  /* index into the window's items, or CONTEXT_NO_ITEM */
	size_t slot;  /* the caller's (its active-set slot) */
	uint32_t key; /* compaction/reclaim: the task's tid; softirq: the cpu */
	uint32_t kind;
	uint32_t arg;
	uint32_t pad;
	uint64_t func; /* callbacks: the function */
};

/*
 * Per spike window: the compaction and reclaim intervals of any task that
 * overlap it (keyed by tid), the relevant softirq intervals and the callbacks
 * (work items, timer callbacks: TC_EV_WORK, TC_EV_TIMER_FN) keyed by cpu.
 * Zero-initialize, reuse with context__reset(), then free.
 */
struct spike_context {
	struct context_ref *mm;
	size_t n_mm, cap_mm;
	struct context_ref *softirq;
	size_t n_softirq, cap_softirq;
	struct context_ref *callback;
	size_t n_callback, cap_callback;
};

void context__reset(struct spike_context *c);
void context__free(struct spike_context *c);
/* Adds ref to the mm (TC_EV_COMPACTION, TC_EV_RECLAIM), softirq or callback list; 0 or
 * -ENOMEM. */
int context__add(struct spike_context *c, const struct context_ref *ref);
/* Sorts both lists for lookups; call once all refs of the window are added. */
void context__sort(struct spike_context *c);

/*
 * The context of the preempted off-CPU interval off, weighed over [lo, hi)
 * (the interval clipped to the window): out->task_was names what the task that
 * ran instead was doing for the longest time, out->softirq_vec the softirq
 * vector with the most time inside the interval on its CPU, out->func the work
 * function with the most time there (a kworker's). Sets
 * [*first, *last) to the mm refs of that task (the caller lists the ones that
 * overlap [lo, hi) in the timeline).
 */
void context_offcpu(const struct spike_context *c, const struct tc_event *off, uint64_t lo,
		    uint64_t hi, struct tc_name_ctx *out, size_t *first, size_t *last);

/*
 * The function of the callbacks of kind (TC_EV_WORK, TC_EV_TIMER_FN) that started
 * inside parent on its CPU with the most time in [lo, hi), or 0: what names a
 * kworker's preemption, a local timer interrupt, a TIMER softirq. Where none ran in
 * [lo, hi) (a window that holds only the end of an interrupt), the one with the most
 * time inside parent: the callbacks that ran before the window are what the parent
 * was for. Ties go to the earlier callback.
 */
uint64_t context_callback(const struct spike_context *c, const struct tc_event *parent,
			  uint16_t kind, uint64_t lo, uint64_t hi);

/* 1 for the kinds context_callback() consults. */
static inline int context_is_callback(uint16_t kind)
{
	return kind == TC_EV_WORK || kind == TC_EV_TIMER_FN;
}

/* The softirq vectors that run timer callbacks: TIMER (timer lists) and HRTIMER. */
static inline int context_is_timer_vector(uint32_t vec)
{
	return vec == 1 || vec == 8;
}

/* An interval timer callbacks run inside: the local timer interrupt, a TIMER/HRTIMER softirq. */
static inline int context_is_timer_parent(const struct tc_event *e)
{
	return e->kind == TC_EV_TIMER ||
	       (e->kind == TC_EV_SOFTIRQ && context_is_timer_vector(e->arg));
}

/* An IPI whose work is a wake-up: a reschedule IPI, or a call-function one that ran the
 * queued wake-ups (TC_IPI_TTWU). */
static inline int context_ipi_wakes(const struct tc_event *e)
{
	return e->kind == TC_EV_IPI && (e->arg == TC_IPI_RESCHEDULE || (e->flags & TC_IPI_TTWU));
}

/*
 * When the task that took the CPU at t->events[j] (a preempted off-CPU interval; the
 * task is its other_pid) was woken: its own off-CPU interval, among the
 * CONTEXT_LOOKAHEAD events before, ends where it took the CPU. CONTEXT_RUNNABLE where
 * it was preempted there (runnable throughout: nothing woke it); 0 where not known (its
 * thread is not traced, or that interval is further back).
 */
#define CONTEXT_RUNNABLE UINT64_MAX

uint64_t context_preemptor_woke(const struct tc_trace *t, size_t j);

/* From when a wake-up can be the work of interrupt e: a reschedule IPI follows a wake-up
 * made elsewhere, at any time before it (0); a timer's callback or the queued wake-ups
 * run inside it (its start). */
static inline uint64_t context_wake_from(const struct tc_event *e)
{
	return e->kind == TC_EV_IPI && e->arg == TC_IPI_RESCHEDULE ? 0 : e->start_ns;
}

/* Whether a task woken at `woke` (context_preemptor_woke()) is known not to have been
 * brought in by a wake-up interrupt that can wake in [from, to]: it was runnable all
 * along, or woken outside (a thread that woke its partner on its own CPU, as two threads
 * passing a pipe do). */
static inline int context_woken_outside(uint64_t woke, uint64_t from, uint64_t to)
{
	return woke == CONTEXT_RUNNABLE || (woke && (woke < from || woke > to));
}

/*
 * A window may end inside a timer interrupt before its callback began: adds to c, as
 * context, the timer callbacks on parent's CPU that start inside parent among the
 * events from t->events[from] on (those the sweep has not reached, in start order),
 * looking at no more than CONTEXT_LOOKAHEAD of them; 0 or -ENOMEM.
 */
#define CONTEXT_LOOKAHEAD 256

int context_add_later_callbacks(struct spike_context *c, const struct tc_trace *t, size_t from,
				const struct tc_event *parent);

/*
 * A callback ends before its parent does, and a window may reach the parent after
 * the callback ended: the sweep keeps a callback while its parent runs (its `until`
 * is the parent's end), as context only. Per CPU, the latest end of the intervals a
 * callback runs inside: a timer interrupt or TIMER/HRTIMER softirq for TC_EV_TIMER_FN,
 * a preempted off-CPU interval for TC_EV_WORK. Events come in start order, so one
 * that ends after a callback's start was running when the callback began.
 * Zero-initialize, then free.
 */
#define CONTEXT_PARENT_CPUS (1u << 16) /* beyond: a corrupt trace, callbacks kept as is */

struct context_parents {
	uint64_t *end; /* [2 * cpu]: timer parents, [2 * cpu + 1]: off-CPU parents */
	size_t n;      /* CPUs covered */
	size_t cap;
};

/* Notes e if it is a parent of callbacks, weighed as ending at end; 0 or -ENOMEM. */
int context_parents_note(struct context_parents *p, const struct tc_event *e, uint64_t end);
/* For a callback e: the end of a parent running when it started, or 0 (none, or not one). */
uint64_t context_parents_until(const struct context_parents *p, const struct tc_event *e);
void context_parents_free(struct context_parents *p);

/* 1 when [s, e) overlaps [lo, hi). */
static inline int context_overlaps(uint64_t s, uint64_t e, uint64_t lo, uint64_t hi)
{
	return s < hi && e > lo;
}

#endif /* TAILCAUSE_CORE_SPIKE_CONTEXT_H */
