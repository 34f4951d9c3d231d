// SPDX-License-Identifier: BSD-2-Clause
/*
 * analyze_steal.c - the hypervisor's steal, credited after the sweep (analyze_after.c says
 * when): each steal interval's stolen time handed to the spikes it overlaps, the largest
 * claim first, each at most its overlap, all together at most what was stolen. What each
 * claim may take, in order, is docs/design.md's "After the sweep".
 */
#include <errno.h>
#include <stdlib.h>

#include "analyze_internal.h"
#include "core/util/grow.h"

/* One steal interval's links, with what each spike could still take. */
struct claim {
	struct steal_link *link;
	uint64_t want;
};

/* Largest want first; ties in time order, so the result does not depend on qsort. */
static int cmp_claim(const void *x, const void *y)
{
	const struct claim *p = x, *q = y;

	if (p->want != q->want)
		return p->want > q->want ? -1 : 1;
	return p->link->spike < q->link->spike ? -1 : p->link->spike > q->link->spike;
}

int analyze_cmp_spent(const void *x, const void *y)
{
	const struct tc_steal_spent *p = x, *q = y;

	if (p->start_ns != q->start_ns)
		return p->start_ns < q->start_ns ? -1 : 1;
	return p->cpu < q->cpu ? -1 : p->cpu > q->cpu;
}

/* What is left of steal event e: its amount less what earlier stretches gave of it. */
static uint64_t steal_left(const struct ctx *c, const struct tc_event *e)
{
	struct tc_steal_spent key = {.start_ns = e->start_ns, .cpu = e->cpu};
	const struct tc_steal_spent *s = c->n_spent ? bsearch(&key, c->spent, c->n_spent,
							      sizeof(*c->spent), analyze_cmp_spent)
						    : NULL;

	return s ? (e->stolen_ns > s->ns ? e->stolen_ns - s->ns : 0) : e->stolen_ns;
}

/*
 * The part of contrib k's credit in sp that lies in its IPI's delivery, past what a
 * whole IPI usually takes on this host (the calibration's median, from the send to
 * the handler's end), and in steal event st's interval: an IPI waits while the host
 * has its vCPU descheduled, and a wait that long is the theft's, not the interrupt's.
 * A usual delivery stays the IPI's: the steal's interval is a tick long, and where in
 * it the time was stolen is not known. Without a calibration, nothing. The credit is
 * taken as spread evenly over the contrib's overlap with the window.
 */
static uint64_t stolen_delivery(const struct ctx *c, const struct tc_spike *sp,
				const struct tc_contrib *k, const struct tc_event *st)
{
	const struct tc_calib_kind *usual = calibrate_kind(&c->cal, TC_EV_IPI);
	const struct tc_event *e = &c->t->events[k->event];
	const struct tc_sample *s = &c->t->samples[sp->sample];
	uint64_t lo, hi, st_end = sat_add(st->start_ns, st->dur_ns), part;

	if (!usual || e->kind != TC_EV_IPI || e->cpu != st->cpu || !e->sent_ns ||
	    e->sent_ns >= e->start_ns || trace__is_peer(c->t, e) || k->nested ||
	    !k->attributed_ns || !k->overlap_ns)
		return 0;
	lo = sat_add(e->sent_ns, usual->traced_ns);
	lo = lo > st->start_ns ? lo : st->start_ns;
	lo = lo > s->t_start ? lo : s->t_start;
	hi = e->start_ns < st_end ? e->start_ns : st_end;
	hi = hi < s->t_end ? hi : s->t_end;
	if (lo >= hi)
		return 0;
	part = (uint64_t)((long double)k->attributed_ns * (long double)(hi - lo) /
			  (long double)k->overlap_ns);
	return part < k->attributed_ns ? part : k->attributed_ns;
}

/*
 * The part of contrib k's credit in sp that steal event st proves was stolen: of the S ns
 * stolen somewhere in st's interval, at least S less the interval's length outside k's
 * interval lay inside it, and less again what of that lies outside sp's window; while the
 * host has the vCPU, nothing of the guest runs there, a preempting task or a handler no
 * more than the probe. Only for intervals on st's CPU that explain something (what
 * explains nothing was taken before, as unexplained time) and that are not nested (their
 * parent holds the credit). The credit is taken as spread evenly over the contrib's
 * overlap with the window.
 */
static uint64_t proven_stolen(const struct ctx *c, const struct tc_spike *sp,
			      const struct tc_contrib *k, const struct tc_event *st)
{
	const struct tc_event *e = &c->t->events[k->event];
	const struct tc_sample *s = &c->t->samples[sp->sample];
	uint64_t st_end = sat_add(st->start_ns, st->dur_ns),
		 e_end = sat_add(e->start_ns, e->dur_ns);
	uint64_t lo, hi, wlo, whi, in, outside, part;

	if (e->kind == TC_EV_STEAL || e->cpu != st->cpu || k->nested || !k->attributed_ns ||
	    !k->overlap_ns || c->a->causes[k->cause].cls == TC_CAUSE_UNATTRIBUTED)
		return 0;
	lo = e->start_ns > st->start_ns ? e->start_ns : st->start_ns;
	hi = e_end < st_end ? e_end : st_end;
	if (lo >= hi)
		return 0;
	/* stolen inside [lo, hi), at the least; then inside the window too */
	outside = st->dur_ns - (hi - lo);
	in = st->stolen_ns > outside ? st->stolen_ns - outside : 0;
	wlo = lo > s->t_start ? lo : s->t_start;
	whi = hi < s->t_end ? hi : s->t_end;
	outside = (hi - lo) - (whi > wlo ? whi - wlo : 0);
	in = in > outside ? in - outside : 0;
	if (!in)
		return 0;
	part = (uint64_t)((long double)k->attributed_ns * (long double)in /
			  (long double)k->overlap_ns);
	return part < k->attributed_ns ? part : k->attributed_ns;
}

