// SPDX-License-Identifier: BSD-2-Clause
/*
 * wait_chain.c - following a wait to what delayed its waker (wait_chain.h): the wakings
 * and the waits indexed by thread once, then per spike a breadth-first walk from the
 * timing thread through the tasks that woke it, and a test of each interval against the
 * links found.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/grow.h"
#include "wait_chain.h"

static int cmp_key(const void *x, const void *y)
{
	const struct wait_key *a = x, *b = y;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->peer != b->peer)
		return a->peer < b->peer ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->ev < b->ev ? -1 : a->ev > b->ev;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/* Sorts v[0..n) and drops repeats; returns how many are left. */
static size_t sort_unique(uint32_t *v, size_t n)
{
	size_t m = 0;

	qsort(v, n, sizeof(*v), cmp_u32);
	for (size_t i = 0; i < n; i++)
		if (!m || v[i] != v[m - 1])
			v[m++] = v[i];
	return m;
}

static int has_u32(const uint32_t *v, size_t n, uint32_t x)
{
	return n && bsearch(&x, v, n, sizeof(*v), cmp_u32) != NULL;
}

/* A waking record by a task (not an interrupt's, not the thread's own). */
static int task_waking(const struct tc_event *e)
{
	return e->kind == TC_EV_WAKEUP && !(e->flags & TC_WAKE_IRQ) && e->other_pid &&
	       e->other_pid != e->tid;
}

/* A blocked part of an off-CPU interval: asleep until its end (trace__split_wakeups() has
 * cut off the wait for the CPU after the wake-up). */
static int asleep_part(const struct tc_event *e)
{
	return e->kind == TC_EV_OFFCPU && e->dur_ns &&
	       !(e->flags & (TC_OFFCPU_PREEMPTED | TC_OFFCPU_WOKEN | TC_OFFCPU_UNENDED));
}

static struct wait_key key_of(const struct tc_trace *t, const struct tc_event *e, size_t ev)
{
	return (struct wait_key){.tid = e->tid,
				 .peer = (uint32_t)trace__is_peer(t, e),
				 .start = e->start_ns,
				 .end = sat_add(e->start_ns, e->dur_ns),
				 .ev = ev};
}

int wait_chain_setup(struct wait_chain *w, const struct tc_trace *t)
{
	size_t nw = 0, nb = 0;

	memset(w, 0, sizeof(*w));
	for (size_t i = 0; i < t->n_events; i++) {
		nw += t->events[i].kind == TC_EV_WAKEUP;
		nb += asleep_part(&t->events[i]);
	}
	if (!nw)
		return 0; /* nothing to follow */
	w->wakes = malloc(nw * sizeof(*w->wakes));
	w->waits = malloc((nb ? nb : 1) * sizeof(*w->waits));
	w->wakers = malloc(nw * sizeof(*w->wakers));
	w->cpus = malloc(nw * sizeof(*w->cpus));
	if (!w->wakes || !w->waits || !w->wakers || !w->cpus) {
		wait_chain_free(w);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->n_events; i++) {
		const struct tc_event *e = &t->events[i];

		if (e->kind == TC_EV_WAKEUP) {
			if (task_waking(e)) {
				w->wakers[w->n_wakers] = e->other_pid;
				w->cpus[w->n_wakers++] = e->cpu;
			}
			w->wakes[w->n_wakes++] = key_of(t, e, i);
		} else if (asleep_part(e)) {
			w->waits[w->n_waits++] = key_of(t, e, i);
		}
	}
	qsort(w->wakes, w->n_wakes, sizeof(*w->wakes), cmp_key);
	qsort(w->waits, w->n_waits, sizeof(*w->waits), cmp_key);
	w->n_cpus = sort_unique(w->cpus, w->n_wakers);
	w->n_wakers = sort_unique(w->wakers, w->n_wakers);
	return 0;
}

void wait_chain_free(struct wait_chain *w)
{
	free(w->wakes);
	free(w->waits);
	free(w->wakers);
	free(w->cpus);
	memset(w, 0, sizeof(*w));
}

/* The kinds that are a CPU's, not a thread's: what delays whatever runs there. */
static int cpu_wide(uint16_t kind)
{
	switch (kind) {
	case TC_EV_HARDIRQ:
	case TC_EV_SOFTIRQ:
	case TC_EV_IPI:
	case TC_EV_TIMER:
	case TC_EV_TIMER_FN:
	case TC_EV_WORK:
	case TC_EV_NMI:
		return 1;
	default:
		return 0;
	}
}

/* The kinds that are a thread's own delay. */
static int thread_own(uint16_t kind)
{
	return kind == TC_EV_OFFCPU || kind == TC_EV_PAGE_FAULT || kind == TC_EV_SIGNAL ||
	       kind == TC_EV_COMPACTION || kind == TC_EV_RECLAIM;
}

int wait_chain_maybe(const struct wait_chain *w, const struct tc_event *e)
{
	if (!w->n_wakes)
		return 0;
	if (e->kind == TC_EV_WAKEUP)
		return 0; /* a link's waking is the spike's evidence whether or not it is near */
	if (thread_own(e->kind))
		return has_u32(w->wakers, w->n_wakers, e->tid);
	/* and the C-state intervals there: an IPI to a halted CPU is named by them */
	return (cpu_wide(e->kind) || e->kind == TC_EV_IDLE) && has_u32(w->cpus, w->n_cpus, e->cpu);
}

