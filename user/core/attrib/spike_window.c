// SPDX-License-Identifier: BSD-2-Clause
/*
 * spike_window.c - one spike window: the split of its excess among the
 * intervals overlapping it (nesting, sharing, scaling), and its primary cause.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spike_context.h"
#include "core/util/grow.h"
#include "spike_window.h"

/* A boundary of a top-level item, clipped to the window. */
struct spike_point {
	uint64_t t;
	uint32_t item;
	uint32_t is_end;
};

struct spike_item *spike_window__add(struct spike_window *w)
{
	struct spike_item *it;

	/* Two points per item, and two more per pause (each takes_off item makes at most one). */
	if (grow(&w->items, &w->cap_items, w->n_items + 1, sizeof(*w->items)) ||
	    grow(&w->points, &w->cap_points, 4 * w->cap_items, sizeof(*w->points))) {
		errno = ENOMEM;
		return NULL;
	}
	it = &w->items[w->n_items++];
	memset(it, 0, sizeof(*it));
	return it;
}

void spike_window__free(struct spike_window *w)
{
	free(w->items);
	free(w->points);
	memset(w, 0, sizeof(*w));
}

static int cmp_nesting(const void *x, const void *y)
{
	const struct spike_item *a = x, *b = y;

	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1; /* the longer, enclosing one first */
	return a->ev < b->ev ? -1 : a->ev > b->ev;
}

static int cmp_event(const void *x, const void *y)
{
	const struct spike_item *a = x, *b = y;

	return a->ev < b->ev ? -1 : a->ev > b->ev;
}

static int cmp_point(const void *x, const void *y)
{
	const struct spike_point *a = x, *b = y;

	return a->t < b->t ? -1 : a->t > b->t;
}

/*
 * A window holds a handful of items, sorted several times per spike: there an
 * insertion sort beats qsort()'s generic moves and indirect calls. It is
 * stable, as glibc's qsort() (a merge sort) is, so ties keep their order and
 * the result is the same.
 */
#define SMALL_SORT 16

static inline void sort_items(struct spike_item *v, size_t n,
			      int (*cmp)(const void *, const void *))
{
	if (n > SMALL_SORT) {
		qsort(v, n, sizeof(*v), cmp);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		struct spike_item x;
		size_t j = i;

		if (cmp(&v[i - 1], &v[i]) <= 0)
			continue;
		x = v[i];
		do {
			v[j] = v[j - 1];
			j--;
		} while (j && cmp(&v[j - 1], &x) > 0);
		v[j] = x;
	}
}

