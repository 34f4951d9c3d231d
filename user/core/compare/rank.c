// SPDX-License-Identifier: BSD-2-Clause
/* rank.c - many nodes' runs, worst first, with the causes the worst ones share. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank.h"

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Worst (largest) first; ties in input order. */
static int cmp_node(const void *x, const void *y)
{
	const struct rk_node *a = x, *b = y;

	if (a->value_ns != b->value_ns)
		return a->value_ns > b->value_ns ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

static int spread(struct rank *r)
{
	double *v = malloc(r->n * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < r->n; i++)
		v[i] = r->nodes[i].value_ns;
	r->median_ns = median_of(v, r->n);
	for (size_t i = 0; i < r->n; i++)
		v[i] = fabs(r->nodes[i].value_ns - r->median_ns);
	r->mad_ns = median_of(v, r->n);
	free(v);
	for (size_t i = 0; i < r->n; i++) {
		struct rk_node *k = &r->nodes[i];

		k->z = r->mad_ns > 0 ? (k->value_ns - r->median_ns) / (1.4826 * r->mad_ns) : 0;
		k->outlier = k->z > RK_OUTLIER_Z ? 1 : k->z < -RK_OUTLIER_Z ? -1 : 0;
		r->n_outliers += k->outlier != 0;
	}
	return 0;
}

static void describe_node(struct rk_node *k)
{
	const struct summary *s = k->s;

	for (size_t c = 0; c < s->n_causes && k->n_top < RK_TOP_CAUSES; c++)
		k->top[k->n_top++] = c;
	for (int id = 0; s->has_audit && id < TC_AUDIT_CHECK_COUNT; id++)
		if (s->audit.r[id].present && s->audit.r[id].status == TC_AUDIT_FAIL)
			k->failing[k->n_failing++] = (enum tc_audit_check)id;
}

static int has_top(const struct rk_node *k, const char *name)
{
	for (size_t i = 0; i < k->n_top; i++)
		if (!strcmp(k->s->causes[k->top[i]].name, name))
			return 1;
	return 0;
}

static int cmp_shared(const void *x, const void *y)
{
	const struct rk_shared *a = x, *b = y;

	if (a->worst_nodes != b->worst_nodes)
		return a->worst_nodes > b->worst_nodes ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int shared_causes(struct rank *r)
{
	r->n_worst = r->n / 4 > 2 ? r->n / 4 : r->n < 2 ? r->n : 2;
	r->shared = calloc(r->n_worst * RK_TOP_CAUSES + 1, sizeof(*r->shared));
	if (!r->shared)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_worst; i++) {
		const struct rk_node *k = &r->nodes[i];

		for (size_t t = 0; t < k->n_top; t++) {
			const char *name = k->s->causes[k->top[t]].name;
			size_t j = 0;

			while (j < r->n_shared && strcmp(r->shared[j].name, name))
				j++;
			if (j == r->n_shared)
				snprintf(r->shared[r->n_shared++].name, sizeof(r->shared->name),
					 "%s", name);
		}
	}
	for (size_t j = 0; j < r->n_shared; j++)
		for (size_t i = 0; i < r->n; i++)
			if (has_top(&r->nodes[i], r->shared[j].name)) {
				r->shared[j].all_nodes++;
				r->shared[j].worst_nodes += i < r->n_worst;
			}
	/* Keep what at least half of the worst nodes (and two of them) have. */
	for (size_t j = 0; j < r->n_shared;) {
		if (r->shared[j].worst_nodes >= 2 && 2 * r->shared[j].worst_nodes >= r->n_worst) {
			j++;
			continue;
		}
		r->shared[j] = r->shared[--r->n_shared];
	}
	qsort(r->shared, r->n_shared, sizeof(*r->shared), cmp_shared);
	return 0;
}

static void check_same_probe(struct rank *r, const struct summary *s, size_t n)
{
	r->same_probe = 1;
	for (size_t i = 1; i < n; i++) {
		if (strcmp(s[i].probe, s[0].probe) || s[i].div != s[0].div ||
		    (s[i].has_bytes && s[0].has_bytes && s[i].bytes != s[0].bytes)) {
			snprintf(
				r->mismatch, sizeof(r->mismatch),
				"%.120s and %.120s are not runs of the same probe and message size",
				s[0].source, s[i].source);
			r->same_probe = 0;
			return;
		}
	}
}

int rank__run(const struct summary *s, size_t n, enum sm_figure by, struct rank **out)
{
	struct rank *r;
	int err;

	if (!n)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->by = by;
	r->n = n;
	r->nodes = calloc(n, sizeof(*r->nodes));
	if (!r->nodes) {
		free(r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		r->nodes[i] = (struct rk_node){.s = &s[i], .index = i, .value_ns = s[i].pct[by]};
		describe_node(&r->nodes[i]);
	}
	qsort(r->nodes, n, sizeof(*r->nodes), cmp_node);
	check_same_probe(r, s, n);
	err = spread(r);
	err = err ?: shared_causes(r);
	if (err) {
		rank__free(r);
		return err;
	}
	*out = r;
	return 0;
}

void rank__free(struct rank *r)
{
	if (!r)
		return;
	free(r->nodes);
	free(r->shared);
	free(r);
}
