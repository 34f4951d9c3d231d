// SPDX-License-Identifier: BSD-2-Clause
/*
 * noise_context.c - what names and bounds a thread's noise beyond the interval
 * itself (noise.c's passes ask): the callbacks that name a kworker's preemption
 * and a timer interrupt, the preemption a wake-up interrupt brought in, and the
 * thread's own signal handlers, credited whole and then less what the passes
 * count elsewhere.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/attrib/spike_context.h"
#include "core/util/grow.h"
#include "noise_acc.h"

/* ---- callbacks: what names a kworker's preemption and a timer interrupt -------------- */

#define NOISE_CALLBACK_FUNCS 8 /* distinct functions weighed inside one interval */

/*
 * The function of the callbacks of kind (TC_EV_WORK, TC_EV_TIMER_FN) on cpu that start
 * inside [s, end) with the most time there, or 0, as a spike's window names them
 * (spike_context.h's context_callback()): among the events after t->events[i] (sorted by
 * start), the first CONTEXT_LOOKAHEAD of those that start inside. Ties go to the
 * earlier callback.
 */
uint64_t noise_busiest_callback(const struct tc_trace *t, size_t i, uint32_t cpu, uint64_t s,
				uint64_t end, uint16_t kind)
{
	uint64_t func[NOISE_CALLBACK_FUNCS], ns[NOISE_CALLBACK_FUNCS], best = 0, best_ns = 0;
	size_t n = 0;

	for (size_t j = i + 1; j < t->n_events && j - i <= CONTEXT_LOOKAHEAD; j++) {
		const struct tc_event *c = &t->events[j];
		uint64_t c_end = sat_add(c->start_ns, c->dur_ns);
		size_t k;

		if (c->start_ns >= end)
			break;
		if (c->kind != kind || c->cpu != cpu || !c->func || c->start_ns < s)
			continue;
		for (k = 0; k < n && func[k] != c->func; k++)
			;
		if (k == n && n == NOISE_CALLBACK_FUNCS)
			continue;
		if (k == n) {
			func[n] = c->func;
			ns[n++] = 0;
		}
		ns[k] += (c_end < end ? c_end : end) - c->start_ns;
	}
	for (size_t k = 0; k < n; k++)
		if (!best || ns[k] > best_ns) {
			best = func[k];
			best_ns = ns[k];
		}
	return best;
}

/* ---- wake-up interrupts: the preemption they brought in ------------------------------ */

/*
 * A wake-up interrupt, t->events[i], while stretch x's thread ran: where the stretch ends
 * in that thread's preemption on the CPU and no other interrupt began there in between,
 * it brought in the task that preempted the thread (a spike's wake-up rule, analyze.h),
 * and its time is that preemption's: *cause is set to it. Left as it was otherwise, and
 * where the preempting task is known to have been woken after the interrupt, or, for a
 * wake-up run inside the interrupt (a timer's callback, queued wake-ups), before it (a
 * reschedule IPI follows its wake-up: that may be before).
 */
int noise_joined_cause(struct noise_acc *acc, size_t i, const struct stretch *x, uint32_t *cause)
{
	const struct tc_trace *t = acc->t;
	const struct tc_event *e = &t->events[i];
	uint64_t end = sat_add(e->start_ns, e->dur_ns);
	uint64_t lo = context_wake_from(e);
	uint32_t tid = acc->tids[x->thread];

	for (size_t j = i + 1; j < t->n_events && j - i <= CONTEXT_LOOKAHEAD; j++) {
		const struct tc_event *o = &t->events[j];

		if (o->start_ns > x->end)
			break;
		if (o->cpu != e->cpu)
			continue;
		if (o->kind == TC_EV_OFFCPU && o->tid == tid && o->start_ns == x->end) {
			if (!(o->flags & TC_OFFCPU_PREEMPTED) ||
			    context_woken_outside(context_preemptor_woke(t, j), lo, end))
				return 0;
			return noise_name_preemption(acc, j, o, o->start_ns,
						     sat_add(o->start_ns, o->dur_ns), cause);
		}
		if (noise_is_cpu_wide(o) && o->start_ns >= end)
			return 0; /* another interrupt first */
	}
	return 0;
}

