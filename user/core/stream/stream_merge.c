// SPDX-License-Identifier: BSD-2-Clause
/*
 * stream_merge.c - the segments' analyses of a streamed run merged into one
 * (analyze_stream.h): causes by name, totals, and the largest spikes kept with copies
 * of their intervals; at the end, the trace of the kept spikes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/heap.h"
#include "stream_internal.h"

static int kept_below(const struct kept *x, const struct kept *y)
{
	return x->sp.rtt_ns != y->sp.rtt_ns ? x->sp.rtt_ns < y->sp.rtt_ns
					    : x->sp.sample > y->sp.sample;
}

static void kept_free(struct kept *k)
{
	if (!k)
		return;
	free(k->c);
	free(k->ev);
	free(k);
}

/* kept_below() of two heap slots (heap.h). */
static int slot_below(const void *ctx, const void *x, const void *y)
{
	(void)ctx;
	return kept_below(*(struct kept *const *)x, *(struct kept *const *)y);
}

/* The run's index of cause c of a segment (added with nothing counted if new). */
static int cause_of(struct merger *m, const struct tc_cause *c, uint32_t *out)
{
	struct tc_analysis *a = m->a;

	for (size_t i = 0; i < a->n_causes; i++)
		if (a->causes[i].cls == c->cls && !strcmp(a->causes[i].name, c->name)) {
			*out = (uint32_t)i;
			return 0;
		}
	if (grow(&a->causes, &m->cap_causes, a->n_causes + 1, sizeof(*a->causes)))
		return -ENOMEM;
	a->causes[a->n_causes] = *c;
	a->causes[a->n_causes].spikes = a->causes[a->n_causes].excess_ns = 0;
	a->causes[a->n_causes].hidden_ns = 0;
	cpuset_zero(&a->causes[a->n_causes].cpus);
	*out = (uint32_t)a->n_causes++;
	return 0;
}

/* A copy of spike sp of segment analysis sa, its causes in the run's numbering. */
static struct kept *keep_spike(const struct tc_trace *seg, const struct tc_analysis *sa,
			       const struct tc_spike *sp, const uint32_t *map, uint64_t base)
{
	struct kept *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->sp = *sp;
	k->s = seg->samples[sp->sample];
	k->sp.sample = (size_t)(base + sp->sample);
	k->sp.run_sample = k->sp.sample;
	k->sp.primary = map[sp->primary];
	k->sp.candidate = sp->candidate == TC_NO_CAUSE ? TC_NO_CAUSE : map[sp->candidate];
	k->c = malloc((sp->n_contrib ? sp->n_contrib : 1) * sizeof(*k->c));
	k->ev = malloc((sp->n_contrib ? sp->n_contrib : 1) * sizeof(*k->ev));
	if (!k->c || !k->ev) {
		kept_free(k);
		return NULL;
	}
	for (size_t i = 0; i < sp->n_contrib; i++) {
		k->c[i] = sa->contribs[sp->first_contrib + i];
		k->ev[i] = seg->events[k->c[i].event];
		k->c[i].event = i;
		k->c[i].cause = map[k->c[i].cause];
	}
	return k;
}

static int merge_spike(struct merger *m, struct kept *k)
{
	const struct heap h = {m->heap, sizeof(*m->heap), slot_below, NULL};

	if (!k)
		return -ENOMEM;
	if (m->n_heap < m->keep) {
		m->heap[m->n_heap] = k;
		heap_sift_up(&h, m->n_heap++);
	} else if (m->n_heap && kept_below(m->heap[0], k)) {
		kept_free(m->heap[0]);
		m->heap[0] = k;
		heap_sift_down(&h, m->n_heap, 0);
	} else {
		kept_free(k);
	}
	return 0;
}

/* Would spike sp (of a segment whose first sample is the run's number base) be kept? */
static int enters(const struct merger *m, const struct tc_spike *sp, uint64_t base)
{
	struct kept probe = {.sp = {.rtt_ns = sp->rtt_ns, .sample = (size_t)(base + sp->sample)}};

	return kept_below(m->heap[0], &probe);
}

