// SPDX-License-Identifier: BSD-2-Clause
/*
 * analyze_stream.c - a long trace analyzed a segment at a time (analyze_stream.h):
 * the events a segment needs (the carry) and the run over the segments. The blocks'
 * records come in start order from stream_pool.c; the segments' analyses are merged
 * by stream_merge.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_stream.h"
#include "core/attrib/spike_context.h"
#include "core/hosts/peer_join.h"
#include "core/util/grow.h"
#include "stream_internal.h"
#include "stream_pool.h"
#include "core/trace/trace_codec.h"
#include "core/trace/wakeups.h"

/* ---- the events a segment needs ----------------------------------------------------------- */

/* An interval a timer or work callback may run inside, still running at the cut. */
struct parent {
	uint32_t cpu;
	uint16_t callback; /* the kind of callback it holds */
	uint64_t start, end;
};

/* The callback kind e can hold (TC_EV_TIMER_FN, TC_EV_WORK), or 0 (spike_context.h). */
static uint16_t holds(const struct tc_event *e)
{
	if (context_is_timer_parent(e))
		return TC_EV_TIMER_FN;
	if (e->kind == TC_EV_OFFCPU && (e->flags & TC_OFFCPU_PREEMPTED))
		return TC_EV_WORK;
	return 0;
}