/* ---- signal handlers ------------------------------------------------------------------ */

#define HANDLER_LOOKBACK 8 /* handlers of a thread looked at back from a point */

static int cmp_handler(const void *x, const void *y)
{
	const struct noise_handler *a = x, *b = y;

	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/*
 * The innermost handler of thread th, other than handlers[skip], that overlaps
 * [lo, hi), or NULL: the latest to start before hi among the last few (handlers of
 * one thread nest or follow each other).
 */
static const struct noise_handler *handler_at(const struct noise_acc *acc, size_t th, uint64_t lo,
					      uint64_t hi, size_t skip)
{
	const struct noise_handler *h = acc->handlers;
	size_t a = 0, b = acc->n_handlers;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (h[mid].thread < th || (h[mid].thread == th && h[mid].start < hi))
			a = mid + 1;
		else
			b = mid;
	}
	for (size_t k = a, steps = 0; k-- > 0 && h[k].thread == th && steps < HANDLER_LOOKBACK;
	     steps++)
		if (k != skip && h[k].end > lo && h[k].end > h[k].start)
			return &h[k];
	return NULL;
}

/* [lo, hi) of thread th counted elsewhere (off CPU, an IRQ): not its handler's time. */
int noise_handler_exclude(struct noise_acc *acc, size_t th, uint64_t lo, uint64_t hi)
{
	const struct noise_handler *h =
		acc->n_handlers && lo < hi ? handler_at(acc, th, lo, hi, SIZE_MAX) : NULL;

	if (!h)
		return 0;
	lo = lo > h->start ? lo : h->start;
	hi = hi < h->end ? hi : h->end;
	return lo < hi ? noise_add_span(acc, th, h->cause, lo, hi, 0, 1) : 0;
}

/*
 * The threads' signal handlers, credited whole before the passes take from them what
 * was counted elsewhere; a handler nested in another is taken from the outer one.
 */
int noise_handler_pass(struct noise_acc *acc)
{
	const struct tc_trace *t = acc->t;
	int err = 0;

	for (size_t i = 0; i < t->n_events && !err; i++) {
		const struct tc_event *e = &t->events[i];
		size_t th;

		if (e->kind != TC_EV_SIGNAL || (e->flags & TC_SIGNAL_NO_HANDLER))
			continue;
		th = noise_thread_of(acc, e->tid);
		if (th == SIZE_MAX)
			continue;
		if (grow(&acc->handlers, &acc->cap_handlers, acc->n_handlers + 1,
			 sizeof(*acc->handlers)))
			return -ENOMEM;
		acc->handlers[acc->n_handlers] = (struct noise_handler){
			e->start_ns, sat_add(e->start_ns, e->dur_ns), (uint32_t)th, 0};
		err = noise_name_event(acc, TC_NOISE_SIGNAL, e, 0,
				       &acc->handlers[acc->n_handlers++].cause);
	}
	if (acc->n_handlers)
		qsort(acc->handlers, acc->n_handlers, sizeof(*acc->handlers), cmp_handler);
	for (size_t k = 0; k < acc->n_handlers && !err; k++) {
		const struct noise_handler *h = &acc->handlers[k], *outer;

		err = noise_add_span(acc, h->thread, h->cause, h->start, h->end, 1, 0);
		outer = err || h->end == h->start
				? NULL
				: handler_at(acc, h->thread, h->start, h->start + 1, k);
		if (outer && outer->start <= h->start)
			err = noise_add_span(acc, h->thread, outer->cause, h->start,
					     h->end < outer->end ? h->end : outer->end, 0, 1);
	}
	return err;
}

/* A preemption by a kworker is its work item: the function that ran in [s, end). */
int noise_name_preemption(struct noise_acc *acc, size_t i, const struct tc_event *e, uint64_t s,
			  uint64_t end, uint32_t *cause)
{
	uint64_t func = 0;

	if (!strncmp(e->other_comm, "kworker/", 8))
		func = noise_busiest_callback(acc->t, i, e->cpu, s, end, TC_EV_WORK);
	return noise_name_event(acc, TC_NOISE_OFFCPU, e, func, cause);
}