/* Adds segment analysis sa (seg's, its first sample the run's number base) to the run's. */
int stream_merge(struct merger *m, const struct tc_trace *seg, const struct tc_analysis *sa,
		 uint64_t base)
{
	struct tc_analysis *a = m->a;
	uint32_t *map = malloc((sa->n_causes ? sa->n_causes : 1) * sizeof(*map));
	int err = map ? 0 : -ENOMEM;

	for (size_t i = 0; !err && i < sa->n_causes; i++) {
		err = cause_of(m, &sa->causes[i], &map[i]);
		if (!err) {
			a->causes[map[i]].spikes += sa->causes[i].spikes;
			a->causes[map[i]].excess_ns =
				sat_add(a->causes[map[i]].excess_ns, sa->causes[i].excess_ns);
			a->causes[map[i]].hidden_ns =
				sat_add(a->causes[map[i]].hidden_ns, sa->causes[i].hidden_ns);
			cpuset_or(&a->causes[map[i]].cpus, &a->causes[map[i]].cpus,
				  &sa->causes[i].cpus);
		}
	}
	for (size_t i = 0; !err && i < sa->n_spikes; i++)
		if (m->keep && (m->n_heap < m->keep || enters(m, &sa->spikes[i], base)))
			err = merge_spike(m, keep_spike(seg, sa, &sa->spikes[i], map, base));
	free(map);
	if (err)
		return err;
	a->n_spikes_run += sa->n_spikes;
	a->total_excess_ns = sat_add(a->total_excess_ns, sa->total_excess_ns);
	if (!m->started) {
		a->stats = sa->stats;
		a->rule = sa->rule;
		a->threshold_ns = sa->threshold_ns;
		a->coverage_complete = sa->coverage_complete;
		memcpy(a->coverage_missing, sa->coverage_missing, sizeof(a->coverage_missing));
		a->calibrated = sa->calibrated;
		m->started = 1;
	}
	return 0;
}

/* ---- the result ------------------------------------------------------------------------- */

static int cmp_event_full(const void *x, const void *y)
{
	const struct tc_event *a = x, *b = y;

	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	return memcmp(a, b, sizeof(*a));
}

static int cmp_kept_sample(const void *x, const void *y)
{
	const struct kept *a = *(const struct kept *const *)x, *b = *(const struct kept *const *)y;

	return a->sp.sample < b->sp.sample ? -1 : a->sp.sample > b->sp.sample;
}

/* The kept spikes' trace and the run's analysis with them; 0 or -ENOMEM. */
int stream_finish(struct merger *m, const struct tc_trace *skel, struct tc_trace **rt)
{
	struct tc_analysis *a = m->a;
	struct evvec ev = {0};
	size_t n_c = 0, o = 0;
	struct tc_trace *t;
	int err = 0;

	qsort(m->heap, m->n_heap, sizeof(*m->heap), cmp_kept_sample);
	for (size_t i = 0; i < m->n_heap; i++)
		n_c += m->heap[i]->sp.n_contrib;
	t = trace__copy_tables(skel);
	if (t) {
		t->streamed = skel->streamed;
		t->streamed.on = 1;
	}
	a->spikes = calloc(m->n_heap ? m->n_heap : 1, sizeof(*a->spikes));
	a->contribs = calloc(n_c ? n_c : 1, sizeof(*a->contribs));
	if (!t || !a->spikes || !a->contribs) {
		trace__free(t);
		return -ENOMEM;
	}
	err = evvec_add(&ev, m->extra.v, m->extra.n);
	for (size_t i = 0; !err && i < m->n_heap; i++)
		err = evvec_add(&ev, m->heap[i]->ev, m->heap[i]->sp.n_contrib);
	if (!err) {
		/* one copy of each interval, however many spikes it took part in */
		if (ev.n)
			qsort(ev.v, ev.n, sizeof(*ev.v), cmp_event_full);
		for (size_t i = 0; i < ev.n; i++)
			if (!o || cmp_event_full(&ev.v[o - 1], &ev.v[i]))
				ev.v[o++] = ev.v[i];
		ev.n = o;
		err = trace__add_events(t, ev.v, ev.n);
	}
	for (size_t i = 0; !err && i < m->n_heap; i++) {
		struct kept *k = m->heap[i];
		struct tc_spike *sp = &a->spikes[i];

		err = trace__add_samples(t, &k->s, 1);
		*sp = k->sp;
		sp->sample = i;
		sp->first_contrib = a->n_contribs;
		for (size_t j = 0; !err && j < sp->n_contrib; j++) {
			struct tc_contrib c = k->c[j];
			const struct tc_event *e = bsearch(&k->ev[c.event], t->events, t->n_events,
							   sizeof(*t->events), cmp_event_full);

			c.event = (size_t)(e - t->events);
			a->contribs[a->n_contribs++] = c;
		}
	}
	free(ev.v);
	a->n_spikes = m->n_heap;
	if (err) {
		trace__free(t);
		return err;
	}
	*rt = t;
	return 0;
}

void stream_merger_free(struct merger *m)
{
	for (size_t i = 0; i < m->n_heap; i++)
		kept_free(m->heap[i]);
	free(m->heap);
	free(m->extra.v);
	analysis__free(m->a);
}
