// SPDX-License-Identifier: BSD-2-Clause
/*
 * analyze_stream.c - a long trace analyzed a segment at a time (analyze_stream.h):
 * the events a segment needs (the carry), the segments' analyses merged into one
 * (the merger), and the run over the segments. The blocks' records come in start
 * order from stream_pool.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_stream.h"
#include "context.h"
#include "grow.h"
#include "stream_pool.h"
#include "trace_codec.h"
#include "wakeups.h"

/* ---- the events a segment needs ----------------------------------------------------------- */

struct evvec {
	struct tc_event *v;
	size_t n, cap;
};

static int evvec_add(struct evvec *x, const struct tc_event *e, size_t n)
{
	if (!n)
		return 0;
	if (grow(&x->v, &x->cap, x->n + n, sizeof(*x->v)))
		return -ENOMEM;
	memcpy(x->v + x->n, e, n * sizeof(*e));
	x->n += n;
	return 0;
}

/* Per CPU, the earliest start of a kept interval a callback may run inside. */
struct parent_start {
	uint32_t cpu;
	uint64_t start;
};

static int is_parent(const struct tc_event *e)
{
	return context_is_timer_parent(e) || e->kind == TC_EV_OFFCPU;
}

static uint64_t end_of(const struct tc_event *e)
{
	return sat_add(e->start_ns, e->dur_ns);
}

/*
 * Keeps of x the events that may still matter from `from` on: those ending after it
 * (less STREAM_AHEAD_NS of slack), and the callbacks that ran inside a kept interval
 * on their CPU. 0 or -ENOMEM.
 */
static int carry_filter(struct evvec *x, uint64_t from)
{
	uint64_t edge = from > STREAM_AHEAD_NS ? from - STREAM_AHEAD_NS : 0;
	struct parent_start *ps = NULL;
	size_t n_ps = 0, cap_ps = 0, o = 0;

	for (size_t i = 0; i < x->n; i++) {
		const struct tc_event *e = &x->v[i];
		size_t k;

		if (!is_parent(e) || end_of(e) < edge)
			continue;
		for (k = 0; k < n_ps && ps[k].cpu != e->cpu; k++)
			;
		if (k == n_ps) {
			if (grow(&ps, &cap_ps, n_ps + 1, sizeof(*ps))) {
				free(ps);
				return -ENOMEM;
			}
			ps[n_ps++] = (struct parent_start){e->cpu, e->start_ns};
		} else if (e->start_ns < ps[k].start) {
			ps[k].start = e->start_ns;
		}
	}
	for (size_t i = 0; i < x->n; i++) {
		struct tc_event e = x->v[i];
		int keep = end_of(&e) >= edge;

		if (!keep && context_is_callback(e.kind))
			for (size_t k = 0; k < n_ps && !keep; k++)
				keep = ps[k].cpu == e.cpu && ps[k].start <= e.start_ns;
		if (keep)
			x->v[o++] = e;
	}
	x->n = o;
	free(ps);
	return 0;
}

/* ---- the segments' analyses, merged -------------------------------------------------------- */

struct kept {
	struct tc_spike sp; /* sample: the run's index; contribs' events index ev */
	struct tc_sample s;
	struct tc_contrib *c;
	struct tc_event *ev;
};

struct merger {
	struct tc_analysis *a; /* causes and totals; spikes at the end */
	size_t cap_causes;
	struct kept **heap; /* the kept spikes; the root ranks lowest */
	size_t n_heap, keep;
	int started;
	struct evvec extra; /* lost windows and IRQ moves, which the header lists */
};

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

