// SPDX-License-Identifier: BSD-2-Clause
/*
 * spike_context.c - the context rules of preempted off-CPU intervals (see
 * spike_context.h).
 *
 * The context rules look only at what overlaps the current spike window,
 * sorted once per window and found by binary search, so they cost
 * O(k log k) per window of k intervals and keep the sweep linear in events:
 * the compaction/reclaim intervals of any task stay in the analyzer's active
 * set, pruned by end time like every other interval, and are indexed here by
 * tid per window.
 */
#include <stdlib.h>
#include <string.h>

#include "spike_context.h"
#include "core/util/grow.h"

#define N_VECTORS 32 /* softirq vectors weighed by ksoftirqd's rule (the kernel has 10) */

/* ---- per window ------------------------------------------------------------------------ */

void context__reset(struct spike_context *c)
{
	c->n_mm = 0;
	c->n_softirq = 0;
	c->n_callback = 0;
}

void context__free(struct spike_context *c)
{
	free(c->mm);
	free(c->softirq);
	free(c->callback);
	memset(c, 0, sizeof(*c));
}

int context__add(struct spike_context *c, const struct context_ref *ref)
{
	struct context_ref **list = &c->mm;
	size_t *n = &c->n_mm, *cap = &c->cap_mm;

	if (ref->kind == TC_EV_SOFTIRQ) {
		list = &c->softirq;
		n = &c->n_softirq;
		cap = &c->cap_softirq;
	} else if (context_is_callback((uint16_t)ref->kind)) {
		list = &c->callback;
		n = &c->n_callback;
		cap = &c->cap_callback;
	}
	if (grow(list, cap, *n + 1, sizeof(**list)))
		return -ENOMEM;
	(*list)[(*n)++] = *ref;
	return 0;
}

/* By key, then start, then event slot: a total order, so lookups are deterministic. */
static int cmp_ref(const void *x, const void *y)
{
	const struct context_ref *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->slot < b->slot ? -1 : a->slot > b->slot;
}

void context__sort(struct spike_context *c)
{
	if (c->n_mm > 1)
		qsort(c->mm, c->n_mm, sizeof(*c->mm), cmp_ref);
	if (c->n_softirq > 1)
		qsort(c->softirq, c->n_softirq, sizeof(*c->softirq), cmp_ref);
	if (c->n_callback > 1)
		qsort(c->callback, c->n_callback, sizeof(*c->callback), cmp_ref);
}

/* The first ref at or after (key, start) in a sorted list. */
static size_t lower_bound(const struct context_ref *r, size_t n, uint32_t key, uint64_t start)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].key < key || (r[mid].key == key && r[mid].start < start))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint64_t overlap(uint64_t s, uint64_t e, uint64_t lo, uint64_t hi)
{
	s = s > lo ? s : lo;
	e = e < hi ? e : hi;
	return e > s ? e - s : 0;
}

/* Of the compaction and reclaim of task tid over [lo, hi), what took longer. */
static enum tc_cause_class task_was(const struct spike_context *c, uint32_t tid, uint64_t lo,
				    uint64_t hi, size_t *first, size_t *last)
{
	uint64_t compact = 0, reclaim = 0;
	size_t i;

	/* pid 0 is the idle task: it neither compacts nor reclaims. */
	*first = *last = 0;
	if (!tid)
		return TC_CAUSE_UNATTRIBUTED;
	*first = lower_bound(c->mm, c->n_mm, tid, 0);
	for (i = *first; i < c->n_mm && c->mm[i].key == tid; i++) {
		uint64_t ov = overlap(c->mm[i].start, c->mm[i].end, lo, hi);

		if (c->mm[i].kind == TC_EV_COMPACTION)
			compact += ov;
		else
			reclaim += ov;
	}
	*last = i;
	if (!compact && !reclaim)
		return TC_CAUSE_UNATTRIBUTED;
	return compact >= reclaim ? TC_CAUSE_THP_COMPACTION : TC_CAUSE_RECLAIM;
}

/*
 * The vector of the softirqs that started inside off on its CPU with the most
 * time in [lo, hi); ties go to the lower vector. Off-CPU intervals on one CPU
 * do not overlap, so over a window the scans visit each softirq about once.
 */
static uint32_t busiest_vector(const struct spike_context *c, const struct tc_event *off,
			       uint64_t lo, uint64_t hi)
{
	uint64_t ns[N_VECTORS] = {0}, end = sat_add(off->start_ns, off->dur_ns), best_ns = 0;
	uint32_t best = TC_NO_VECTOR;

	for (size_t i = lower_bound(c->softirq, c->n_softirq, off->cpu, off->start_ns);
	     i < c->n_softirq && c->softirq[i].key == off->cpu && c->softirq[i].start < end; i++)
		if (c->softirq[i].arg < N_VECTORS)
			ns[c->softirq[i].arg] +=
				overlap(c->softirq[i].start, c->softirq[i].end, lo, hi);
	for (uint32_t v = 0; v < N_VECTORS; v++) {
		if (ns[v] > best_ns) {
			best_ns = ns[v];
			best = v;
		}
	}
	return best;
}

