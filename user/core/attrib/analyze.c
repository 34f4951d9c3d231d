// SPDX-License-Identifier: BSD-2-Clause
/*
 * analyze.c - tail-spike attribution (analyze.h): one sweep over the samples and events,
 * both sorted by start, with an active set of the intervals that may still overlap a
 * spike, each event pushed and popped at most once; each window's intervals are weighed
 * by spike_window.c and analyze_window.c, what follows the sweep by analyze_after.c. The
 * algorithm is docs/design.md's "Attribution model".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_internal.h"
#include "core/util/grow.h"
#include "spike_rule.h"

/* Widens x by the hidden cost of its kind, where the trace is calibrated. */
static void widen(const struct ctx *c, const struct tc_event *e, struct active *x)
{
	const struct tc_calib_kind *k = calibrate_kind(&c->cal, e->kind);

	/* the calibration is this host's: the peer's intervals are not widened by it */
	if (!k || x->end <= x->start || trace__is_peer(c->t, e))
		return;
	x->pre = k->pre_ns < x->start ? k->pre_ns : x->start;
	x->post = k->post_ns;
	x->start -= x->pre;
	x->end = sat_add(x->end, x->post);
}

/* ---- statistics ------------------------------------------------------------------------ */

/* Fills a->stats and a->threshold_ns (analyze_setup_filters() checked the samples' order). */
static int compute_stats(struct tc_analysis *a, const struct tc_trace *t,
			 const struct tc_analysis_opts *o)
{
	struct lat_spans rtt = {.base = t->samples,
				.n = t->n_samples,
				.stride = sizeof(*t->samples),
				.start_off = offsetof(struct tc_sample, t_start),
				.end_off = offsetof(struct tc_sample, t_end)};
	uint64_t pct;
	int err;

	if (o && o->stats) {
		a->stats = *o->stats;
		a->threshold_ns = spike_rule_threshold(&a->rule, &a->stats, o->stats_pct);
		return 0;
	}
	/* read in place: no copy of the RTTs, no sort */
	err = stats_summarize_spans(&rtt, spike_rule_percentile(&a->rule), &pct, &a->stats);
	if (err)
		return err;
	a->threshold_ns = spike_rule_threshold(&a->rule, &a->stats, pct);
	return 0;
}

static int is_mm(const struct tc_event *e)
{
	return e->kind == TC_EV_COMPACTION || e->kind == TC_EV_RECLAIM;
}

/*
 * Events in start order from *next on: the events the sweep did not reach
 * must be too. 1 or 0.
 */
static int events_sorted(const struct tc_trace *t, size_t next)
{
	for (size_t i = next ? next : 1; i < t->n_events; i++)
		if (t->events[i].start_ns < t->events[i - 1].start_ns)
			return 0;
	return 1;
}

/*
 * Brings the active set up to the window [ws, we), checking on the way that
 * the events it passes are in start order; 0, -EINVAL or -ENOMEM.
 */
static int advance(struct ctx *c, size_t *next, uint64_t ws, uint64_t we)
{
	const struct tc_trace *t = c->t;
	/*
	 * A span starts at its event, or earlier by its hidden cost (max_pre): events
	 * starting by then hold every span that may overlap the window. A span ends by
	 * start + dur + max_post, and its until by one more (an idle exit of unknown
	 * latency is an instant at the event's end).
	 */
	uint64_t reach = sat_add(we, c->max_pre), post = sat_add(c->max_post, 1);
	size_t i = *next;

	for (; i < t->n_events && t->events[i].start_ns < reach; i++) {
		const struct tc_event *e = &t->events[i];
		uint64_t parent_end = context_parents_until(&c->parents, e);
		struct active x;

		if (i && e->start_ns < e[-1].start_ns)
			return -EINVAL;
		/* most events lie between spikes: skipped before they are weighed */
		if (sat_add(sat_add(e->start_ns, e->dur_ns), post) <= ws && parent_end <= ws)
			continue;
		x = (struct active){.ev = i, .cpu = e->cpu, .cause = TC_NO_CAUSE};
		event_span(&c->lat, e, &x.start, &x.end);
		widen(c, e, &x);
		/*
		 * Spikes come in t_start order: an interval that ends by ws, or an
		 * instant before ws, overlaps no later spike. A callback names its
		 * parent in every window the parent reaches (spike_context.h).
		 */
		x.until = x.end > x.start ? x.end : sat_add(x.start, 1);
		if (x.until < parent_end)
			x.until = parent_end;
		if (x.until <= ws)
			continue;
		if (context_parents_note(&c->parents, e, x.end)) {
			*next = i;
			return -ENOMEM;
		}
		x.probe_rel = analyze_probe_tid(c, e->tid) || analyze_probe_cpu(c, e->cpu) ||
			      (e->kind == TC_EV_SIBLING && analyze_beside_probe(c, e->arg)) ||
			      e->kind == TC_EV_COUNTER; /* the path is every round trip's */
		x.mm = x.end > x.start && is_mm(e);
		if (!x.mm && !analyze_maybe_relevant(c, e, x.probe_rel) &&
		    !wait_chain_maybe(&c->chain, e))
			continue;
		if (active_set_push(&c->act, &x)) {
			*next = i;
			return -ENOMEM;
		}
	}
	*next = i;
	while (c->act.n && c->act.items[0].until <= ws)
		active_set_pop(&c->act);
	return 0;
}

