// SPDX-License-Identifier: BSD-2-Clause
/*
 * calibrate.c - the hidden cost of each kind of event, from the calibration
 * thread's gaps and the events traced meanwhile (see calibrate.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "causes.h"
#include "core/util/grow.h"

const uint16_t tc_calib_kinds[TC_CALIB_KINDS] = {TC_EV_TIMER, TC_EV_IPI, TC_EV_PAGE_FAULT,
						 TC_EV_HARDIRQ};
const char *const tc_calib_names[TC_CALIB_KINDS] = {"timer tick", "IPI", "page fault",
						    "device interrupt"};
/* Each kind's part of its meta keys, calib.<key>.<field>: the file format, fixed apart from
 * any display word. */
static const char *const calib_keys[TC_CALIB_KINDS] = {"timer", "ipi", "page_fault", "hardirq"};

/* How far before a gap an event that overlaps it may start (longer ones are not measured). */
#define LOOKBACK_NS 1000000ull

/* Measurements of one kind. */
struct series {
	uint64_t *gap, *traced, *pre, *post, *hidden;
	size_t n, cap;
};

static int series_add(struct series *s, uint64_t gap, uint64_t traced, uint64_t pre, uint64_t post)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		uint64_t **cols[] = {&s->gap, &s->traced, &s->pre, &s->post, &s->hidden};

		for (size_t i = 0; i < 5; i++) {
			uint64_t *p = realloc(*cols[i], cap * sizeof(**cols[i]));

			if (!p)
				return -ENOMEM;
			*cols[i] = p;
		}
		s->cap = cap;
	}
	s->gap[s->n] = gap;
	s->traced[s->n] = traced;
	s->pre[s->n] = pre;
	s->post[s->n] = post;
	s->hidden[s->n] = pre + post;
	s->n++;
	return 0;
}

