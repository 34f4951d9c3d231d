// SPDX-License-Identifier: BSD-2-Clause
/*
 * analyze_window.c - one spike's window of items (analyze_internal.h): the active spans
 * that overlap it gathered, the context rules applied (a timer named by its callback, a
 * preemption by what ran instead, that task's compaction and reclaim nested in it), and
 * each item named. The sweep that keeps the active set, and what is done with the
 * window, are analyze.c's.
 */
#include <errno.h>

#include "analyze_internal.h"
#include "core/util/grow.h"

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
	it->ctx = (struct tc_name_ctx){TC_CAUSE_UNATTRIBUTED, TC_NO_VECTOR, 0, 0, NULL};
	it->deferred = c->t->events[x->ev].kind == TC_EV_STEAL;
	/* what ran beside the probe, and a woken thread's wait for its CPU (wakeups.h), explain
	 * only what nothing else does: an IRQ in that wait is the IRQ's */
	it->weak = e->kind == TC_EV_SIBLING ||
		   (e->kind == TC_EV_OFFCPU && (e->flags & TC_OFFCPU_WOKEN));
	it->tid = e->tid;
	it->pauses = e->kind == TC_EV_SIGNAL;
	it->takes_off = e->kind == TC_EV_OFFCPU && (e->flags & TC_OFFCPU_PREEMPTED);
	it->wakes = context_ipi_wakes(e);
	it->kicks = e->kind == TC_EV_IPI && e->arg == TC_IPI_RESCHEDULE;
	it->signal = e->kind == TC_EV_SIGNAL;
	it->away = e->kind == TC_EV_OFFCPU;
	it->woke = 0; /* analyze_preemptors_woke(), where a window needs it */
	it->chain = 0;
	it->wake_from = context_wake_from(e);
	it->wake_to = sat_add(e->start_ns, e->dur_ns); /* its event's end */
	return it;
}

/*
 * The timing thread left its CPU inside its own round trip and its return was
 * never reported, or ran a signal handler whose end was not traced (instants):
 * it was back to take the round trip's end, so it was off the CPU, or in the
 * handler, for at most [its start, that end]: the item spans that bound. So was
 * the other thread of a built-in probe's ping-pong (both TC_THREAD_PROBE), left
 * unended inside the round trip: the round trip ends only once it has answered,
 * and an answer given before it left would have ended the round trip then.
 */
static void bound_unended(const struct tc_trace *t, struct spike_item *it, const struct tc_event *e,
			  const struct tc_sample *s)
{
	int offcpu = e->kind == TC_EV_OFFCPU && (e->flags & TC_OFFCPU_UNENDED);
	int unended = offcpu || (e->kind == TC_EV_SIGNAL && (e->flags & TC_SIGNAL_END_UNTRACED));
	int bound = e->tid == s->tid || (offcpu && !trace__is_peer(t, e) &&
					 trace__thread_role(t, e->tid) == TC_THREAD_PROBE &&
					 trace__thread_role(t, s->tid) == TC_THREAD_PROBE);

	if (unended && bound && it->start >= s->t_start && it->start < s->t_end)
		it->end = s->t_end;
}

/* An interval of a waker counts only while the thread it woke waited on it. */
static void clip_to_link(struct spike_item *it, const struct wait_link *l)
{
	it->chain = (uint8_t)l->depth;
	if (it->start < l->from)
		it->start = l->from;
	if (it->end > l->to)
		it->end = l->to;
	if (it->end < it->start)
		it->end = it->start;
}

/*
 * A blocked part of the timing thread's that a task's waking ended (the chain's first link
 * begins with it): the wait on that task, named by it. Weaker than weak: it explains only
 * what nothing else does, not even a woken thread's wait for its CPU: the task's own work,
 * where the chain found nothing that delayed it.
 */
static void name_wait(const struct ctx *c, struct spike_item *it, const struct tc_event *e,
		      const struct tc_sample *s)
{
	uint64_t from = e->start_ns > s->t_start ? e->start_ns : s->t_start;

	if (e->flags & (TC_OFFCPU_PREEMPTED | TC_OFFCPU_WOKEN | TC_OFFCPU_UNENDED))
		return;
	for (size_t i = 0; i < c->chain.n_links; i++) {
		const struct wait_link *l = &c->chain.links[i];

		if (l->depth == 1 && l->woken == s->tid && l->from == from) {
			it->ctx.waking = &c->t->events[l->ev];
			it->weak = 2;
			return;
		}
	}
}

/*
 * An item taken in for the timing thread's CPU or as a probe thread's that is also a
 * waker's (its own interval, or the waking that ends a link) is marked as the chain's,
 * its span kept as the rules above made it.
 */
