// SPDX-License-Identifier: BSD-2-Clause
/* stats_exact.c - exact statistics in two passes over the values (stats_exact.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "core/util/radix.h"
#include "stats_exact.h"

int stats_exact__init(struct stats_exact *s)
{
	memset(s, 0, sizeof(*s));
	s->h = hist__new();
	return s->h ? 0 : -ENOMEM;
}

void stats_exact_count(struct stats_exact *s, uint64_t v)
{
	hist__add(s->h, v, 1);
}

void stats_exact_given(struct stats_exact *s, const struct hist *h)
{
	memcpy(s->h, h, sizeof(*h));
}

/* Where rank falls: its bucket, the bucket's values and the count below it. */
static void place(const struct hist *h, struct stats_target *t)
{
	uint64_t below = 0;

	for (size_t b = hist_next(h, 0); b < HIST_BUCKETS; b = hist_next(h, b + 1)) {
		if (below + h->counts[b] >= t->rank) {
			t->bucket = b;
			t->lo = hist_bucket_low(b);
			t->hi = hist_bucket_high(b);
			t->below = below;
			return;
		}
		below += h->counts[b];
	}
}

int stats_exact_begin(struct stats_exact *s, double p)
{
	static const double ps[STATS_EXACT_TARGETS - 1] = {50.0, 99.0, 99.9, 99.99, 99.999};
	const struct hist *h = s->h;

	if (!h->total)
		return -EINVAL;
	memset(&s->m, 0, sizeof(s->m));
	free(s->keeper);
	s->keeper = calloc(HIST_BUCKETS, sizeof(*s->keeper));
	if (!s->keeper)
		return -ENOMEM;
	for (size_t i = 0; i < STATS_EXACT_TARGETS; i++) {
		struct stats_target *t = &s->t[i];
		uint64_t in;

		t->p = i < STATS_EXACT_TARGETS - 1 ? ps[i] : p;
		t->rank = stats_rank(h->total, t->p);
		place(h, t);
		in = h->counts[t->bucket];
		/* a target sharing an earlier one's bucket reads that one's values */
		for (size_t j = 0; j < i; j++)
			if (s->t[j].bucket == t->bucket)
				in = 0;
		if (!in)
			continue;
		if (in <= STATS_EXACT_MAX_KEEP) {
			t->vals = malloc(in * sizeof(*t->vals));
			t->cap_vals = in;
			if (!t->vals)
				return -ENOMEM;
		} else if (t->hi - t->lo < STATS_EXACT_MAX_SPAN) {
			t->cnt = calloc(t->hi - t->lo + 1, sizeof(*t->cnt));
			if (!t->cnt)
				return -ENOMEM;
		} else {
			s->binned = 1;
			continue;
		}
		s->keeper[t->bucket] = (uint8_t)(i + 1);
	}
	return 0;
}

void stats_exact_select(struct stats_exact *s, uint64_t v)
{
	uint8_t k = s->keeper[hist_bucket(v)];
	struct stats_target *t;

	moments_add(&s->m, v);
	if (!k)
		return;
	t = &s->t[k - 1];
	if (t->vals && t->n_vals < t->cap_vals)
		t->vals[t->n_vals++] = v;
	else if (t->cnt)
		t->cnt[v - t->lo]++;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* The k-th smallest (1-based) of the bucket's values, from the target that holds them. */
static uint64_t kth(const struct stats_target *holder, const struct hist *h, uint64_t k)
{
	uint64_t seen = 0;

	if (holder->vals && k <= holder->n_vals)
		return holder->vals[k - 1];
	if (holder->cnt)
		for (uint64_t v = 0; v <= holder->hi - holder->lo; v++) {
			seen += holder->cnt[v];
			if (seen >= k)
				return holder->lo + v;
		}
	/* binned: the bucket's largest value, clamped as hist_percentile() does */
	return holder->hi < h->max ? (holder->hi > h->min ? holder->hi : h->min) : h->max;
}

int stats_exact_finish(struct stats_exact *s, struct lat_summary *out, uint64_t *pct)
{
	const struct hist *h = s->h;

	for (size_t i = 0; i < STATS_EXACT_TARGETS; i++)
		if (s->t[i].vals && radix_sort_u64(s->t[i].vals, s->t[i].n_vals))
			qsort(s->t[i].vals, s->t[i].n_vals, sizeof(*s->t[i].vals), cmp_u64);
	for (size_t i = 0; i < STATS_EXACT_TARGETS; i++) {
		struct stats_target *t = &s->t[i], *holder = t;

		for (size_t j = 0; j < i; j++)
			if (s->t[j].bucket == t->bucket) {
				holder = &s->t[j];
				break;
			}
		t->value = kth(holder, h, t->rank - t->below);
	}
	memset(out, 0, sizeof(*out));
	out->n = (size_t)h->total;
	out->min = h->min;
	out->max = h->max;
	out->p50 = s->t[0].value;
	out->p99 = s->t[1].value;
	out->p999 = s->t[2].value;
	out->p9999 = s->t[3].value;
	out->p99999 = s->t[4].value;
	*pct = s->t[5].value;
	moments_result(&s->m, &out->mean, &out->stdev);
	out->binned = s->binned;
	return 0;
}

void stats_exact__free(struct stats_exact *s)
{
	free(s->keeper);
	for (size_t i = 0; i < STATS_EXACT_TARGETS; i++) {
		free(s->t[i].vals);
		free(s->t[i].cnt);
	}
	hist__free(s->h);
	memset(s, 0, sizeof(*s));
}