/* The function of kind's callbacks inside parent with the most time in [lo, hi), or 0. */
static uint64_t busiest_callback(const struct spike_context *c, const struct tc_event *parent,
				 uint16_t kind, uint64_t lo, uint64_t hi)
{
	uint64_t end = sat_add(parent->start_ns, parent->dur_ns), best = 0, best_ns = 0;

	/* A handful of callbacks per window: sum each function's time in place. */
	for (size_t i = lower_bound(c->callback, c->n_callback, parent->cpu, parent->start_ns);
	     i < c->n_callback && c->callback[i].key == parent->cpu && c->callback[i].start < end;
	     i++) {
		const struct context_ref *r = &c->callback[i];
		uint64_t ns = 0;

		if (r->kind != kind || !r->func)
			continue;
		for (size_t j = i; j < c->n_callback && c->callback[j].key == parent->cpu &&
				   c->callback[j].start < end;
		     j++)
			if (c->callback[j].kind == kind && c->callback[j].func == r->func)
				ns += overlap(c->callback[j].start, c->callback[j].end, lo, hi);
		if (ns > best_ns) {
			best_ns = ns;
			best = r->func;
		}
	}
	return best;
}

uint64_t context_callback(const struct spike_context *c, const struct tc_event *parent,
			  uint16_t kind, uint64_t lo, uint64_t hi)
{
	uint64_t best = busiest_callback(c, parent, kind, lo, hi);

	return best ? best
		    : busiest_callback(c, parent, kind, parent->start_ns,
				       sat_add(parent->start_ns, parent->dur_ns));
}

void context_offcpu(const struct spike_context *c, const struct tc_event *off, uint64_t lo,
		    uint64_t hi, struct tc_name_ctx *out, size_t *first, size_t *last)
{
	out->task_was = task_was(c, off->other_pid, lo, hi, first, last);
	out->softirq_vec = busiest_vector(c, off, lo, hi);
	out->func = context_callback(c, off, TC_EV_WORK, lo, hi);
}

/* ---- callbacks' parents ------------------------------------------------------------------ */

int context_add_later_callbacks(struct spike_context *c, const struct tc_trace *t, size_t from,
				const struct tc_event *parent)
{
	uint64_t end = sat_add(parent->start_ns, parent->dur_ns);

	for (size_t i = from; i < t->n_events && i - from < CONTEXT_LOOKAHEAD; i++) {
		const struct tc_event *e = &t->events[i];
		struct context_ref r = {.item = CONTEXT_NO_ITEM, .key = e->cpu, .kind = e->kind};

		if (e->start_ns >= end)
			break;
		if (e->kind != TC_EV_TIMER_FN || e->cpu != parent->cpu || !e->func)
			continue;
		r.start = e->start_ns;
		r.end = sat_add(e->start_ns, e->dur_ns);
		r.slot = SIZE_MAX / 2 + i; /* distinct from the active set's slots: a total order */
		r.arg = e->arg;
		r.func = e->func;
		if (context__add(c, &r))
			return -ENOMEM;
	}
	return 0;
}

/* Which parent a callback of kind runs inside: 1 timer interrupt or softirq, 2 off-CPU. */
static int parent_class(const struct tc_event *e)
{
	if (context_is_timer_parent(e))
		return 1;
	if (e->kind == TC_EV_OFFCPU && (e->flags & TC_OFFCPU_PREEMPTED))
		return 2;
	return 0;
}

int context_parents_note(struct context_parents *p, const struct tc_event *e, uint64_t end)
{
	int cls = parent_class(e);
	uint64_t *slot;

	if (!cls || e->cpu >= CONTEXT_PARENT_CPUS)
		return 0;
	if ((size_t)e->cpu >= p->n) {
		size_t n = p->n;

		if (grow(&p->end, &p->cap, 2 * ((size_t)e->cpu + 1), sizeof(*p->end)))
			return -ENOMEM;
		p->n = (size_t)e->cpu + 1;
		memset(p->end + 2 * n, 0, 2 * (p->n - n) * sizeof(*p->end));
	}
	slot = &p->end[2 * e->cpu + (size_t)(cls - 1)];
	if (end > *slot)
		*slot = end;
	return 0;
}

uint64_t context_parents_until(const struct context_parents *p, const struct tc_event *e)
{
	uint64_t end;

	if (!context_is_callback(e->kind) || (size_t)e->cpu >= p->n)
		return 0;
	end = p->end[2 * e->cpu + (e->kind == TC_EV_WORK)];
	return end > e->start_ns ? end : 0;
}

void context_parents_free(struct context_parents *p)
{
	free(p->end);
	memset(p, 0, sizeof(*p));
}

uint64_t context_preemptor_woke(const struct tc_trace *t, size_t j)
{
	const struct tc_event *o = &t->events[j];

	for (size_t k = j; k-- > 0 && j - k <= CONTEXT_LOOKAHEAD;) {
		const struct tc_event *p = &t->events[k];

		if (p->kind == TC_EV_OFFCPU && p->tid == o->other_pid && p->cpu == o->cpu &&
		    sat_add(p->start_ns, p->dur_ns) == o->start_ns) {
			if (p->flags & TC_OFFCPU_PREEMPTED)
				return CONTEXT_RUNNABLE;
			return p->woken_after_ns ? sat_add(p->start_ns, p->woken_after_ns) : 0;
		}
	}
	return 0;
}