/* ---- one spike (its window's items: analyze_window.c) ---------------------------------- */

static uint64_t clip_len(uint64_t s, uint64_t e, uint64_t ws, uint64_t we)
{
	s = s > ws ? s : ws;
	e = e < we ? e : we;
	return e > s ? e - s : 0;
}

/*
 * Of an interval's credit att, the share that falls in its widening (the hidden cost):
 * x's pre and post; the item it became in the window (it) may span further (a wake-up
 * interrupt, up to the switch it led to).
 */
static uint64_t hidden_part(const struct active *x, const struct spike_item *it, uint64_t att,
			    uint64_t ws, uint64_t we)
{
	uint64_t all = clip_len(it->start, it->end, ws, we),
		 hid = clip_len(x->start, x->start + x->pre, ws, we) +
		       clip_len(x->end - x->post, x->end, ws, we);

	if (!att || !hid || !all)
		return 0;
	return (uint64_t)((long double)att * hid / all);
}

static int store_contribs(struct ctx *c, struct tc_spike *sp, uint64_t ws, uint64_t we)
{
	struct tc_analysis *a = c->a;

	if (grow(&a->contribs, &c->cap_contribs, a->n_contribs + c->win.n_items,
		 sizeof(*a->contribs)))
		return -ENOMEM;
	sp->first_contrib = a->n_contribs;
	sp->n_contrib = c->win.n_items;
	for (size_t i = 0; i < c->win.n_items; i++) {
		const struct spike_item *it = &c->win.items[i];
		struct tc_contrib *k = &a->contribs[a->n_contribs++];
		uint64_t s = it->start > ws ? it->start : ws, e = it->end < we ? it->end : we;

		k->event = it->ev;
		k->cause = it->cause;
		k->nested = it->nested;
		k->joined = it->joined;
		k->chain = it->chain;
		k->overlap_ns = e - s;
		k->attributed_ns = it->att;
		k->hidden_ns = hidden_part(&c->act.items[it->slot], it, it->att, ws, we);
		a->causes[it->cause].excess_ns = sat_add(a->causes[it->cause].excess_ns, it->att);
		a->causes[it->cause].hidden_ns += k->hidden_ns;
		sp->hidden_ns += k->hidden_ns;
		if (it->deferred &&
		    analysis_after_note(c, (size_t)(sp - a->spikes), a->n_contribs - 1, e - s))
			return -ENOMEM;
	}
	return 0;
}

/*
 * The waking record of each link of the spike's wait chain that the window did not take in
 * (the recorder writes one only when a thread's waker changes: it may be long before):
 * evidence, with no credit, so that every report can name the waker.
 */
static int add_link_wakings(struct ctx *c, struct tc_spike *sp)
{
	struct tc_analysis *a = c->a;

	for (size_t l = 0; l < c->chain.n_links; l++) {
		const struct wait_link *link = &c->chain.links[l];
		struct tc_contrib *k;
		size_t i;

		for (i = 0; i < sp->n_contrib; i++)
			if (a->contribs[sp->first_contrib + i].event == link->ev)
				break;
		if (i < sp->n_contrib)
			continue;
		if (grow(&a->contribs, &c->cap_contribs, a->n_contribs + 1, sizeof(*a->contribs)))
			return -ENOMEM;
		k = &a->contribs[a->n_contribs++];
		memset(k, 0, sizeof(*k));
		k->event = link->ev;
		k->chain = (uint8_t)link->depth;
		if (cause_table_event(&c->causes, c->t, &c->t->events[link->ev], c->pattern,
				      &k->cause))
			return -ENOMEM;
		sp->n_contrib++;
	}
	return 0;
}

/* A spike left without a candidate: a probe thread's page fault inside it is one. */
static void page_fault_candidate(const struct ctx *c, struct tc_spike *sp)
{
	if (sp->primary || sp->candidate != TC_NO_CAUSE)
		return;
	for (size_t i = 0; i < c->win.n_items; i++) {
		const struct tc_event *e = &c->t->events[c->win.items[i].ev];

		if (e->kind == TC_EV_PAGE_FAULT && analyze_probe_tid(c, e->tid)) {
			sp->candidate = c->win.items[i].cause;
			return;
		}
	}
}

/* Books a decided spike in the cause table. */
static void book(struct tc_analysis *a, const struct tc_spike *sp, uint64_t total)
{
	a->causes[sp->primary].spikes++;
	a->causes[0].excess_ns = sat_add(a->causes[0].excess_ns, sp->excess_ns - total);
	a->total_excess_ns = sat_add(a->total_excess_ns, sp->excess_ns);
}

