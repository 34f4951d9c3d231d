/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spike_window.h - one spike window, private to user/core: the split of its
 * excess among the intervals overlapping it. analyze.c runs it for every spike.
 */
#ifndef TAILCAUSE_CORE_SPIKE_WINDOW_H
#define TAILCAUSE_CORE_SPIKE_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "analyze.h"

/*
 * An interval overlapping the window; the caller fills start..ctx, explains
 * and deferred. start == end makes it an instant: never nested, never a parent,
 * never shared in; a deferred item is treated the same here (its credit comes
 * later, from the caller).
 */
struct spike_item {
	uint64_t start; /* the weighed interval [start, end), not clipped */
	uint64_t end;
	uint64_t ran; /* its event's own start: a handler's entry (start is earlier by the
		       * hidden cost, an IPI's by its delivery) */
	size_t ev;    /* index into tc_trace.events: orders ties */
	size_t slot;  /* the caller's, carried along */
	uint32_t cpu;
	uint32_t cause;		/* index into tc_analysis.causes */
	uint32_t explains;	/* 1: its cause can explain a spike (not of class unattributed) */
	uint32_t context_only;	/* 1: shown because of its parent's context: always nested */
	struct tc_name_ctx ctx; /* the caller's: what surrounds it, for naming */
	uint32_t nested;	/* out: counted in a cause-bearing parent on the same CPU */
	uint32_t deferred;	/* 1: credited after the sweep (steal): no share, no parent */
	uint32_t weak;		/* 1: it explains, but only what no explaining item covers,
				 * and nests nothing (what ran on an SMT sibling; a woken
				 * thread's wait for its CPU); 2: weaker still, only what no
				 * weak item covers either (the wait on a task's own work) */
	uint32_t tid;		/* the thread it is of, 0: CPU-wide */
	uint8_t pauses;		/* 1: the thread's own running (a signal handler): it pauses
				 * while its thread is taken off its CPU */
	uint8_t takes_off;	/* 1: its thread was taken off its CPU (a preempted off-CPU) */
	uint8_t wakes;		/* 1: an interrupt whose work is a wake-up (a reschedule IPI,
				 * a timer that woke a sleeper) */
	uint8_t joined;		/* out: enum tc_join, how it took the cause of what it led to */
	uint8_t kicks;		/* 1: a reschedule IPI, which kick_process() sends to make a
				 * running thread see a pending signal */
	uint8_t signal;		/* 1: a signal's delivery to its thread (TC_EV_SIGNAL) */
	uint8_t away;		/* 1: its thread was off its CPU (an off-CPU interval) */
	uint8_t chain;		/* the depth of its wait-chain link, 0: none (wait_chain.h) */
	uint64_t woke;		/* takes_off: when the task that took the CPU was woken
				 * (context_preemptor_woke(): 0 not known) */
	uint64_t wake_from;	/* wakes: the wake-ups it can have made, [from, to] */
	uint64_t wake_to;	/* (context_wake_from(), its event's end) */
	long double share;	/* out: its part of the covered time, before scaling */
	uint64_t att;		/* out: its part of the excess */
};

struct spike_point;

/* The items of one window, and scratch space; zero-initialize, reuse, then free. */
struct spike_window {
	struct spike_item *items;
	size_t n_items;
	size_t cap_items;
	struct spike_point *points;
	size_t cap_points;
};

/* A new zeroed item at the end of w->items, or NULL (ENOMEM). */
struct spike_item *spike_window__add(struct spike_window *w);
void spike_window__free(struct spike_window *w);

/* Sorts the items by event index (the order causes get numbered in). */
void spike_window_sort(struct spike_window *w);

/*
 * A wake-up interrupt followed, on its CPU and in this window, by a probe thread's
 * preemption is how the preempting task got that CPU: it takes the preemption's cause,
 * is marked joined, and spans until the switch where nothing else started on that CPU
 * in between. With cause and explains set, before spike_window_split().
 */
void spike_window_join_wakeups(struct spike_window *w);

/*
 * A reschedule IPI that the wake-ups left alone, followed on its CPU by a signal's
 * delivery to a thread that was running there, with nothing else started on that CPU
 * from the IPI's end to the delivery, carried that signal: it takes the signal's cause,
 * is marked joined (TC_JOIN_SIGNAL), and spans until the delivery. With cause and
 * explains set, after spike_window_join_wakeups() and before spike_window_split().
 */
void spike_window_join_signals(struct spike_window *w);

/*
 * Splits [ws, we) among the items and leaves them in event order:
 *   - nesting: an item inside a cause-bearing (explains) item on the same CPU
 *     is nested, counted in that parent; an item inside an item that explains
 *     nothing (a blocked off-CPU interval) or a weak one keeps its own credit; a takes_off
 *     item is not nested in a pauses item of its own thread: that item pauses
 *     for it instead (it covers nothing while its thread is off CPU);
 *   - sharing: each elementary segment goes to the top-level explaining items
 *     covering it, in equal parts; weak items share only what no explaining item
 *     covers, the weaker ones (weak 2) what no weak item covers either, the others
 *     what none of them covers;
 *   - scaling: when the covered time exceeds excess, all shares shrink in
 *     proportion.
 * Sets nested, share and att; returns the total att (<= excess).
 */
uint64_t spike_window_split(struct spike_window *w, uint64_t ws, uint64_t we, uint64_t excess);

/*
 * After spike_window_split() and with cause and explains set, fills in
 * sp->explained, sp->primary and sp->candidate from sp->excess_ns. The best
 * cause has the most att (then share, then the first name in causes[]); it is
 * primary when at least half the excess is explained and it explains, else
 * primary is 0 and it is the candidate. Reorders w->items.
 */
void spike_window_decide(struct spike_window *w, const struct tc_cause *causes,
			 struct tc_spike *sp);

#endif /* TAILCAUSE_CORE_SPIKE_WINDOW_H */
