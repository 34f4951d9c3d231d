// SPDX-License-Identifier: BSD-2-Clause
/* coll_report.c - the collectives section: durations, stragglers and their causes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_report.h"
#include "core/attrib/causes.h"

/* A spike's step, looked up by where it ended and whose it was. */
struct spike_key {
	uint64_t t_end;
	uint32_t tid;
	size_t spike;
};

static int by_end(const void *x, const void *y)
{
	const struct spike_key *a = x, *b = y;

	if (a->t_end != b->t_end)
		return a->t_end < b->t_end ? -1 : 1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/* The spike whose sample is c's step (ends at c's entry, on c's thread), or NULL. */
static const struct tc_spike *spike_of(const struct tc_analysis *a, const struct spike_key *keys,
				       const struct coll_call *c)
{
	struct spike_key want = {.t_end = c->t_in, .tid = c->tid};
	const struct spike_key *k;

	if (!a || !a->n_spikes)
		return NULL;
	k = bsearch(&want, keys, a->n_spikes, sizeof(*keys), by_end);
	return k ? &a->spikes[k->spike] : NULL;
}

static uint64_t pct(const uint64_t *v, size_t n, double p)
{
	size_t i = (size_t)(p / 100.0 * (double)n);

	return n ? v[i < n ? i : n - 1] : 0;
}

static int by_op_size(const void *x, const void *y)
{
	const struct coll_instance *const *a = x, *const *b = y;

	if ((*a)->op != (*b)->op)
		return (*a)->op < (*b)->op ? -1 : 1;
	if ((*a)->bytes != (*b)->bytes)
		return (*a)->bytes < (*b)->bytes ? -1 : 1;
	return (coll_duration(*a) > coll_duration(*b)) - (coll_duration(*a) < coll_duration(*b));
}

/* Per operation and size: the durations' percentiles. */
static int op_rows(struct coll_report *r)
{
	const struct coll_instance **by = malloc(r->m.n_inst * sizeof(*by));
	uint64_t *d = malloc(r->m.n_inst * sizeof(*d));

	r->ops = calloc(r->m.n_inst, sizeof(*r->ops));
	if (!by || !d || !r->ops) {
		free(by);
		free(d);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->m.n_inst; i++)
		by[i] = &r->m.inst[i];
	qsort(by, r->m.n_inst, sizeof(*by), by_op_size);
	for (size_t lo = 0, hi; lo < r->m.n_inst; lo = hi) {
		struct coll_op_row *row = &r->ops[r->n_ops++];

		for (hi = lo;
		     hi < r->m.n_inst && by[hi]->op == by[lo]->op && by[hi]->bytes == by[lo]->bytes;
		     hi++)
			d[hi - lo] = coll_duration(by[hi]);
		qsort(d, hi - lo, sizeof(*d), cmp_u64);
		*row = (struct coll_op_row){.op = by[lo]->op,
					    .bytes = by[lo]->bytes,
					    .count = hi - lo,
					    .p50_ns = pct(d, hi - lo, 50),
					    .p99_ns = pct(d, hi - lo, 99),
					    .p999_ns = pct(d, hi - lo, 99.9),
					    .max_ns = d[hi - lo - 1]};
	}
	free(by);
	free(d);
	return 0;
}

static struct coll_rank_row *rank_row(struct coll_report *r, const struct coll_call *c)
{
	for (size_t i = 0; i < r->n_ranks; i++)
		if (r->ranks[i].rank == c->rank && r->ranks[i].tid == c->tid)
			return &r->ranks[i];
	r->ranks[r->n_ranks] = (struct coll_rank_row){.rank = c->rank, .tid = c->tid};
	return &r->ranks[r->n_ranks++];
}

static int by_lateness(const void *x, const void *y)
{
	const struct coll_rank_row *a = x, *b = y;

	if (a->late_ns != b->late_ns)
		return a->late_ns > b->late_ns ? -1 : 1;
	return (a->last < b->last) - (a->last > b->last);
}

/* The commonest primary cause among rank's late instances. */
static void top_cause(struct coll_report *r, struct coll_rank_row *row, const uint32_t *cause,
		      size_t n_causes)
{
	size_t *votes = calloc(n_causes ? n_causes : 1, sizeof(*votes)), best = 0;

	if (!votes)
		return;
	for (size_t i = 0; i < r->m.n_inst; i++) {
		const struct coll_instance *in = &r->m.inst[i];

		if (cause[i] != UINT32_MAX && in->straggler != SIZE_MAX &&
		    r->m.calls[in->straggler].rank == row->rank &&
		    r->m.calls[in->straggler].tid == row->tid && cause[i] < n_causes)
			votes[cause[i]]++;
	}
	for (size_t k = 0; k < n_causes; k++)
		if (votes[k] > best) {
			best = votes[k];
			row->top_cause = (uint32_t)k;
			row->top_count = best;
			row->has_cause = 1;
		}
	free(votes);
}

/* The slowest instances, each with its straggler and why. */
static void slowest(struct coll_report *r, const uint32_t *cause)
{
	for (size_t i = 0; i < r->m.n_inst; i++) {
		const struct coll_instance *in = &r->m.inst[i];
		size_t at = r->n_slowest;

		while (at > 0 && coll_duration(r->slowest[at - 1].in) < coll_duration(in))
			at--;
		if (at >= COLL_SLOWEST)
			continue;
		if (r->n_slowest < COLL_SLOWEST)
			r->n_slowest++;
		memmove(&r->slowest[at + 1], &r->slowest[at],
			(r->n_slowest - 1 - at) * sizeof(r->slowest[0]));
		r->slowest[at] = (struct coll_slow_row){
			.in = in,
			.straggler = in->straggler != SIZE_MAX ? &r->m.calls[in->straggler] : NULL,
			.late = cause[i] != UINT32_MAX,
			.cause = cause[i] != UINT32_MAX ? cause[i] : 0};
	}
}

/* Whether e ran on a CPU of in's calls, or is a preemption of one of its ranks' threads. */
static int touches(const struct coll_model *m, const struct coll_instance *in,
		   const struct tc_event *e)
{
	size_t lo = in->straggler + 1 - in->n_calls; /* the straggler arrived last */

	for (size_t i = lo; i < lo + in->n_calls; i++) {
		const struct coll_call *c = &m->calls[i];

		if (e->kind == TC_EV_OFFCPU ? e->tid == c->tid : e->cpu == c->cpu)
			return 1;
	}
	return 0;
}

/*
 * Not late: what on its ranks' CPUs overlapped the collective's own time most, into s's
 * transport ("path" where nothing did). max_dur: the longest event, to look back by.
 */
static void name_transport(const struct tc_trace *t, const struct coll_model *m,
			   struct coll_slow_row *s, uint64_t max_dur, const char *nic_pattern)
{
	uint64_t lo = s->in->last_in, hi = s->in->last_out, best = 0;
	const struct tc_event *top = NULL;

	for (size_t i = trace__first_event(t, lo > max_dur ? lo - max_dur : 0);
	     i < t->n_events && t->events[i].start_ns < hi; i++) {
		const struct tc_event *e = &t->events[i];
		uint64_t a = e->start_ns > lo ? e->start_ns : lo;
		uint64_t b = e->start_ns + e->dur_ns < hi ? e->start_ns + e->dur_ns : hi;
		char name[TC_CAUSE_NAME_LEN];

		if (b <= a || b - a <= best || causes_evidence_only(e->kind) ||
		    !touches(m, s->in, e) ||
		    causes_name_event(t, e, nic_pattern, name, sizeof(name)) ==
			    TC_CAUSE_UNATTRIBUTED)
			continue;
		best = b - a;
		top = e;
	}
	if (top)
		causes_name_event(t, top, nic_pattern, s->transport, sizeof(s->transport));
	else
		snprintf(s->transport, sizeof(s->transport), "path");
}

int coll_report_build(const struct tc_trace *t, const struct tc_analysis *a,
		      const char *nic_pattern, struct coll_report **out)
{
	struct coll_report *r = calloc(1, sizeof(*r));
	struct spike_key *keys = NULL;
	uint32_t *cause = NULL;
	uint64_t max_dur = 0;
	int err;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	err = coll_build(t, &r->m);
	if (err || !r->m.n_inst) {
		coll_report_free(r);
		return err;
	}
	cause = malloc(r->m.n_inst * sizeof(*cause));
	r->ranks = calloc(r->m.n_calls, sizeof(*r->ranks));
	if (a && a->n_spikes)
		keys = malloc(a->n_spikes * sizeof(*keys));
	if (!cause || !r->ranks || (a && a->n_spikes && !keys)) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; a && i < a->n_spikes; i++) {
		const struct tc_sample *s = &t->samples[a->spikes[i].sample];

		keys[i] = (struct spike_key){.t_end = s->t_end, .tid = s->tid, .spike = i};
	}
	if (keys)
		qsort(keys, a->n_spikes, sizeof(*keys), by_end);
	for (size_t i = 0; i < r->m.n_inst; i++) {
		const struct coll_instance *in = &r->m.inst[i];
		const struct tc_spike *sp;
		struct coll_rank_row *row;

		cause[i] = UINT32_MAX;
		if (in->straggler == SIZE_MAX)
			continue;
		r->spans++;
		row = rank_row(r, &r->m.calls[in->straggler]);
		row->last++;
		sp = spike_of(a, keys, &r->m.calls[in->straggler]);
		if (!sp)
			continue;
		cause[i] = sp->primary;
		row->late++;
		row->late_ns += in->late_ns;
		r->late++;
	}
	for (size_t i = 0; i < r->n_ranks; i++)
		top_cause(r, &r->ranks[i], cause, a ? a->n_causes : 0);
	qsort(r->ranks, r->n_ranks, sizeof(*r->ranks), by_lateness);
	slowest(r, cause);
	for (size_t k = 0; k < t->n_events; k++)
		if (t->events[k].dur_ns > max_dur)
			max_dur = t->events[k].dur_ns;
	for (size_t i = 0; i < r->n_slowest; i++)
		if (!r->slowest[i].late && r->slowest[i].straggler)
			name_transport(t, &r->m, &r->slowest[i], max_dur, nic_pattern);
	err = op_rows(r);
out:
	free(keys);
	free(cause);
	if (err)
		coll_report_free(r);
	else
		*out = r;
	return err;
}

void coll_report_free(struct coll_report *r)
{
	if (!r)
		return;
	coll_model_free(&r->m);
	free(r->ops);
	free(r->ranks);
	free(r);
}