static int attribute_spike(struct ctx *c, struct tc_spike *sp, const struct tc_sample *s)
{
	uint64_t total;
	int err;

	/* Two hosts: the peer's intervals only where the clocks place them well enough. */
	c->peer_off = c->t->peer.cpu_base && sp->excess_ns < c->t->peer.uncertainty_ns;
	sp->cross_host = c->t->peer.cpu_base && !c->peer_off;
	/* Items stay in event order until decided: the order causes get numbered in. */
	err = analyze_gather(c, s, s->t_end);
	if (!err)
		err = analyze_apply_context(c, s->t_start, s->t_end);
	if (!err)
		err = analyze_name_items(c);
	if (err)
		return err;
	analyze_preemptors_woke(c);
	spike_window_join_wakeups(&c->win);
	spike_window_join_signals(&c->win);
	total = spike_window_split(&c->win, s->t_start, s->t_end, sp->excess_ns);
	err = store_contribs(c, sp, s->t_start, s->t_end);
	err = err ?: add_link_wakings(c, sp);
	if (err)
		return err;
	spike_window_decide(&c->win, c->a->causes, sp);
	page_fault_candidate(c, sp);
	book(c->a, sp, total);
	return 0;
}

/* Attributes each spike in sample order; 0, -EINVAL (events not sorted) or -ENOMEM. */
static int sweep(struct ctx *c)
{
	const struct tc_trace *t = c->t;
	struct tc_analysis *a = c->a;
	size_t next = 0;
	int err;

	for (size_t i = 0; i < t->n_samples; i++) {
		const struct tc_sample *s = &t->samples[i];
		uint64_t rtt = tc_sample_rtt(s);
		struct tc_spike *sp;

		if (rtt <= a->threshold_ns)
			continue;
		err = advance(c, &next, s->t_start, s->t_end);
		c->next = next;
		if (!err && grow(&a->spikes, &c->cap_spikes, a->n_spikes + 1, sizeof(*a->spikes)))
			err = -ENOMEM;
		if (err)
			return err;
		sp = &a->spikes[a->n_spikes++];
		memset(sp, 0, sizeof(*sp));
		sp->sample = i;
		sp->run_sample = i;
		sp->rtt_ns = rtt;
		sp->excess_ns = rtt > a->stats.p50 ? rtt - a->stats.p50 : 0;
		err = attribute_spike(c, sp, s);
		if (err)
			return err;
	}
	return events_sorted(t, next) ? 0 : -EINVAL;
}

/* ---- entry points ---------------------------------------------------------------------- */

static void ctx_free(struct ctx *c)
{
	analysis_after_free(c);
	free(c->probe_tids);
	free(c->cpu_map);
	idle_latency__free(&c->lat);
	active_set_free(&c->act);
	wait_chain_free(&c->chain);
	spike_window__free(&c->win);
	context__free(&c->sc);
	context_parents_free(&c->parents);
	cause_table__free(&c->causes);
}

int analysis__run(const struct tc_trace *t, const struct tc_analysis_opts *o,
		  struct tc_analysis **out)
{
	struct ctx c = {.t = t};
	struct tc_analysis *a;
	uint32_t unattributed, seeded;
	int err;

	if (!t || !out || !t->n_samples || (t->n_events && !t->events))
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	c.a = a;
	c.causes.a = a;
	c.pattern = o && o->nic_irq_pattern ? o->nic_irq_pattern : TC_NIC_IRQ_PATTERN_DEFAULT;
	if (o) {
		a->rule = o->spike;
		c.spent = o->steal_spent;
		c.n_spent = o->n_steal_spent;
	}
	err = -EINVAL;
	if (!spike_rule_valid(&a->rule))
		goto out_free_analysis;
	err = compute_stats(a, t, o);
	if (err)
		goto out_free_analysis;
	err = analyze_setup_filters(&c);
	if (!err)
		err = cause_table_index(&c.causes, causes_info(TC_CAUSE_UNATTRIBUTED)->prefix,
					TC_CAUSE_UNATTRIBUTED, &unattributed);
	for (size_t i = 0; !err && o && i < o->n_seed_causes; i++)
		err = cause_table_index(&c.causes, o->seed_causes[i].name, o->seed_causes[i].cls,
					&seeded);
	err = err ?: wait_chain_setup(&c.chain, t);
	err = err ?: analysis_after_setup(&c);
	err = err ?: sweep(&c);
	err = err ?: analysis_after_run(&c);
	if (err)
		goto out_free_ctx;
	a->n_spikes_run = a->n_spikes;
	ctx_free(&c);
	*out = a;
	return 0;

out_free_ctx:
	ctx_free(&c);
out_free_analysis:
	analysis__free(a);
	return err;
}

void analysis__free(struct tc_analysis *a)
{
	if (!a)
		return;
	free(a->spikes);
	free(a->causes);
	free(a->contribs);
	free(a);
}