static void mark_link(const struct ctx *c, struct spike_item *it, const struct tc_sample *s)
{
	const struct tc_event *e = &c->t->events[it->ev];
	const struct wait_link *l;

	if (c->chain.n_links && e->tid == s->tid && e->kind == TC_EV_OFFCPU) {
		name_wait(c, it, e, s);
		return;
	}
	if (!c->chain.n_links || (e->kind != TC_EV_WAKEUP && (!e->tid || e->tid == s->tid)))
		return;
	l = wait_chain_link_of(&c->chain, c->t, e, it->start, it->end);
	if (l && (e->kind == TC_EV_WAKEUP || e->tid == l->tid))
		it->chain = (uint8_t)l->depth;
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
 * The first event beyond the reach of a window ending at we (advance()): where the sweep
 * stopped for it, unless an earlier window that ends later took it further.
 */
static size_t beyond_reach(const struct ctx *c, uint64_t we)
{
	uint64_t reach = sat_add(we, c->max_pre);
	size_t lo = 0, hi = c->next;

	if (!c->next || c->t->events[c->next - 1].start_ns < reach)
		return c->next;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->t->events[mid].start_ns < reach)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Collects the relevant active spans overlapping [ws, we) into c->win, in
 * event order, and what the context rules consult into c->sc: softirq items,
 * and compaction/reclaim intervals whether relevant or not.
 */
int analyze_gather(struct ctx *c, const struct tc_sample *s, uint64_t we)
{
	size_t reach = beyond_reach(c, we); /* events are in start order: by index */
	const struct wait_link *link;

	c->win.n_items = 0;
	context__reset(&c->sc);
	wait_chain_follow(&c->chain, c->t, s->tid, s->t_start, we);
	for (size_t h = 0; h < c->act.n; h++) {
		const struct active *x = &c->act.items[h];
		int outside = x->start >= we ||
			      (x->end > x->start ? x->end : sat_add(x->start, 1)) <= s->t_start;
		struct spike_item *it;

		/*
		 * Taken in for an earlier spike that ends later (round trips of two threads
		 * overlap): beyond this window's reach (advance()), as it would be were the
		 * spike alone, or the first of a streamed segment.
		 */
		if (x->ev >= reach)
			continue;
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
			bound_unended(c->t, it, &c->t->events[x->ev], s);
			mark_link(c, it, s);
			/* a path counter is evidence: an instant in the window, no share of it */
			if (c->t->events[x->ev].kind == TC_EV_COUNTER)
				it->start = it->end =
					it->start > s->t_start ? it->start : s->t_start;
		} else if (c->chain.n_links &&
			   (link = wait_chain_link_of(&c->chain, c->t, &c->t->events[x->ev],
						      x->start, x->end))) {
			if (!(it = add_item(c, h)))
				return -ENOMEM;
			clip_to_link(it, link);
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
		    context_add_later_callbacks(&c->sc, c->t, reach, e))
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
 * Whether IPI e was sent to its CPU while that CPU idled (a C-state interval there holds
 * the send) and ran later than a whole IPI costs a running CPU on this host (the
 * calibration's median: the exit, the injection, the handler): the CPU was not run
 * until then. Without a calibration the rule is off.
 */
static int halted_late(const struct ctx *c, const struct tc_event *e)
{
	const struct tc_calib_kind *k = calibrate_kind(&c->cal, TC_EV_IPI);

	if (!k || !k->gap_ns || !e->sent_ns || e->sent_ns >= e->start_ns ||
	    e->start_ns - e->sent_ns <= k->gap_ns || trace__is_peer(c->t, e))
		return 0;
	for (size_t h = 0; h < c->act.n; h++) {
		const struct tc_event *f = &c->t->events[c->act.items[h].ev];

		if (f->kind == TC_EV_IDLE && f->cpu == e->cpu && f->start_ns <= e->sent_ns &&
		    sat_add(f->start_ns, f->dur_ns) > e->sent_ns)
			return 1;
	}
	return 0;
}

/*
 * Names local timer interrupts and timer softirqs by their callbacks, finds the
 * context of each preempted off-CPU item, and adds the compaction
 * and reclaim intervals of the task that ran instead as nested items.
 */
int analyze_apply_context(struct ctx *c, uint64_t ws, uint64_t we)
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
			it->ctx.func = context_callback(&c->sc, e, TC_EV_TIMER_FN, lo, hi);
			it->wakes = causes_is_wakeup_fn(c->t, it->ctx.func);
			continue;
		}
		if (e->kind == TC_EV_IPI) {
			it->ctx.halted_late = halted_late(c, e);
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
	return x->task_was != TC_CAUSE_UNATTRIBUTED || x->softirq_vec != TC_NO_VECTOR || x->func ||
	       x->halted_late || x->waking;
}

/*
 * Names the items. A context-free name is cached in the active set for later
 * spikes; a name that depends on the window's context is not.
 */
int analyze_name_items(struct ctx *c)
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

/*
 * When the task that took the CPU in each preemption of the window was woken, where an
 * item of it was the way in of a woken task (spike_window_join_wakeups()): a look back
 * over the events, made only for such windows.
 */
void analyze_preemptors_woke(struct ctx *c)
{
	size_t i;

	for (i = 0; i < c->win.n_items && !c->win.items[i].wakes; i++)
		;
	if (i == c->win.n_items)
		return;
	for (i = 0; i < c->win.n_items; i++) {
		struct spike_item *it = &c->win.items[i];

		if (it->takes_off)
			it->woke = context_preemptor_woke(c->t, it->ev);
	}
}
