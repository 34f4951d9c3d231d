// SPDX-License-Identifier: BSD-2-Clause
/* analyze_rank.c - orderings of an analysis: top spikes, causes by excess. */
#include <string.h>

#include "analyze.h"
#include "core/util/heap.h"

/* Index orderings as "x ranks below y" predicates (heap.h), so one heap sort serves both. */
static int spike_below(const void *ctx, const void *x, const void *y)
{
	const struct tc_analysis *a = ctx;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	const struct tc_spike *p = &a->spikes[i], *q = &a->spikes[j];

	return p->rtt_ns != q->rtt_ns ? p->rtt_ns < q->rtt_ns : i > j;
}

static int cause_below(const void *ctx, const void *x, const void *y)
{
	const struct tc_analysis *a = ctx;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	const struct tc_cause *p = &a->causes[i], *q = &a->causes[j];

	/* a tie by name: an index is the order of first naming, another in a streamed read */
	return p->excess_ns != q->excess_ns ? p->excess_ns < q->excess_ns
					    : strcmp(p->name, q->name) > 0;
}

size_t analysis_top_spikes(const struct tc_analysis *a, size_t *idx, size_t n)
{
	const struct heap h = {idx, sizeof(*idx), spike_below, a};
	size_t k = 0;

	if (!a || !idx || !n)
		return 0;
	/* Keep the n best seen so far in a heap whose root is the weakest of them. */
	for (size_t i = 0; i < a->n_spikes; i++) {
		if (k < n) {
			idx[k++] = i;
			if (k == n || i + 1 == a->n_spikes)
				heap_build(&h, k);
		} else if (spike_below(a, &idx[0], &i)) {
			idx[0] = i;
			heap_sift_down(&h, k, 0);
		}
	}
	heap_drain(&h, k);
	return k;
}

size_t analysis_causes_by_excess(const struct tc_analysis *a, size_t *idx)
{
	const struct heap h = {idx, sizeof(*idx), cause_below, a};
	size_t n;

	if (!a || !idx)
		return 0;
	n = a->n_causes;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	heap_build(&h, n);
	heap_drain(&h, n);
	return n;
}
