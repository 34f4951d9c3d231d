// SPDX-License-Identifier: BSD-2-Clause
/*
 * analyze.c - tail-spike attribution.
 *
 * One sweep over samples and events, both sorted by start time. An active
 * set, a min-heap keyed by `until` (the end of an interval, an instant's time
 * + 1), holds the intervals that may still overlap a spike: an event enters
 * it when a spike window reaches its start (unless it already ended before
 * that window) and leaves when a later window starts at or after `until`.
 * Each event is pushed and popped at most once, so the sweep is
 * O(E log A + S) with A the intervals alive at once; events between spikes
 * cost two compares.
 *
 * Every event is weighed by its span (context_span(): a C-state exit by its
 * exit latency, evidence-only kinds as instants). Inside one spike window the
 * relevant intervals (on a probe thread, a probe thread's pinned CPU, or the
 * sample's CPU) are taken in five steps:
 *   1. context: a preempted off-CPU interval is renamed by what overlapped
 *      it (the task that ran instead was compacting or reclaiming; which
 *      softirq vector ksoftirqd served; a kworker's work function), and that
 *      task's compaction/reclaim intervals join the window, nested in it; a
 *      timer interrupt or timer softirq is renamed by its callback, which
 *      counts wherever it ran inside its parent: a callback stays in the active
 *      set while its parent runs, and one that starts after the window is
 *      looked up ahead (context.h);
 *   2. wake-ups: a reschedule IPI (or a call-function IPI that ran the scheduler's
 *      queued wake-ups), or a timer interrupt named by a callback that only wakes a
 *      sleeper, followed in the window by the probe thread's preemption on its CPU
 *      takes that preemption's cause, and spans until the switch where nothing else
 *      ran there: it was how the preempting task got the CPU
 *      (spike_window_join_wakeups()), unless that task is known to have been
 *      runnable all along or woken outside the interrupt (context.h);
 *   3. nesting: an interval inside a cause-bearing one on the same CPU is
 *      counted in its parent (an IRQ that fires while the probe is preempted
 *      adds no latency of its own); a blocked off-CPU interval absorbs nothing;
 *      a signal handler absorbs what interrupts it and what it blocks on, but
 *      not its thread's preemption: the handler pauses while the thread is off
 *      its CPU, and that time is the preemption's;
 *   4. sharing: the window is cut into elementary segments at every top-level
 *      boundary; the explaining intervals covering a segment share it
 *      equally, the others (blocked, class unattributed) only get segments no
 *      explaining interval covers;
 *   5. scaling: when the covered time exceeds the excess (RTT - median), all
 *      shares shrink in proportion, so the attributed total never exceeds it.
 * Blocked off-CPU intervals never count as explaining the spike. Instants are
 * listed in the spike's timeline and take no credit; a page fault of a probe
 * thread whose end was not seen (an instant) becomes the candidate of a spike
 * that has none. A page fault with its end is an interval like the others.
 *
 * Compaction and reclaim intervals of any task stay in the active set (pruned
 * by end time like the rest) as context, and are indexed by tid per window
 * (context.c), so the context rules keep the sweep linear.
 *
 * Accounting: causes[0] (`unattributed`) receives each spike's excess not
 * attributed to any interval, every other cause what was attributed to it,
 * so the excess_ns of all causes add up to total_excess_ns.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_internal.h"
#include "grow.h"
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
	size_t i = *next;

	/*
	 * A span starts at its event, or earlier by its hidden cost (max_pre): events
	 * starting by then hold every span that may overlap the window.
	 */
	for (; i < t->n_events && t->events[i].start_ns < sat_add(we, c->max_pre); i++) {
		const struct tc_event *e = &t->events[i];
		struct active x = {.ev = i, .cpu = e->cpu, .cause = TC_NO_CAUSE};
		uint64_t parent_end = context_parents_until(&c->parents, e);

		if (i && e->start_ns < e[-1].start_ns)
			return -EINVAL;

		/*
		 * Most events lie between spikes: skip them before weighing. A span
		 * ends by start + dur, and its until by one more (an idle exit of
		 * unknown latency is an instant at the event's end).
		 */
		if (sat_add(sat_add(e->start_ns, e->dur_ns), 1 + c->max_post) <= ws &&
		    parent_end <= ws)
			continue;
		context_span(&c->lat, e, &x.start, &x.end);
		widen(c, e, &x);
		/*
		 * Spikes come in t_start order: an interval that ends by ws, or an
		 * instant before ws, overlaps no later spike. A callback names its
		 * parent in every window the parent reaches (context.h).
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
		if (!x.mm && !analyze_maybe_relevant(c, e, x.probe_rel))
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

/* ---- one spike ------------------------------------------------------------------------- */

static struct spike_item *add_item(struct ctx *c, size_t slot)
{
	const struct active *x = &c->act.items[slot];
	const struct tc_event *e = &c->t->events[x->ev];
	struct spike_item *it = spike_window__add(&c->win);

	if (!it)
		return NULL;
	it->start = x->start;
	it->end = x->end;
	it->ran = e->start_ns;
	it->ev = x->ev;
	it->slot = slot;
	it->cpu = x->cpu;
	it->cause = x->cause;
	it->ctx = (struct tc_name_ctx){TC_CAUSE_UNATTRIBUTED, TC_NO_VECTOR, 0};
	it->deferred = c->t->events[x->ev].kind == TC_EV_STEAL;
	/* what ran beside the probe, and a woken thread's wait for its CPU (wakeups.h), explain
	 * only what nothing else does: an IRQ in that wait is the IRQ's */
	it->weak = e->kind == TC_EV_SIBLING ||
		   (e->kind == TC_EV_OFFCPU && (e->flags & TC_OFFCPU_WOKEN));
	it->tid = e->tid;
	it->pauses = e->kind == TC_EV_SIGNAL;
	it->takes_off = e->kind == TC_EV_OFFCPU && (e->flags & TC_OFFCPU_PREEMPTED);
	it->wakes = context_ipi_wakes(e);
	it->woke = it->takes_off ? context_preemptor_woke(c->t, x->ev) : 0;
	it->wake_from = context_wake_from(e);
	it->wake_to = sat_add(e->start_ns, e->dur_ns);
	return it;
}

/*
 * The timing thread left its CPU inside its own round trip and its return was
 * never reported, or ran a signal handler whose end was not traced (instants):
 * it was back to take the round trip's end, so it was off the CPU, or in the
 * handler, for at most [its start, that end]: the item spans that bound.
 */
static void bound_unended(struct spike_item *it, const struct tc_event *e,
			  const struct tc_sample *s)
{
	int unended = (e->kind == TC_EV_OFFCPU && (e->flags & TC_OFFCPU_UNENDED)) ||
		      (e->kind == TC_EV_SIGNAL && (e->flags & TC_SIGNAL_END_UNTRACED));

	if (unended && e->tid == s->tid && it->start >= s->t_start && it->start < s->t_end)
		it->end = s->t_end;
}

static int add_ref(struct ctx *c, size_t slot, size_t item)
{
	const struct active *x = &c->act.items[slot];
	const struct tc_event *e = &c->t->events[x->ev];
	struct context_ref r = {.start = x->start, .end = x->end, .item = item, .slot = slot};

	r.key = e->kind == TC_EV_SOFTIRQ || context_is_callback(e->kind) ? e->cpu : e->tid;
	r.kind = e->kind;
	r.arg = e->arg;
	r.func = context_is_callback(e->kind) ? e->func : 0;
	return context__add(&c->sc, &r);
}

/*
 * Collects the relevant active spans overlapping [ws, we) into c->win, in
 * event order, and what the context rules consult into c->sc: softirq items,
 * and compaction/reclaim intervals whether relevant or not.
 */
static int gather(struct ctx *c, const struct tc_sample *s, uint64_t we)
{
	c->win.n_items = 0;
	context__reset(&c->sc);
	for (size_t h = 0; h < c->act.n; h++) {
		const struct active *x = &c->act.items[h];
		int outside = x->start >= we ||
			      (x->end > x->start ? x->end : sat_add(x->start, 1)) <= s->t_start;
		struct spike_item *it;

		if (c->peer_off && trace__is_peer(c->t, &c->t->events[x->ev]))
			continue;
		if (context_is_callback(c->t->events[x->ev].kind) && outside) {
			/*
			 * Kept for its parent only (advance()), or reached since a calibrated
			 * parent starts earlier than its event (max_pre): context, not in the
			 * window.
			 */
			if ((x->probe_rel || x->cpu == s->cpu) && add_ref(c, h, CONTEXT_NO_ITEM))
				return -ENOMEM;
		} else if (x->start >= we) {
			continue;
		} else if ((x->probe_rel || x->cpu == s->cpu) &&
			   analyze_thread_counts(c, &c->t->events[x->ev], s)) {
			if (!(it = add_item(c, h)))
				return -ENOMEM;
			bound_unended(it, &c->t->events[x->ev], s);
			/* a path counter is evidence: an instant in the window, no share of it */
			if (c->t->events[x->ev].kind == TC_EV_COUNTER)
				it->start = it->end =
					it->start > s->t_start ? it->start : s->t_start;
		} else if (x->mm && add_ref(c, h, CONTEXT_NO_ITEM)) {
			return -ENOMEM;
		}
	}
	spike_window_sort(&c->win);
	for (size_t i = 0; i < c->win.n_items; i++) {
		const struct spike_item *it = &c->win.items[i];
		const struct tc_event *e = &c->t->events[it->ev];

		/* An interrupt the window ends inside: its callbacks may start after it. */
		if (it->end > we && context_is_timer_parent(e) &&
		    context_add_later_callbacks(&c->sc, c->t, c->next, e))
			return -ENOMEM;
		if ((c->act.items[it->slot].mm ||
		     ((e->kind == TC_EV_SOFTIRQ || context_is_callback(e->kind)) &&
		      it->end > it->start)) &&
		    add_ref(c, it->slot, i))
			return -ENOMEM;
	}
	context__sort(&c->sc);
	return 0;
}

/*
 * Names local timer interrupts and timer softirqs by their callbacks, finds the
 * context of each preempted off-CPU item, and adds the compaction
 * and reclaim intervals of the task that ran instead as nested items.
 */
static int apply_context(struct ctx *c, uint64_t ws, uint64_t we)
{
	size_t n = c->win.n_items, added = 0;

	for (size_t i = 0; i < n; i++) {
		struct spike_item *it = &c->win.items[i];
		const struct tc_event *e = &c->t->events[it->ev];
		uint64_t lo = it->start > ws ? it->start : ws, hi = it->end < we ? it->end : we;
		size_t first, last;

		if (lo >= hi)
			continue;
		if (context_is_timer_parent(e)) {
			const char *fn;

			it->ctx.func = context_callback(&c->sc, e, TC_EV_TIMER_FN, lo, hi);
			fn = it->ctx.func ? causes_ksym(c->t, it->ctx.func) : NULL;
			it->wakes = fn && causes_is_wakeup_fn(fn);
			continue;
		}
		if (e->kind != TC_EV_OFFCPU || !(e->flags & TC_OFFCPU_PREEMPTED))
			continue;
		context_offcpu(&c->sc, e, lo, hi, &it->ctx, &first, &last);
		for (size_t j = first; j < last; j++) {
			struct context_ref *r = &c->sc.mm[j];
			struct spike_item *k;

			if (r->item != CONTEXT_NO_ITEM ||
			    !context_overlaps(r->start, r->end, lo, hi))
				continue;
			k = add_item(c, r->slot); /* may move the items: it is stale from here */
			if (!k)
				return -ENOMEM;
			k->context_only = 1;
			r->item = c->win.n_items - 1;
			added++;
		}
	}
	if (added)
		spike_window_sort(&c->win);
	return 0;
}

static int has_context(const struct tc_name_ctx *x)
{
	return x->task_was != TC_CAUSE_UNATTRIBUTED || x->softirq_vec != TC_NO_VECTOR || x->func;
}

/*
 * Names the items. A context-free name is cached in the active set for later
 * spikes; a name that depends on the window's context is not.
 */
static int name_items(struct ctx *c)
{
	char name[TC_CAUSE_NAME_LEN];

	for (size_t i = 0; i < c->win.n_items; i++) {
		struct spike_item *it = &c->win.items[i];
		const struct tc_event *e = &c->t->events[it->ev];
		enum tc_cause_class cls;

		if (has_context(&it->ctx)) {
			cls = causes_name_event_ctx(c->t, e, &it->ctx, c->pattern, name,
						    sizeof(name));
			if (cause_table_index(&c->causes, name, cls, &it->cause))
				return -ENOMEM;
		} else if (it->cause == TC_NO_CAUSE) {
			if (cause_table_event(&c->causes, c->t, e, c->pattern, &it->cause))
				return -ENOMEM;
			c->act.items[it->slot].cause = it->cause;
		}
		it->explains = c->a->causes[it->cause].cls != TC_CAUSE_UNATTRIBUTED;
	}
	return 0;
}

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
		k->overlap_ns = e - s;
		k->attributed_ns = it->att;
		k->hidden_ns = hidden_part(&c->act.items[it->slot], it, it->att, ws, we);
		a->causes[it->cause].excess_ns = sat_add(a->causes[it->cause].excess_ns, it->att);
		a->causes[it->cause].hidden_ns += k->hidden_ns;
		sp->hidden_ns += k->hidden_ns;
		if (it->deferred &&
		    late_note(c, (size_t)(sp - a->spikes), a->n_contribs - 1, e - s))
			return -ENOMEM;
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
	err = gather(c, s, s->t_end);
	if (!err)
		err = apply_context(c, s->t_start, s->t_end);
	if (!err)
		err = name_items(c);
	if (err)
		return err;
	spike_window_join_wakeups(&c->win);
	total = spike_window_split(&c->win, s->t_start, s->t_end, sp->excess_ns);
	err = store_contribs(c, sp, s->t_start, s->t_end);
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
	late_free(c);
	free(c->probe_tids);
	free(c->cpu_map);
	idle_latency__free(&c->lat);
	active_set_free(&c->act);
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
	err = err ?: late_setup(&c);
	err = err ?: sweep(&c);
	err = err ?: late_run(&c);
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