static void series_free(struct series *s)
{
	free(s->gap);
	free(s->traced);
	free(s->pre);
	free(s->post);
	free(s->hidden);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* The q-quantile (nearest rank) of v[0..n), sorting it. */
static uint64_t quantile(uint64_t *v, size_t n, double q)
{
	size_t i;

	qsort(v, n, sizeof(*v), cmp_u64);
	i = (size_t)(q * (double)(n - 1) + 0.5);
	return v[i < n ? i : n - 1];
}

/*
 * Kinds that neither make a measurement nor spoil one while reading a gap's events:
 * evidence, steal, callbacks (nested); lost windows spoil a gap, but are looked up
 * apart (lost_over()): one may start long before the gap.
 */
static int ignored(uint16_t kind)
{
	return causes_evidence_only(kind) || kind == TC_EV_STEAL || kind == TC_EV_LOST ||
	       kind == TC_EV_TIMER_FN || kind == TC_EV_WORK;
}

static int kind_slot(uint16_t kind)
{
	for (int i = 0; i < TC_CALIB_KINDS; i++)
		if (tc_calib_kinds[i] == kind)
			return i;
	return -1;
}

/* At most this many spans in one gap (an IRQ and its softirqs); more spoil it. */
#define GAP_SPANS 16

struct span {
	uint64_t s, e;
};

static int cmp_span(const void *x, const void *y)
{
	const struct span *a = x, *b = y;

	return a->s < b->s ? -1 : a->s > b->s;
}

/* What one gap holds: the kind it measures (-1: none), its traced time and edges. */
struct reading {
	int slot;
	uint64_t first, last, traced;
};

/* The union of the spans, and where the first starts and the last ends. */
static void union_of(struct span *sp, size_t n, struct reading *r)
{
	uint64_t cs, ce;

	qsort(sp, n, sizeof(*sp), cmp_span);
	cs = sp[0].s;
	ce = sp[0].e;
	r->first = cs;
	r->last = ce;
	for (size_t i = 1; i < n; i++) {
		if (sp[i].s > ce) {
			r->traced += ce - cs;
			cs = sp[i].s;
			ce = sp[i].e;
		} else if (sp[i].e > ce) {
			ce = sp[i].e;
		}
		if (sp[i].e > r->last)
			r->last = sp[i].e;
	}
	r->traced += ce - cs;
}

/*
 * Reads gap g against the events: it measures a kind when it holds exactly one
 * event of a calibrated kind (a page fault only in a touch, the others only in
 * the loop), softirqs (its bottom half) at most besides, and nothing else.
 */
static void read_gap(const struct tc_trace *t, const struct idle_latency *l, const struct tc_gap *g,
		     struct reading *r)
{
	struct span sp[GAP_SPANS];
	size_t n = 0, tops = 0;
	int slot = -1;

	memset(r, 0, sizeof(*r));
	r->slot = -1;
	for (size_t i = trace__first_event(t, g->start > LOOKBACK_NS ? g->start - LOOKBACK_NS : 0);
	     i < t->n_events && t->events[i].start_ns < g->end; i++) {
		const struct tc_event *e = &t->events[i];
		uint64_t s, end;

		if (ignored(e->kind) || (e->tid ? e->tid != g->tid : e->cpu != g->cpu))
			continue;
		event_span(l, e, &s, &end);
		if (end <= g->start || s >= g->end || end <= s)
			continue;
		if (n == GAP_SPANS)
			return;
		sp[n++] = (struct span){s > g->start ? s : g->start, end < g->end ? end : g->end};
		if (e->kind == TC_EV_SOFTIRQ)
			continue;
		if (kind_slot(e->kind) < 0 || tops++ ||
		    (e->kind == TC_EV_PAGE_FAULT) != (g->what == TC_GAP_TOUCH))
			return;
		slot = kind_slot(e->kind);
	}
	if (!n || tops != 1)
		return;
	r->slot = slot;
	union_of(sp, n, r);
}

static uint64_t less(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* Did the tracers lose records on g's CPU during it? Then what it holds is not known. */
static int lost_over(const struct tc_event *const *lost, size_t n_lost, const struct tc_gap *g)
{
	for (size_t i = 0; i < n_lost; i++)
		if (lost[i]->cpu == g->cpu && lost[i]->start_ns < g->end &&
		    lost[i]->start_ns + lost[i]->dur_ns + 1 > g->start)
			return 1;
	return 0;
}

int calibrate_run(const struct tc_trace *t, const struct idle_latency *l, const struct tc_gap *gaps,
		  size_t n, uint64_t loop_ns, struct tc_calibration *out)
{
	struct series s[TC_CALIB_KINDS] = {0};
	const struct tc_event **lost = NULL;
	size_t n_lost = 0, cap_lost = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->loop_ns = loop_ns;
	for (size_t i = 0; i < t->n_events && !err; i++) {
		if (t->events[i].kind != TC_EV_LOST)
			continue;
		err = grow(&lost, &cap_lost, n_lost + 1, sizeof(*lost));
		if (!err)
			lost[n_lost++] = &t->events[i];
	}
	for (size_t i = 0; i < n && !err; i++) {
		struct reading r;

		read_gap(t, l, &gaps[i], &r);
		if (r.slot < 0 || lost_over(lost, n_lost, &gaps[i]))
			continue;
		/* the loop's own read time falls half on each edge */
		err = series_add(&s[r.slot], gaps[i].end - gaps[i].start, r.traced,
				 less(r.first - gaps[i].start, loop_ns / 2),
				 less(gaps[i].end - r.last, loop_ns / 2));
	}
	for (int k = 0; k < TC_CALIB_KINDS && !err; k++) {
		struct tc_calib_kind *c = &out->k[k];

		c->kind = tc_calib_kinds[k];
		c->n = s[k].n;
		if (!c->n)
			continue;
		c->gap_ns = quantile(s[k].gap, c->n, 0.5);
		c->traced_ns = quantile(s[k].traced, c->n, 0.5);
		c->traced_p90_ns = quantile(s[k].traced, c->n, 0.9);
		c->pre_ns = quantile(s[k].pre, c->n, 0.5);
		c->post_ns = quantile(s[k].post, c->n, 0.5);
		c->p10_ns = quantile(s[k].hidden, c->n, 0.1);
		c->p90_ns = quantile(s[k].hidden, c->n, 0.9);
	}
	for (int k = 0; k < TC_CALIB_KINDS; k++)
		series_free(&s[k]);
	free(lost);
	return err;
}

/* ---- the trace's meta ------------------------------------------------------------------ */

static int set_u64(struct tc_trace *t, const char *kind, const char *field, uint64_t v)
{
	char key[64], val[24];

	snprintf(key, sizeof(key), "calib.%s%s%s", kind, *kind ? "." : "", field);
	snprintf(val, sizeof(val), "%llu", (unsigned long long)v);
	return trace__set_meta(t, key, val);
}

int calibrate_store(struct tc_trace *t, const struct tc_calibration *c)
{
	int err = set_u64(t, "", "loop_ns", c->loop_ns);

	if (c->exit_floor_ns)
		err = err ?: set_u64(t, "", "exit_floor_ns", c->exit_floor_ns);

	for (int k = 0; k < TC_CALIB_KINDS && !err; k++) {
		const struct tc_calib_kind *x = &c->k[k];
		const char *name = calib_keys[k];

		err = set_u64(t, name, "n", x->n);
		if (x->n < TC_CALIB_MIN)
			continue;
		err = err ?: set_u64(t, name, "gap_ns", x->gap_ns);
		err = err ?: set_u64(t, name, "traced_ns", x->traced_ns);
		err = err ?: set_u64(t, name, "traced_p90_ns", x->traced_p90_ns);
		err = err ?: set_u64(t, name, "pre_ns", x->pre_ns);
		err = err ?: set_u64(t, name, "post_ns", x->post_ns);
		err = err ?: set_u64(t, name, "p10_ns", x->p10_ns);
		err = err ?: set_u64(t, name, "p90_ns", x->p90_ns);
	}
	return err;
}

/* calib.<kind>.<field> as a number; 0 when absent or not a decimal integer. */
static uint64_t get_u64(const struct tc_trace *t, const char *kind, const char *field, int *found)
{
	char key[64], *end;
	const char *v;
	unsigned long long x;

	snprintf(key, sizeof(key), "calib.%s%s%s", kind, *kind ? "." : "", field);
	v = trace__meta(t, key);
	if (!v || !*v)
		return 0;
	x = strtoull(v, &end, 10);
	if (*end)
		return 0;
	if (found)
		*found = 1;
	return x;
}

int calibrate_load(const struct tc_trace *t, struct tc_calibration *c)
{
	const char *hv;
	int found = 0;

	memset(c, 0, sizeof(*c));
	c->loop_ns = get_u64(t, "", "loop_ns", &found);
	hv = trace__meta(t, "host.hypervisor");
	if (hv && *hv && strcmp(hv, "none"))
		c->exit_floor_ns = get_u64(t, "", "exit_floor_ns", NULL);
	for (int k = 0; k < TC_CALIB_KINDS; k++) {
		struct tc_calib_kind *x = &c->k[k];
		const char *name = calib_keys[k];

		x->kind = tc_calib_kinds[k];
		x->n = get_u64(t, name, "n", NULL);
		if (x->n < TC_CALIB_MIN) {
			x->n = 0;
			continue;
		}
		x->gap_ns = get_u64(t, name, "gap_ns", NULL);
		x->traced_ns = get_u64(t, name, "traced_ns", NULL);
		x->traced_p90_ns = get_u64(t, name, "traced_p90_ns", NULL);
		x->pre_ns = get_u64(t, name, "pre_ns", NULL);
		x->post_ns = get_u64(t, name, "post_ns", NULL);
		x->p10_ns = get_u64(t, name, "p10_ns", NULL);
		x->p90_ns = get_u64(t, name, "p90_ns", NULL);
	}
	return found;
}

const struct tc_calib_kind *calibrate_kind(const struct tc_calibration *c, uint16_t kind)
{
	int k = kind_slot(kind);

	return k >= 0 && c->k[k].n >= TC_CALIB_MIN ? &c->k[k] : NULL;
}