static void sort_points(struct spike_point *v, size_t n)
{
	if (n > SMALL_SORT) {
		qsort(v, n, sizeof(*v), cmp_point);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		struct spike_point x = v[i];
		size_t j = i;

		while (j && v[j - 1].t > x.t) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

void spike_window_sort(struct spike_window *w)
{
	sort_items(w->items, w->n_items, cmp_event);
}

/* Instants, and deferred items (credited later), take no part in the split. */
static int is_instant(const struct spike_item *it)
{
	return it->start == it->end || it->deferred;
}

/*
 * Marks items contained in a cause-bearing one on the same CPU. In (cpu,
 * start, end descending, event) order, an item is contained in an earlier one
 * exactly when an earlier item on its CPU ends at or after it; of two
 * identical intervals the later event is the nested one. Only explaining
 * items count as earlier ones, and not weak ones: a blocked interval absorbs
 * nothing, nor does what only explains what nothing else does. A thread
 * taken off its CPU inside its own pausing item (preempted in its signal
 * handler) is not contained in it: the pausing parents are kept apart, with
 * the thread of the one that ends last (a thread's handlers do not overlap).
 */
static void mark_nested(struct spike_window *w)
{
	uint64_t max_end = 0, pause_end = 0; /* 0: no parent yet, every interval ends after 0 */
	uint32_t pause_tid = 0;

	sort_items(w->items, w->n_items, cmp_nesting);
	for (size_t i = 0; i < w->n_items; i++) {
		struct spike_item *it = &w->items[i];

		if (!i || it->cpu != it[-1].cpu)
			max_end = pause_end = 0;
		if (it->context_only || is_instant(it)) {
			it->nested = it->context_only;
			continue;
		}
		it->nested = max_end >= it->end ||
			     (pause_end >= it->end && !(it->takes_off && it->tid == pause_tid));
		if (!it->explains || it->weak)
			continue; /* a weak item claims only what nothing else does: no children */
		if (it->pauses && it->end > pause_end) {
			pause_end = it->end;
			pause_tid = it->tid;
		} else if (!it->pauses && it->end > max_end) {
			max_end = it->end;
		}
	}
	spike_window_sort(w);
}

/*
 * Who takes a segment: the explaining items that are not weak first (tier 0),
 * then the weak ones (1: they explain only what nothing stronger does), then the waits on
 * another task's own work (2: what nothing on any host CPU explains), then the
 * rest (2: blocked, unattributed), which never dilute an explanation.
 */
static int tier(const struct spike_item *it)
{
	return it->explains ? (int)(it->weak < 2 ? it->weak : 2) : 3;
}

/*
 * The pauses of the top-level pausing items: where a top-level takes_off item of
 * the same thread overlaps one, that item leaves the cover at the overlap's start
 * and comes back at its end (an end point, then a start point). Adds them after
 * the np points of w->points; returns the new count. A thread's pausing items do
 * not overlap, so a takes_off item makes at most one pause and they fit (two points
 * per item and two per pause, spike_window__add()); a trace where they do overlap
 * gets no more pauses than fit.
 */
static size_t add_pauses(struct spike_window *w, size_t np, uint64_t ws, uint64_t we)
{
	for (size_t i = 0; i < w->n_items; i++) {
		const struct spike_item *p = &w->items[i];

		if (!p->pauses || p->nested || is_instant(p))
			continue;
		for (size_t j = 0; j < w->n_items; j++) {
			const struct spike_item *off = &w->items[j];
			uint64_t lo = p->start > off->start ? p->start : off->start;
			uint64_t hi = p->end < off->end ? p->end : off->end;

			if (!off->takes_off || off->nested || is_instant(off) ||
			    off->tid != p->tid || !off->explains)
				continue;
			lo = lo > ws ? lo : ws;
			hi = hi < we ? hi : we;
			if (lo >= hi || np + 2 > w->cap_points)
				continue;
			w->points[np++] = (struct spike_point){lo, (uint32_t)i, 1};
			w->points[np++] = (struct spike_point){hi, (uint32_t)i, 0};
		}
	}
	return np;
}

/* Coverage so far, by tier. */
struct cover {
	unsigned int n[4];
	long double f[4]; /* F(t) of each tier, see share_window() */
};

/* Spreads the segment [prev, t) over the items of the first tier covering it; its length if
 * covered. */
static uint64_t cover_segment(struct cover *c, uint64_t prev, uint64_t t)
{
	for (int k = 0; k < 4; k++) {
		if (c->n[k]) {
			c->f[k] += (long double)(t - prev) / c->n[k];
			return t - prev;
		}
	}
	return 0;
}

/*
 * The first preemption of a running thread on w's item i's CPU that began once i's
 * handler had begun, or NULL. One that began before took the CPU first: i ran inside it.
 */
static const struct spike_item *next_preemption(const struct spike_window *w, size_t i)
{
	const struct spike_item *it = &w->items[i], *best = NULL;

	for (size_t j = 0; j < w->n_items; j++) {
		const struct spike_item *x = &w->items[j];

		if (j == i || !x->takes_off || x->weak || x->cpu != it->cpu || x->ran < it->ran)
			continue;
		if (!best || x->start < best->start ||
		    (x->start == best->start && x->ev < best->ev))
			best = x;
	}
	return best;
}

/* Whether an item of w other than i and off starts on cpu in [from, to). */
static int other_between(const struct spike_window *w, size_t i, const struct spike_item *off,
			 uint32_t cpu, uint64_t from, uint64_t to)
{
	for (size_t j = 0; j < w->n_items; j++) {
		const struct spike_item *x = &w->items[j];

		if (j != i && x != off && x->cpu == cpu && x->start >= from && x->start < to)
			return 1;
	}
	return 0;
}

/*
 * A reschedule IPI exists to make its CPU schedule a task woken from elsewhere (between
 * CPUs that share no cache, a call-function IPI that runs the queued wake-ups does), and a
 * timer that wakes a sleeper to wake it: where the probe's thread is preempted next on
 * that CPU, the interrupt (with its delivery and hidden cost) was the way in of the task
 * that preempted it, and the fix is that task's; not where that task is known to have
 * been runnable all along or woken when the interrupt could not have woken it (a traced
 * thread the probe's thread woke itself). Only inside the window: the thread made
 * no round trip in between. The time from the interrupt's end to the switch, where
 * nothing else ran there, is the kernel leaving the interrupt to switch that task in:
 * the item spans it too.
 */
void spike_window_join_wakeups(struct spike_window *w)
{
	for (size_t i = 0; i < w->n_items; i++) {
		struct spike_item *it = &w->items[i];
		const struct spike_item *off;

		if (!it->wakes)
			continue;
		off = next_preemption(w, i);
		if (!off || !off->explains ||
		    context_woken_outside(off->woke, it->wake_from, it->wake_to))
			continue;
		it->cause = off->cause;
		it->explains = 1;
		it->joined = TC_JOIN_WAKEUP;
		if (it->end < off->start && !other_between(w, i, off, it->cpu, it->end, off->start))
			it->end = off->start;
	}
}

/*
 * The first signal's delivery on w's item i's CPU once i's event ended (its wake_to), or
 * NULL. The kernel delivers a pending signal on the way back to user space, so the one an
 * interrupt carried is delivered after it returned.
 */
static const struct spike_item *next_delivery(const struct spike_window *w, size_t i)
{
	const struct spike_item *it = &w->items[i], *best = NULL;

	for (size_t j = 0; j < w->n_items; j++) {
		const struct spike_item *x = &w->items[j];

		if (!x->signal || x->cpu != it->cpu || x->ran < it->wake_to)
			continue;
		if (!best || x->ran < best->ran || (x->ran == best->ran && x->ev < best->ev))
			best = x;
	}
	return best;
}

/* Whether an event of w other than i and sig began on cpu in [from, to), by its own start
 * (a calibrated item's widening, an IPI's delivery, are not the CPU doing something else). */
static int ran_between(const struct spike_window *w, size_t i, const struct spike_item *sig,
		       uint32_t cpu, uint64_t from, uint64_t to)
{
	for (size_t j = 0; j < w->n_items; j++) {
		const struct spike_item *x = &w->items[j];

		if (j != i && x != sig && x->cpu == cpu && x->ran >= from && x->ran < to)
			return 1;
	}
	return 0;
}

/* Whether sig's thread was off its CPU at t (an off-CPU interval of it covers t). */
static int thread_away(const struct spike_window *w, const struct spike_item *sig, uint64_t t)
{
	for (size_t j = 0; j < w->n_items; j++) {
		const struct spike_item *x = &w->items[j];

		if (x->away && x->tid == sig->tid && x->ran <= t && t < x->end)
			return 1;
	}
	return 0;
}

/*
 * A signal sent to a thread running on another CPU sets its TIF_SIGPENDING and, in
 * kick_process(), sends that CPU a reschedule IPI for no other reason than to make it
 * return to user space through the check that delivers the signal (exit_to_user_mode):
 * such an IPI, with its delivery and hidden cost, is the signal's, and so is the time
 * from its end to the delivery, where nothing else ran there. Only a reschedule IPI is
 * that kick; any other interrupt (a tick, a device's, a call-function IPI) has work of its
 * own and runs whether or not a signal is pending, so it keeps its cause, as a tick before
 * a preemption does. One the wake-ups joined keeps that join: on the way back to user
 * space the kernel switches to a woken task before it delivers a signal, so an IPI that
 * did both let the preempting task in first. Not where another event began on its CPU in
 * between (a softirq on the interrupt's exit, a switch), nor where the signal's thread was
 * off its CPU when the IPI came (a sleeper woken by its signal).
 */
void spike_window_join_signals(struct spike_window *w)
{
	for (size_t i = 0; i < w->n_items; i++) {
		struct spike_item *it = &w->items[i];
		const struct spike_item *sig;

		if (!it->kicks || it->joined)
			continue;
		sig = next_delivery(w, i);
		if (!sig || !sig->explains || thread_away(w, sig, it->ran) ||
		    ran_between(w, i, sig, it->cpu, it->wake_to, sig->ran))
			continue;
		it->cause = sig->cause;
		it->explains = 1;
		it->joined = TC_JOIN_SIGNAL;
		if (it->end < sig->start)
			it->end = sig->start;
	}
}

/*
 * With F(t) the integral of 1 / (number of top-level items covering t), an
 * item's share is F(its clipped end) - F(its clipped start): each elementary
 * segment is split equally among the items covering it, in O(k log k).
 * Each tier keeps its own F: a segment counts only for the first tier that
 * covers it.
 * Returns the covered time (the union of the top-level items).
 */
static uint64_t share_window(struct spike_window *w, uint64_t ws, uint64_t we)
{
	struct cover c = {0};
	uint64_t covered = 0, prev = 0;
	size_t np = 0;

	for (size_t i = 0; i < w->n_items; i++) {
		const struct spike_item *it = &w->items[i];

		if (it->nested || is_instant(it))
			continue;
		w->points[np++] = (struct spike_point){it->start > ws ? it->start : ws, i, 0};
		w->points[np++] = (struct spike_point){it->end < we ? it->end : we, i, 1};
	}
	np = add_pauses(w, np, ws, we);
	if (np > 2)
		sort_points(w->points, np);
	for (size_t p = 0; p < np; p++) {
		const struct spike_point *pt = &w->points[p];
		struct spike_item *it = &w->items[pt->item];
		long double f;

		covered += cover_segment(&c, prev, pt->t);
		prev = pt->t;
		f = c.f[tier(it)];
		if (pt->is_end) {
			it->share += f; /* share = F(end) - F(start), both set once */
			c.n[tier(it)] -= 1;
		} else {
			it->share -= f;
			c.n[tier(it)] += 1;
		}
	}
	return covered;
}

uint64_t spike_window_split(struct spike_window *w, uint64_t ws, uint64_t we, uint64_t excess)
{
	uint64_t covered, total = 0;

	mark_nested(w);
	covered = share_window(w, ws, we);
	for (size_t i = 0; i < w->n_items; i++) {
		struct spike_item *it = &w->items[i];
		long double x = it->share;
		uint64_t att;

		if (it->nested)
			continue;
		/* Multiply first: an exact quotient stays exact. */
		if (covered > excess)
			x = x * excess / covered;
		/* A share summed from thirds may land a hair below its integer value. */
		att = clamp_floor(x + x * 1e-12L + 1e-9L);
		/* Rounding must not push the total past the excess. */
		if (att > excess - total)
			att = excess - total;
		it->att = att;
		total += att;
	}
	return total;
}

static int cmp_cause(const void *x, const void *y)
{
	const struct spike_item *a = x, *b = y;

	if (a->cause != b->cause)
		return a->cause < b->cause ? -1 : 1;
	return a->ev < b->ev ? -1 : a->ev > b->ev;
}

/*
 * Whether a cause with (att, share) beats the best so far. A tie goes by the
 * causes' names, not their indexes: an index is the order causes were first
 * named in, which differs between a whole read and a streamed one.
 */
static int beats(const struct tc_cause *causes, uint32_t cause, uint64_t att, long double share,
		 uint32_t best, uint64_t best_att, long double best_share)
{
	if (!(share > 0.0L))
		return 0; /* only nested items, counted in a parent */
	if (best == TC_NO_CAUSE || att != best_att)
		return best == TC_NO_CAUSE || att > best_att;
	if (share != best_share)
		return share > best_share;
	return strcmp(causes[cause].name, causes[best].name) < 0;
}

/*
 * The primary cause is the largest of the causes that explain (not a blocked
 * interval's), when those explain at least half the excess; otherwise the
 * spike is unattributed and the largest cause of any kind is the candidate.
 */
void spike_window_decide(struct spike_window *w, const struct tc_cause *causes, struct tc_spike *sp)
{
	uint64_t explaining = 0, best_att = 0, bx_att = 0;
	uint32_t best = TC_NO_CAUSE, bx = TC_NO_CAUSE;
	long double best_share = 0.0L, bx_share = 0.0L;

	/* By cause: each run of items sums to one cause's part in the spike. */
	sort_items(w->items, w->n_items, cmp_cause);
	for (size_t i = 0, j; i < w->n_items; i = j) {
		uint32_t cause = w->items[i].cause;
		long double share = 0.0L;
		uint64_t att = 0;

		for (j = i; j < w->n_items && w->items[j].cause == cause; j++) {
			att += w->items[j].att;
			share += w->items[j].share;
		}
		if (w->items[i].explains) {
			explaining += att;
			if (beats(causes, cause, att, share, bx, bx_att, bx_share)) {
				bx = cause;
				bx_att = att;
				bx_share = share;
			}
		}
		if (beats(causes, cause, att, share, best, best_att, best_share)) {
			best = cause;
			best_att = att;
			best_share = share;
		}
	}
	sp->explained = sp->excess_ns ? (double)explaining / (double)sp->excess_ns : 0.0;
	sp->primary = 0;
	sp->candidate = TC_NO_CAUSE;
	if (bx != TC_NO_CAUSE && sp->explained >= 0.5)
		sp->primary = bx;
	else
		sp->candidate = best;
}