/* A part of contrib k's credit in sp that steal event st may take: stolen_delivery() or
 * proven_stolen(). */
typedef uint64_t (*stolen_fn)(const struct ctx *c, const struct tc_spike *sp,
			      const struct tc_contrib *k, const struct tc_event *st);

/*
 * How much of sp's credit part() gives st, at most n; with take, moves it to steal (the
 * caller credits it), each interval's calibrated hidden cost kept within what it is still
 * credited. Returns the amount.
 */
static uint64_t stolen_parts(struct ctx *c, struct tc_spike *sp, const struct tc_event *st,
			     uint64_t n, int take, stolen_fn part)
{
	struct tc_analysis *a = c->a;
	uint64_t moved = 0;

	for (size_t i = 0; i < sp->n_contrib && moved < n; i++) {
		struct tc_contrib *k = &a->contribs[sp->first_contrib + i];
		uint64_t p = part(c, sp, k, st), hidden;

		p = p < n - moved ? p : n - moved;
		moved += p;
		if (!p || !take)
			continue;
		k->attributed_ns -= p;
		a->causes[k->cause].excess_ns -= p;
		hidden = k->hidden_ns > k->attributed_ns ? k->hidden_ns - k->attributed_ns : 0;
		k->hidden_ns -= hidden;
		a->causes[k->cause].hidden_ns -= hidden;
		sp->hidden_ns -= hidden;
	}
	return moved;
}

/*
 * Hands steal event ev's stolen time to the spikes of links[0..n): what no interval
 * explains first, then what their IPIs' deliveries were credited in its interval (a vCPU
 * is stolen from only while it could run: an IPI pending for it is where), then what
 * intervals that explain nothing hold (the timing thread blocked, its CPU idle: a wake-up
 * that reached a halted vCPU the host then kept from running, with no traced send), then
 * what its reading proves was stolen inside the other intervals of its CPU.
 */
static void share_steal(struct ctx *c, struct steal_link *links, size_t n, struct claim *cl)
{
	struct tc_analysis *a = c->a;
	const struct tc_event *st = &c->t->events[links[0].ev];
	uint64_t left = steal_left(c, st);

	for (size_t i = 0; i < n; i++) {
		struct tc_spike *sp = &a->spikes[links[i].spike];
		uint64_t u =
			sat_add(spike_credit_unexplained_ns(a, sp), spike_credit_waiting_ns(a, sp));

		u = sat_add(u, stolen_parts(c, sp, st, UINT64_MAX, 0, stolen_delivery));
		u = sat_add(u, stolen_parts(c, sp, st, UINT64_MAX, 0, proven_stolen));

		cl[i] = (struct claim){&links[i], u < links[i].cap ? u : links[i].cap};
	}
	qsort(cl, n, sizeof(*cl), cmp_claim);
	for (size_t i = 0; i < n && left; i++) {
		struct tc_spike *sp = &a->spikes[cl[i].link->spike];
		uint64_t give = cl[i].want < left ? cl[i].want : left;
		uint64_t free_ns = spike_credit_unexplained_ns(a, sp);
		struct tc_contrib *k = &a->contribs[cl[i].link->contrib];

		if (give > free_ns)
			free_ns += stolen_parts(c, sp, st, give - free_ns, 1, stolen_delivery);
		if (give > free_ns)
			free_ns += spike_credit_take_waiting(a, sp, give - free_ns);
		if (give > free_ns)
			give = free_ns + stolen_parts(c, sp, st, give - free_ns, 1, proven_stolen);
		k->attributed_ns += give;
		a->causes[k->cause].excess_ns = sat_add(a->causes[k->cause].excess_ns, give);
		left -= give;
	}
}

static int cmp_link(const void *x, const void *y)
{
	const struct steal_link *p = x, *q = y;

	if (p->ev != q->ev)
		return p->ev < q->ev ? -1 : 1;
	return p->spike < q->spike ? -1 : p->spike > q->spike;
}

int analysis_credit_steal(struct ctx *c)
{
	struct claim *cl;

	if (!c->n_links)
		return 0;
	cl = malloc(c->n_links * sizeof(*cl));
	if (!cl)
		return -ENOMEM;
	qsort(c->links, c->n_links, sizeof(*c->links), cmp_link);
	for (size_t i = 0, j; i < c->n_links; i = j) {
		for (j = i; j < c->n_links && c->links[j].ev == c->links[i].ev; j++)
			;
		share_steal(c, &c->links[i], j - i, cl);
	}
	free(cl);
	return 0;
}