static int cmp_index(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * Adds to idx[0..*n) the last waking record (TC_EV_WAKEUP) of each thread among the n
 * events ev that end before edge: the recorder writes one only when a thread's waker
 * changes, so it names the waker of the thread's later waits however old it is
 * (core/attrib/wait_chain.h). A thread is its tid on its host (the peer's CPUs are apart).
 */
static int keep_last_wakings(const struct tc_event *ev, size_t n, uint64_t edge, size_t **idx,
			     size_t *n_idx, size_t *cap)
{
	size_t first = *n_idx;

	for (size_t i = 0; i < n; i++) {
		const struct tc_event *e = &ev[i];
		size_t k;

		if (e->kind != TC_EV_WAKEUP || end_of(e) >= edge)
			continue;
		for (k = first; k < *n_idx; k++)
			if (ev[(*idx)[k]].tid == e->tid &&
			    (ev[(*idx)[k]].cpu >= PEER_CPU_BASE) == (e->cpu >= PEER_CPU_BASE))
				break;
		if (k == *n_idx && grow(idx, cap, *n_idx + 1, sizeof(**idx)))
			return -ENOMEM;
		if (k == *n_idx)
			(*n_idx)++;
		(*idx)[k] = i;
	}
	if (*n_idx > 1)
		qsort(*idx, *n_idx, sizeof(**idx), cmp_index);
	return 0;
}

/*
 * Keeps in x, of the n events ev, those that may still matter from `from` on: those
 * ending after it (less STREAM_AHEAD_NS of slack), the callbacks that ran inside a
 * kept interval of theirs on their CPU (they name it in later windows), and each thread's
 * last waking record. One pass notes
 * the kept events, the kept parents and the callbacks that ended (few); those are then
 * weighed against the parents, and the kept ones copied in their order. 0 or -ENOMEM.
 */
static int carry_filter(struct evvec *x, const struct tc_event *ev, size_t n, uint64_t from)
{
	uint64_t edge = from > STREAM_AHEAD_NS ? from - STREAM_AHEAD_NS : 0;
	struct parent *ps = NULL;
	size_t *kept = NULL, *cbs = NULL;
	size_t n_ps = 0, cap_ps = 0, n_kept = 0, cap_kept = 0, n_cbs = 0, cap_cbs = 0, o = 0;
	int err = 0;

	x->n = 0;
	for (size_t i = 0; !err && i < n; i++) {
		const struct tc_event *e = &ev[i];
		uint16_t cb;

		if (end_of(e) < edge) {
			if (context_is_callback(e->kind) &&
			    !(err = grow(&cbs, &cap_cbs, n_cbs + 1, sizeof(*cbs))))
				cbs[n_cbs++] = i;
			continue;
		}
		err = grow(&kept, &cap_kept, n_kept + 1, sizeof(*kept));
		if (!err)
			kept[n_kept++] = i;
		cb = holds(e);
		if (!err && cb && !(err = grow(&ps, &cap_ps, n_ps + 1, sizeof(*ps))))
			ps[n_ps++] = (struct parent){e->cpu, cb, e->start_ns, end_of(e)};
	}
	/* the ended callbacks that ran inside a kept parent join the kept, in order */
	for (size_t i = 0; !err && i < n_cbs; i++) {
		const struct tc_event *e = &ev[cbs[i]];
		int keep = 0;

		for (size_t k = 0; !keep && k < n_ps; k++)
			keep = ps[k].cpu == e->cpu && ps[k].callback == e->kind &&
			       ps[k].start <= e->start_ns && e->start_ns < ps[k].end;
		if (keep)
			cbs[o++] = cbs[i];
	}
	if (!err)
		err = keep_last_wakings(ev, n, edge, &cbs, &o, &cap_cbs);
	for (size_t i = 0, j = 0; !err && (i < n_kept || j < o);)
		err = evvec_add(
			x, &ev[j == o || (i < n_kept && kept[i] < cbs[j]) ? kept[i++] : cbs[j++]],
			1);
	free(ps);
	free(kept);
	free(cbs);
	return err;
}

/* ---- the run --------------------------------------------------------------------------- */

struct run {
	const struct stream_source *src;
	const struct stream_params *p;
	struct stream_pool samples, events;
	struct tc_trace *scratch, *seg; /* seg's events: the carry, then those taken */
	size_t seg_steal;		/* steal intervals (TC_EV_STEAL) among seg's events */
	size_t seg_split;		/* and blocked intervals to split (trace__splittable()) */
	struct evvec carry;	/* raw events of earlier segments that later ones may need */
	struct tc_sample *back; /* round trips put back for the next segment */
	size_t n_back, cap_back;
	struct tc_steal_spent *spent; /* what segments gave of the steal intervals carried */
	size_t n_spent, cap_spent;
	struct merger m;
	uint64_t done;
};

/* The events starting before h, new to the run: into the segment and, where the header
 * lists them, the result. */
static int take_events(struct run *r, uint64_t h)
{
	struct stream_pool *p = &r->events;
	const struct tc_event *src;
	struct tc_event *dst;
	size_t end, n, steal = 0, split = 0;
	int err;

	while (p->next < p->n_pending && stream_pool_limit(p) < h) {
		err = stream_pool_open(p, r->src, r->scratch);
		if (err)
			return err;
	}
	end = stream_pool_lower(p, h);
	if (end == p->head)
		return 0;
	n = end - p->head;
	err = grow(&r->seg->events, &r->seg->cap_events, r->seg->n_events + n,
		   sizeof(*r->seg->events));
	if (err)
		return err;
	/* one pass: each copied, and noted for the header, the steal count and the split */
	src = (const struct tc_event *)(p->rec + p->head * p->size);
	dst = r->seg->events + r->seg->n_events;
	for (size_t i = 0; i < n; i++) {
		dst[i] = src[i];
		if ((src[i].kind == TC_EV_LOST || src[i].kind == TC_EV_IRQ_MOVE) &&
		    evvec_add(&r->m.extra, &src[i], 1))
			return -ENOMEM;
		steal += src[i].kind == TC_EV_STEAL;
		split += trace__splittable(&src[i]);
	}
	r->seg->n_events += n;
	r->seg_steal += steal;
	r->seg_split += split;
	p->head = end;
	return 0;
}

/* The lost windows and IRQ moves after the last round trip, for the header: the rest of
 * the events, a block at a time. */
static int drain_events(struct run *r)
{
	struct stream_pool *p = &r->events;
	int err = 0;

	while (!err && (p->next < p->n_pending || p->head < p->n)) {
		uint64_t lim = stream_pool_limit(p);

		r->seg->n_events = 0;
		err = take_events(r, lim == UINT64_MAX ? UINT64_MAX : lim + 1);
	}
	r->seg->n_events = 0;
	return err;
}

/*
 * How many of seg's round trips can be decided now: all but those from the first a
 * steal interval may overlap that runs on past next (the next round trip's start).
 * A steal interval's amount goes to its largest spikes first, so all the spikes it
 * overlaps are weighed in one segment: those round trips wait for the next. last_end:
 * the latest end among seg's round trips; steal: whether seg has steal intervals.
 */
static size_t decidable(const struct tc_trace *seg, uint64_t next, uint64_t last_end, size_t steal)
{
	uint64_t reach = next;
	size_t i, keep = seg->n_samples;

	if (!steal)
		return keep;
	/*
	 * The round trips that wait reach back to `reach`; a steal interval that overlaps
	 * them and starts earlier makes more of them wait, and so on.
	 */
	for (;;) {
		uint64_t from = UINT64_MAX;

		for (i = 0; i < seg->n_events; i++) {
			const struct tc_event *e = &seg->events[i];

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
	size_t seen = 0; /* round trips whose end last_end counts */
	long got;
	int err;

	err = trace__add_events(seg, r->carry.v, r->carry.n);
	err = err ?: trace__add_samples(seg, r->back, r->n_back);
	r->n_back = 0;
	r->seg_steal = r->seg_split = 0;
	for (size_t i = 0; i < r->carry.n; i++) {
		r->seg_steal += r->carry.v[i].kind == TC_EV_STEAL;
		r->seg_split += trace__splittable(&r->carry.v[i]);
	}
	for (;;) {
		got = err ? 0
			  : stream_pool_take_samples(&r->samples, r->src, r->scratch, want, seg);
		if (got < 0)
			return (int)got;
		for (; seen < seg->n_samples; seen++)
			if (seg->samples[seen].t_end > last_end)
				last_end = seg->samples[seen].t_end;
		err = err ?: take_events(r, sat_add(last_end, STREAM_AHEAD_NS));
		err = err ?: stream_pool_peek_sample(&r->samples, r->src, r->scratch, next);
		if (err)
			return err;
		*keep = decidable(seg, *next, last_end, r->seg_steal);
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
	long split;
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
	/* what later segments need, taken raw before the wake-ups are split */
	err = carry_filter(&r->carry, r->seg->events, r->seg->n_events, next);
	split = err || !r->seg_split ? 0 : trace__split_wakeups(r->seg);
	if (err || split < 0)
		return err ?: -ENOMEM;
	/*
	 * The round trips (those put back, then the pool's) and the events (the carry, which
	 * started before the pool's next, then the pool's) come in start order: only the
	 * waits split off the blocked intervals, appended, need placing. (analysis__run()
	 * checks the order: a segment out of it is an error, never a wrong report.)
	 */
	if (split)
		trace__sort(r->seg);
	o.stats = &r->p->stats;
	o.stats_pct = r->p->stats_pct;
	o.seed_causes = r->m.a->causes;
	o.n_seed_causes = r->m.a->n_causes;
	o.steal_spent = r->spent;
	o.n_steal_spent = r->n_spent;
	err = analysis__run(r->seg, &o, &sa);
	if (!err && r->p->on_samples)
		err = r->p->on_samples(r->p->on_samples_arg, r->seg->samples, keep);
	err = err ?: stream_merge(&r->m, r->seg, sa, r->done);
	err = err ?: note_spent(r, sa, next > STREAM_AHEAD_NS ? next - STREAM_AHEAD_NS : 0);
	analysis__free(sa);
	r->done += keep;
	r->p->out->segments++;
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
	err = err ?: stream_pool_init(&r.samples, src, TC_BLOCK_SAMPLES);
	err = err ?: stream_pool_init(&r.events, src, TC_BLOCK_EVENTS);
	while (!err)
		err = segment(&r);
	if (err == 1)
		err = drain_events(&r) ?: 1;
	if (err == 1)
		err = r.done ? stream_finish(&r.m, skel, rt) : -EINVAL;
	if (!err) {
		*ra = r.m.a;
		r.m.a = NULL;
	}
	stream_merger_free(&r.m);
	stream_pool_free(&r.samples);
	stream_pool_free(&r.events);
	trace__free_view(r.scratch);
	trace__free_view(r.seg);
	free(r.carry.v);
	free(r.back);
	free(r.spent);
	return err;
}