static void heap_down(struct kept **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct kept *tmp;

		if (l < n && kept_below(h[l], h[m]))
			m = l;
		if (l + 1 < n && kept_below(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

static void heap_up(struct kept **h, size_t i)
{
	while (i) {
		size_t up = (i - 1) / 2;
		struct kept *tmp;

		if (!kept_below(h[i], h[up]))
			return;
		tmp = h[i];
		h[i] = h[up];
		h[up] = tmp;
		i = up;
	}
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
	if (!k)
		return -ENOMEM;
	if (m->n_heap < m->keep) {
		m->heap[m->n_heap] = k;
		heap_up(m->heap, m->n_heap++);
	} else if (m->n_heap && kept_below(m->heap[0], k)) {
		kept_free(m->heap[0]);
		m->heap[0] = k;
		heap_down(m->heap, m->n_heap, 0);
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
static int merge(struct merger *m, const struct tc_trace *seg, const struct tc_analysis *sa,
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

/* A new trace with skel's tables; NULL on failure. */
static struct tc_trace *copy_tables(const struct tc_trace *skel)
{
	struct tc_trace *t = trace__new();
	int err = t ? 0 : -ENOMEM;

	for (size_t i = 0; !err && i < skel->n_meta; i++)
		err = trace__set_meta(t, skel->meta[i].key, skel->meta[i].val);
	for (size_t i = 0; !err && i < skel->n_threads; i++)
		err = trace__add_thread(t, skel->threads[i].tid, skel->threads[i].role,
					skel->threads[i].cpu);
	for (size_t i = 0; !err && i < skel->n_irq_names; i++)
		err = trace__add_irq_name(t, skel->irq_names[i].irq, skel->irq_names[i].name);
	for (size_t i = 0; !err && i < skel->n_counters; i++)
		err = trace__add_counter(t, skel->counters[i].kind, skel->counters[i].key,
					 skel->counters[i].cpu, skel->counters[i].value);
	for (size_t i = 0; !err && i < skel->n_drops; i++)
		if (skel->drops[i])
			err = trace__set_drops(t, (uint32_t)i, skel->drops[i]);
	if (err) {
		trace__free(t);
		return NULL;
	}
	t->mono_ns = skel->mono_ns;
	t->realtime_ns = skel->realtime_ns;
	t->truncated = skel->truncated;
	t->streamed = skel->streamed;
	t->streamed.on = 1;
	return t;
}

/* The kept spikes' trace and the run's analysis with them; 0 or -ENOMEM. */
static int finish(struct merger *m, const struct tc_trace *skel, struct tc_trace **rt)
{
	struct tc_analysis *a = m->a;
	struct evvec ev = {0};
	size_t n_c = 0, o = 0;
	struct tc_trace *t;
	int err = 0;

	qsort(m->heap, m->n_heap, sizeof(*m->heap), cmp_kept_sample);
	for (size_t i = 0; i < m->n_heap; i++)
		n_c += m->heap[i]->sp.n_contrib;
	t = copy_tables(skel);
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

static void merger_free(struct merger *m)
{
	for (size_t i = 0; i < m->n_heap; i++)
		kept_free(m->heap[i]);
	free(m->heap);
	free(m->extra.v);
	analysis__free(m->a);
}

/* ---- the run --------------------------------------------------------------------------- */

struct run {
	const struct stream_source *src;
	const struct stream_params *p;
	struct pool samples, events;
	struct tc_trace *scratch, *seg;
	struct evvec carry;	/* raw events taken, that later segments may need */
	struct tc_sample *back; /* round trips put back for the next segment */
	size_t n_back, cap_back;
	struct tc_steal_spent *spent; /* what segments gave of the steal intervals carried */
	size_t n_spent, cap_spent;
	struct merger m;
	uint64_t done;
};

/* The events starting before h, new to the run: into the carry and, where the header
 * lists them, the result. */
static int take_events(struct run *r, uint64_t h)
{
	struct pool *p = &r->events;
	size_t end;
	int err;

	while (p->next < p->n_pending && pool_limit(p) < h) {
		err = pool_open(p, r->src, r->scratch);
		if (err)
			return err;
	}
	end = pool_lower(p, h);
	for (size_t i = p->head; i < end; i++) {
		const struct tc_event *e = (const struct tc_event *)(p->rec + i * p->size);

		if ((e->kind == TC_EV_LOST || e->kind == TC_EV_IRQ_MOVE) &&
		    evvec_add(&r->m.extra, e, 1))
			return -ENOMEM;
	}
	err = end > p->head
		      ? evvec_add(&r->carry, (const struct tc_event *)(p->rec + p->head * p->size),
				  end - p->head)
		      : 0;
	p->head = end;
	return err;
}

/* The lost windows and IRQ moves after the last round trip, for the header: the rest of
 * the events, a block at a time. */
static int drain_events(struct run *r)
{
	struct pool *p = &r->events;
	int err = 0;

	while (!err && (p->next < p->n_pending || p->head < p->n)) {
		uint64_t lim = pool_limit(p);

		r->carry.n = 0;
		err = take_events(r, lim == UINT64_MAX ? UINT64_MAX : lim + 1);
	}
	r->carry.n = 0;
	return err;
}

/*
 * How many of seg's round trips can be decided now: all but those from the first a
 * steal interval may overlap that runs on past next (the next round trip's start).
 * A steal interval's amount goes to its largest spikes first, so all the spikes it
 * overlaps are weighed in one segment: those round trips wait for the next.
 */
static size_t decidable(const struct run *r, const struct tc_trace *seg, uint64_t next)
{
	uint64_t last_end = 0, reach = next;
	size_t i, keep = seg->n_samples;

	for (i = 0; i < seg->n_samples; i++)
		last_end = seg->samples[i].t_end > last_end ? seg->samples[i].t_end : last_end;
	/*
	 * The round trips that wait reach back to `reach`; a steal interval that overlaps
	 * them and starts earlier makes more of them wait, and so on.
	 */
	for (;;) {
		uint64_t from = UINT64_MAX;

		for (i = 0; i < r->carry.n; i++) {
			const struct tc_event *e = &r->carry.v[i];

			if (e->kind == TC_EV_STEAL && e->start_ns < last_end && end_of(e) > reach &&
			    e->start_ns < from)
				from = e->start_ns;
		}
		if (from == UINT64_MAX)
			return keep;
		for (i = 0; i < keep && seg->samples[i].t_end <= from; i++)
			;
		if (i == keep)
			return keep;
		keep = i;
		if (!keep)
			return 0;
		reach = seg->samples[keep].t_start;
	}
}

/* Adds what segment analysis sa gave of each steal interval to what was given before,
 * and forgets the intervals no later segment holds (ended before edge). */
static int note_spent(struct run *r, const struct tc_analysis *sa, uint64_t edge)
{
	size_t o = 0;

	for (size_t i = 0; i < sa->n_contribs; i++) {
		const struct tc_contrib *c = &sa->contribs[i];
		const struct tc_event *e = &r->seg->events[c->event];

		if (e->kind != TC_EV_STEAL || !c->attributed_ns)
			continue;
		if (grow(&r->spent, &r->cap_spent, r->n_spent + 1, sizeof(*r->spent)))
			return -ENOMEM;
		r->spent[r->n_spent++] =
			(struct tc_steal_spent){e->start_ns, e->cpu, end_of(e), c->attributed_ns};
	}
	if (r->n_spent)
		qsort(r->spent, r->n_spent, sizeof(*r->spent), analyze_cmp_spent);
	for (size_t i = 0; i < r->n_spent; i++) {
		if (r->spent[i].end_ns < edge)
			continue;
		if (o && !analyze_cmp_spent(&r->spent[o - 1], &r->spent[i]))
			r->spent[o - 1].ns += r->spent[i].ns;
		else
			r->spent[o++] = r->spent[i];
	}
	r->n_spent = o;
	return 0;
}

/* seg's round trips: those put back, then the next ones, and their events; how many
 * can be decided (*keep), the next round trip's start (*next). */
static int fill(struct run *r, size_t want, size_t *keep, uint64_t *next)
{
	struct tc_trace *seg = r->seg;
	uint64_t last_end = 0;
	long got;
	int err;

	err = trace__add_samples(seg, r->back, r->n_back);
	r->n_back = 0;
	for (;;) {
		got = err ? 0 : take_samples(&r->samples, r->src, r->scratch, want, seg);
		if (got < 0)
			return (int)got;
		for (size_t i = 0; i < seg->n_samples; i++)
			if (seg->samples[i].t_end > last_end)
				last_end = seg->samples[i].t_end;
		err = err ?: take_events(r, sat_add(last_end, STREAM_AHEAD_NS));
		err = err ?: peek_sample(&r->samples, r->src, r->scratch, next);
		if (err)
			return err;
		*keep = decidable(r, seg, *next);
		/* a steal interval longer than the segment: a longer segment, up to a bound */
		if (*keep || *next == UINT64_MAX || seg->n_samples >= STREAM_GROW * want)
			break;
	}
	if (!*keep && seg->n_samples) {
		*keep = seg->n_samples; /* the bound: its spikes are weighed apart */
		r->p->out->steal_cuts++;
	}
	return 0;
}

/* One segment: its samples, its events, its analysis merged. 1 when there are no more. */
static int segment(struct run *r)
{
	struct tc_analysis_opts o = *r->p->opts;
	struct tc_analysis *sa = NULL;
	size_t want = r->p->segment_samples ? r->p->segment_samples : STREAM_SEGMENT_SAMPLES;
	size_t keep = 0;
	uint64_t next = UINT64_MAX;
	int err;

	r->seg->n_samples = r->seg->n_events = r->seg->n_derived = 0;
	err = fill(r, want, &keep, &next);
	if (err || !r->seg->n_samples)
		return err ?: 1;
	/* the round trips that wait go back, first of the next segment */
	if (grow(&r->back, &r->cap_back, r->seg->n_samples - keep, sizeof(*r->back)))
		return -ENOMEM;
	r->n_back = r->seg->n_samples - keep;
	if (r->n_back)
		memcpy(r->back, r->seg->samples + keep, r->n_back * sizeof(*r->back));
	r->seg->n_samples = keep;
	if (r->n_back)
		next = r->back[0].t_start;
	err = trace__add_events(r->seg, r->carry.v, r->carry.n);
	if (!err && trace__split_wakeups(r->seg) < 0)
		err = -ENOMEM;
	if (err)
		return err;
	trace__sort(r->seg);
	o.stats = &r->p->stats;
	o.stats_pct = r->p->stats_pct;
	o.seed_causes = r->m.a->causes;
	o.n_seed_causes = r->m.a->n_causes;
	o.steal_spent = r->spent;
	o.n_steal_spent = r->n_spent;
	err = analysis__run(r->seg, &o, &sa);
	err = err ?: merge(&r->m, r->seg, sa, r->done);
	err = err ?: note_spent(r, sa, next > STREAM_AHEAD_NS ? next - STREAM_AHEAD_NS : 0);
	analysis__free(sa);
	r->done += keep;
	r->p->out->segments++;
	err = err ?: carry_filter(&r->carry, next);
	if (!err && r->p->progress)
		r->p->progress(r->p->progress_arg, r->done, r->seg->streamed.n_samples);
	return err;
}

int analysis_stream_run(const struct tc_trace *skel, const struct stream_source *src,
			const struct stream_params *p, struct tc_trace **rt,
			struct tc_analysis **ra)
{
	struct run r = {.src = src, .p = p};
	int err;

	if (!skel || !src || !p || !p->opts || !p->out || !rt || !ra || !p->stats.n)
		return -EINVAL;
	memset(p->out, 0, sizeof(*p->out));
	r.m.keep = p->keep;
	r.m.a = calloc(1, sizeof(*r.m.a));
	r.m.heap = malloc((p->keep ? p->keep : 1) * sizeof(*r.m.heap));
	r.scratch = trace__view(skel);
	r.seg = trace__view(skel);
	err = r.m.a && r.m.heap && r.scratch && r.seg ? 0 : -ENOMEM;
	err = err ?: pool_init(&r.samples, src, TC_BLOCK_SAMPLES);
	err = err ?: pool_init(&r.events, src, TC_BLOCK_EVENTS);
	while (!err)
		err = segment(&r);
	if (err == 1)
		err = drain_events(&r) ?: 1;
	if (err == 1)
		err = r.done ? finish(&r.m, skel, rt) : -EINVAL;
	if (!err) {
		*ra = r.m.a;
		r.m.a = NULL;
	}
	merger_free(&r.m);
	pool_free(&r.samples);
	pool_free(&r.events);
	trace__free_view(r.scratch);
	trace__free_view(r.seg);
	free(r.carry.v);
	free(r.back);
	free(r.spent);
	return err;
}