/* The first key of keys[0..n) not before (tid, peer, start). */
static size_t lower_bound(const struct wait_key *keys, size_t n, uint32_t tid, uint32_t peer,
			  uint64_t start)
{
	struct wait_key k = {.tid = tid, .peer = peer, .start = start, .ev = 0};
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_key(&keys[mid], &k) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The last key of keys[0..n) of (tid, peer) begun by at, or NULL. */
static const struct wait_key *last_before(const struct wait_key *keys, size_t n, uint32_t tid,
					  uint32_t peer, uint64_t at)
{
	size_t i = lower_bound(keys, n, tid, peer, at == UINT64_MAX ? at : at + 1);

	if (!i || keys[i - 1].tid != tid || keys[i - 1].peer != peer)
		return NULL;
	return &keys[i - 1];
}

static int linked(const struct wait_chain *w, uint32_t root, uint32_t tid)
{
	if (tid == root)
		return 1;
	for (size_t i = 0; i < w->n_links; i++)
		if (w->links[i].tid == tid)
			return 1;
	return 0;
}

/* The first wait of (tid, peer) that ends after t (a thread's waits do not overlap: their ends
 * are in the order of their starts). */
static size_t first_ending_after(const struct wait_chain *w, uint32_t tid, uint32_t peer,
				 uint64_t t)
{
	size_t lo = lower_bound(w->waits, w->n_waits, tid, peer, 0),
	       hi = lower_bound(w->waits, w->n_waits, tid, peer, t == UINT64_MAX ? t : t + 1);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->waits[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The waits of cur's thread that a task's waking ended inside (cur->from, cur->to]: each a
 * link over [the start of that wait, its end], within cur's. The waker is the one the last
 * waking record of the thread before the wait's end names (the recorder writes one only
 * when the waker changes).
 */
static void links_of(struct wait_chain *w, const struct tc_trace *t, const struct wait_link *cur,
		     uint32_t root)
{
	uint32_t peer = (uint32_t)cur->peer;
	size_t i = first_ending_after(w, cur->tid, peer, cur->from);

	for (; i < w->n_waits && w->n_links < WAIT_CHAIN_LINKS; i++) {
		const struct wait_key *wait = &w->waits[i], *k;
		const struct tc_event *e;

		if (wait->tid != cur->tid || wait->peer != peer || wait->end > cur->to)
			break;
		k = last_before(w->wakes, w->n_wakes, cur->tid, peer, wait->end);
		e = k ? &t->events[k->ev] : NULL;
		if (!e || (e->flags & TC_WAKE_IRQ) || !e->other_pid || e->other_pid == cur->tid ||
		    linked(w, root, e->other_pid))
			continue;
		w->links[w->n_links++] = (struct wait_link){
			.from = wait->start > cur->from ? wait->start : cur->from,
			.to = wait->end,
			.tid = e->other_pid,
			.cpu = e->cpu,
			.woken = cur->tid,
			.depth = cur->depth + 1,
			.ev = k->ev,
			.peer = cur->peer};
	}
}

size_t wait_chain_follow(struct wait_chain *w, const struct tc_trace *t, uint32_t tid, uint64_t ws,
			 uint64_t we)
{
	struct wait_link root = {.from = ws, .to = we, .tid = tid, .depth = 0, .peer = 0};
	const struct wait_link *cur = &root;
	size_t next = 0;

	w->n_links = 0;
	if (!w->n_wakes || !tid || we <= ws)
		return 0;
	for (;;) {
		if (cur->depth < WAIT_CHAIN_DEPTH)
			links_of(w, t, cur, tid);
		if (next >= w->n_links)
			break;
		cur = &w->links[next++];
	}
	return w->n_links;
}

/* Whether tid was asleep over all of [start, end): a CPU's interrupt then did not delay it. */
static int asleep_over(const struct wait_chain *w, const struct wait_link *l, uint64_t start,
		       uint64_t end)
{
	const struct wait_key *wait =
		last_before(w->waits, w->n_waits, l->tid, (uint32_t)l->peer, start);

	return wait && wait->end >= end;
}

const struct wait_link *wait_chain_link_of(const struct wait_chain *w, const struct tc_trace *t,
					   const struct tc_event *e, uint64_t start, uint64_t end)
{
	int peer = trace__is_peer(t, e);

	if (end < start)
		end = start;
	for (size_t i = 0; i < w->n_links; i++) {
		const struct wait_link *l = &w->links[i];
		int in = end > start ? start < l->to && end > l->from
				     : start >= l->from && start < l->to;

		if (l->peer != peer)
			continue;
		/* the waking record: evidence of the link */
		if (e->kind == TC_EV_WAKEUP) {
			if (e == &t->events[l->ev])
				return l;
			continue;
		}
		if (!in)
			continue;
		if (thread_own(e->kind) && e->tid == l->tid)
			return l;
		if (cpu_wide(e->kind) && e->cpu == l->cpu && !asleep_over(w, l, start, end))
			return l;
	}
	return NULL;
}
