// SPDX-License-Identifier: BSD-2-Clause
/* coll.c - collective instances and their stragglers from the ranks' records (coll.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "coll_event.h"

static const char *const op_names[TC_COLL_OP_MAX] = {
	[TC_COLL_ALLREDUCE] = "allreduce",
	[TC_COLL_REDUCE] = "reduce",
	[TC_COLL_BCAST] = "bcast",
	[TC_COLL_BARRIER] = "barrier",
	[TC_COLL_ALLGATHER] = "allgather",
	[TC_COLL_ALLTOALL] = "alltoall",
	[TC_COLL_REDUCE_SCATTER] = "reduce_scatter",
	[TC_COLL_REDUCE_SCATTER_BLOCK] = "reduce_scatter_block",
};

const char *coll_op_name(uint16_t op)
{
	return op < TC_COLL_OP_MAX && op_names[op] ? op_names[op] : "other";
}

static int by_instance(const void *a, const void *b)
{
	const struct coll_call *x = a, *y = b;

	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (x->t_in > y->t_in) - (x->t_in < y->t_in);
}

/* calls[lo..hi): one instance, in arrival order. */
static void fill_instance(const struct coll_call *c, size_t lo, size_t hi, struct coll_instance *in,
			  size_t *odd)
{
	size_t n = hi - lo, others = n - 1;

	memset(in, 0, sizeof(*in));
	in->comm = c[lo].comm;
	in->seq = c[lo].seq;
	in->op = c[lo].op;
	in->comm_size = c[lo].comm_size;
	in->n_calls = (uint32_t)n;
	in->first_in = c[lo].t_in;
	in->last_in = c[hi - 1].t_in;
	in->straggler = n >= 2 ? hi - 1 : SIZE_MAX;
	for (size_t i = lo; i < hi; i++) {
		if (c[i].t_out > in->last_out)
			in->last_out = c[i].t_out;
		if (c[i].bytes > in->bytes)
			in->bytes = c[i].bytes;
		*odd += c[i].op != in->op || c[i].comm_size != in->comm_size;
	}
	/* the others arrived at c[lo .. hi - 1), in order: their median */
	if (n >= 2)
		in->late_ns = in->last_in - c[lo + others / 2].t_in;
}

/* comm's size from t's meta (0: not recorded). */
static int32_t size_of(const struct tc_trace *t, uint64_t comm)
{
	char key[COLL_SIZE_KEY_LEN];
	const char *v;
	long n;

	tc_coll_size_key(key, comm);
	v = trace__meta(t, key);
	n = v ? strtol(v, NULL, 10) : 0;
	return n > 0 && n <= INT32_MAX ? (int32_t)n : 0;
}

int coll_build(const struct tc_trace *t, struct coll_model *m)
{
	const struct tc_event *ev = t->events;
	size_t k = 0, lo, n = t->n_events;

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < n; i++)
		k += ev[i].kind == TC_EV_COLL;
	if (!k)
		return 0;
	m->calls = calloc(k, sizeof(*m->calls));
	m->inst = calloc(k, sizeof(*m->inst));
	if (!m->calls || !m->inst) {
		coll_model_free(m);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct tc_event *e = &ev[i];
		struct coll_call *c;

		if (e->kind != TC_EV_COLL)
			continue;
		c = &m->calls[m->n_calls++];
		*c = (struct coll_call){.t_in = e->start_ns,
					.t_out = e->start_ns + e->dur_ns,
					.comm = e->aux,
					.bytes = tc_coll_event_bytes(e),
					.seq = e->arg,
					.tid = e->tid,
					.cpu = e->cpu,
					.rank = (int32_t)e->other_pid,
					.comm_size = -1,
					.op = e->flags};
	}
	qsort(m->calls, m->n_calls, sizeof(*m->calls), by_instance);
	for (lo = 0; lo < m->n_calls;) {
		size_t hi = lo + 1;
		struct coll_instance *in = &m->inst[m->n_inst++];

		while (hi < m->n_calls && m->calls[hi].comm == m->calls[lo].comm &&
		       m->calls[hi].seq == m->calls[lo].seq)
			hi++;
		if (m->calls[lo].comm_size < 0) /* first of its communicator: look its size up */
			for (size_t i = lo, sz = (size_t)size_of(t, m->calls[lo].comm);
			     i < m->n_calls && m->calls[i].comm == m->calls[lo].comm; i++)
				m->calls[i].comm_size = (int32_t)sz;
		fill_instance(m->calls, lo, hi, in, &m->odd);
		m->incomplete += in->comm_size > 0 && in->n_calls < (uint32_t)in->comm_size;
		lo = hi;
	}
	return 0;
}

static int by_thread_time(const void *a, const void *b)
{
	const struct coll_call *const *x = a, *const *y = b;

	if ((*x)->tid != (*y)->tid)
		return (*x)->tid < (*y)->tid ? -1 : 1;
	return ((*x)->t_in > (*y)->t_in) - ((*x)->t_in < (*y)->t_in);
}

static int by_start(const void *a, const void *b)
{
	const struct tc_sample *x = a, *y = b;

	return (x->t_start > y->t_start) - (x->t_start < y->t_start);
}

int coll_steps(struct coll_model *m, struct tc_sample **out, size_t *n_out)
{
	size_t cap = m->n_calls ? m->n_calls : 1, n = 0;
	struct coll_call **order = calloc(cap, sizeof(*order));
	struct tc_sample *s = calloc(cap, sizeof(*s));

	*out = NULL;
	*n_out = 0;
	if (!order || !s) {
		free(order);
		free(s);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->n_calls; i++)
		order[i] = &m->calls[i];
	qsort(order, m->n_calls, sizeof(*order), by_thread_time);
	for (size_t i = 1; i < m->n_calls; i++) {
		const struct coll_call *prev = order[i - 1];

		if (prev->tid != order[i]->tid || order[i]->t_in < prev->t_out)
			continue;
		s[n++] = (struct tc_sample){.t_start = prev->t_out,
					    .t_end = order[i]->t_in,
					    .cpu = order[i]->cpu,
					    .tid = order[i]->tid};
	}
	qsort(s, n, sizeof(*s), by_start);
	free(order);
	*out = s;
	*n_out = n;
	return 0;
}

void coll_model_free(struct coll_model *m)
{
	free(m->calls);
	free(m->inst);
	memset(m, 0, sizeof(*m));
}
