/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wait_chain.h - a spike whose thread waited is explained by what delayed the one it
 * waited for. Private to the analyzer (analyze_internal.h).
 *
 * The recorder notes who wakes each traced thread (TC_EV_WAKEUP, written when the waker or
 * its CPU changes: a blocked interval's waker is the last one recorded before its end) and
 * traces a waker from its first such waking on. When the timing thread of a spike was blocked and
 * then woken by another task inside the spike, that task's own intervals between the start of the
 * wait and the waking are the spike's too: its preemption by a named task, the IRQs,
 * softirqs and callbacks on its CPU while it could have run, its page faults; and where
 * it waited itself, the same for its waker, to WAIT_CHAIN_DEPTH links. Each link is
 * clipped to the wait it explains, so a waker's delay before the wait began, or after
 * the waking, counts for nothing. A waking done by an interrupt (TC_WAKE_IRQ) ends the
 * chain: the interrupt is on the woken thread's CPU or it is not traced.
 */
#ifndef TAILCAUSE_CORE_WAIT_CHAIN_H
#define TAILCAUSE_CORE_WAIT_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

/* How far a wait is followed: the waker, its waker, and theirs. */
#define WAIT_CHAIN_DEPTH 3
/* The most links one spike follows (several wakings inside one round trip). */
#define WAIT_CHAIN_LINKS 16

/* One waker of the chain: tid delayed the spike over [from, to), from cpu on. */
struct wait_link {
	uint64_t from, to;
	uint32_t tid;	/* the waker */
	uint32_t cpu;	/* where it woke the one waiting on it */
	uint32_t woken; /* the thread it woke */
	uint32_t depth; /* 1: it woke the timing thread; 2: it woke that waker; ... */
	size_t ev;	/* the waking (TC_EV_WAKEUP) */
	int peer;	/* two hosts: the link is the peer's */
};

/* An event of a thread, by (tid, peer, start). */
struct wait_key {
	uint32_t tid;
	uint32_t peer;
	uint64_t start;
	uint64_t end;
	size_t ev;
};

/* The trace's wakings and waits, indexed once per analysis. */
struct wait_chain {
	struct wait_key *wakes; /* TC_EV_WAKEUP events by a task, by the woken thread */
	size_t n_wakes;
	struct wait_key *waits; /* blocked parts of OFFCPU intervals (asleep) */
	size_t n_waits;
	uint32_t *wakers; /* every waker, sorted, unique: their intervals may matter */
	size_t n_wakers;
	uint32_t *cpus; /* the CPUs they woke from, sorted, unique */
	size_t n_cpus;
	struct wait_link links[WAIT_CHAIN_LINKS]; /* the current spike's */
	size_t n_links;
};

/* Indexes t's wakings by a task and the waits they ended; 0 or -ENOMEM. */
int wait_chain_setup(struct wait_chain *w, const struct tc_trace *t);
void wait_chain_free(struct wait_chain *w);

/* Whether e may belong to some spike's chain (its thread woke one, or its CPU was woken
 * from): the cheap test, when the sweep takes events in. */
int wait_chain_maybe(const struct wait_chain *w, const struct tc_event *e);

/*
 * The links of the spike of thread tid over [ws, we) (its round trip): into w->links,
 * how many. Each waking of a blocked thread of the chain inside the window by another
 * task is a link, over [the start of that thread's wait, the waking).
 */
size_t wait_chain_follow(struct wait_chain *w, const struct tc_trace *t, uint32_t tid, uint64_t ws,
			 uint64_t we);

/*
 * The link of the current spike that e (an interval over [start, end)) falls in, or NULL:
 * an interval of the waker itself, a CPU-wide interval (an interrupt, a callback, a work
 * item) on the CPU it woke from while it was not asleep, or the waking that ends the link.
 * The interval is clipped to the link by the caller.
 */
const struct wait_link *wait_chain_link_of(const struct wait_chain *w, const struct tc_trace *t,
					   const struct tc_event *e, uint64_t start, uint64_t end);

#endif /* TAILCAUSE_CORE_WAIT_CHAIN_H */
