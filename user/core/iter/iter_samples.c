// SPDX-License-Identifier: BSD-2-Clause
/* iter_samples.c - iterations from iteration marks: per thread, BEGIN..END or mark to mark. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/events.h"
#include "iter_samples.h"
#include "samples_csv.h"

/* The marks, ordered by thread then time: each thread's run is then one slice. */
static int cmp_mark(const void *x, const void *y)
{
	const struct tc_event *a = *(const struct tc_event *const *)x;
	const struct tc_event *b = *(const struct tc_event *const *)y;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	return (a->arg > b->arg) - (a->arg < b->arg); /* at one instant: END after BEGIN */
}

static int cmp_sample(const void *x, const void *y)
{
	const struct tc_sample *a = x, *b = y;

	if (a->t_start != b->t_start)
		return a->t_start < b->t_start ? -1 : 1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

static void emit(struct tc_sample *s, size_t *n, const struct tc_event *from, uint64_t end)
{
	s[*n] = (struct tc_sample){
		.t_start = from->start_ns, .t_end = end, .cpu = from->cpu, .tid = from->tid};
	(*n)++;
}

unsigned int iter_div_of(const struct tc_trace *t)
{
	const char *div = trace__meta(t, "iter.div");

	return div && !strcmp(div, "1") ? 1 : 2;
}

void iter_adjust_of(const struct tc_trace *t, struct iter_adjust *a)
{
	const char *pre = trace__meta(t, "iter.pre_ns"), *post = trace__meta(t, "iter.post_ns");

	a->pre_ns = pre ? strtoull(pre, NULL, 10) : 0;
	a->post_ns = post ? strtoull(post, NULL, 10) : 0;
}

/* One thread's marks m[0..n), in time order, into s (room for n). */
static void thread_iterations(const struct tc_event *const *m, size_t n,
			      const struct iter_adjust *adj, struct tc_sample *s, size_t *ns,
			      struct iter_stats *st)
{
	const struct tc_event *open = NULL;
	int paired = 0;

	for (size_t i = 0; i < n && !paired; i++)
		paired = m[i]->arg == TC_MARK_END;
	st->paired += paired;
	for (size_t i = 0; i < n; i++) {
		if (!paired) {
			if (i + 1 < n)
				emit(s, ns, m[i], m[i + 1]->start_ns);
			continue;
		}
		if (m[i]->arg == TC_MARK_END) {
			if (open) {
				emit(s, ns, open, m[i]->start_ns + adj->post_ns);
				if (s[*ns - 1].t_start >= adj->pre_ns)
					s[*ns - 1].t_start -= adj->pre_ns;
			} else {
				st->stray_ends++;
			}
			open = NULL;
			continue;
		}
		st->unended += open != NULL;
		open = m[i];
	}
	st->unended += open != NULL;
}

int iter_samples_build(const struct tc_event *ev, size_t n, const struct iter_adjust *adj,
		       struct tc_sample **out, size_t *n_out, struct iter_stats *st)
{
	static const struct iter_adjust none;
	const struct tc_event **m = NULL;
	struct tc_sample *s = NULL;
	size_t nm = 0, ns = 0;

	memset(st, 0, sizeof(*st));
	*out = NULL;
	*n_out = 0;
	for (size_t i = 0; i < n; i++)
		nm += ev[i].kind == TC_EV_MARK;
	if (!nm)
		return 0;
	m = malloc(nm * sizeof(*m));
	s = malloc(nm * sizeof(*s));
	if (!m || !s) {
		free(m);
		free(s);
		return -ENOMEM;
	}
	nm = 0;
	for (size_t i = 0; i < n; i++)
		if (ev[i].kind == TC_EV_MARK)
			m[nm++] = &ev[i];
	qsort(m, nm, sizeof(*m), cmp_mark);
	for (size_t i = 0, j; i < nm; i = j) {
		for (j = i + 1; j < nm && m[j]->tid == m[i]->tid;)
			j++;
		st->threads++;
		thread_iterations(m + i, j - i, adj ? adj : &none, s, &ns, st);
	}
	st->marks = nm;
	st->iterations = ns;
	free(m);
	qsort(s, ns, sizeof(*s), cmp_sample);
	if (!ns) {
		free(s);
		s = NULL;
	}
	*out = s;
	*n_out = ns;
	return 0;
}

int iter_samples_adopt(struct tc_trace *t, struct iter_stats *st)
{
	struct iter_adjust adj;
	struct tc_sample *s;
	size_t ns, kept = 0;
	int err;

	iter_adjust_of(t, &adj);
	err = iter_samples_build(t->events, t->n_events, &adj, &s, &ns, st);

	if (err || !st->marks)
		return err;
	if (ns)
		err = samples_csv_adopt(t, s, ns);
	free(s);
	if (err)
		return err;
	for (size_t i = 0; i < t->n_events; i++)
		if (t->events[i].kind != TC_EV_MARK)
			t->events[kept++] = t->events[i];
	t->n_events = kept;
	return 0;
}
