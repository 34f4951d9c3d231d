// SPDX-License-Identifier: BSD-2-Clause
/* analyze_rank.c - orderings of an analysis: top spikes, causes by excess. */
#include "analyze.h"

/* Index orderings as "x ranks below y" predicates, so one heap sort serves both. */
typedef int (*below_fn)(const struct tc_analysis *a, size_t x, size_t y);

static int spike_below(const struct tc_analysis *a, size_t x, size_t y)
{
	const struct tc_spike *p = &a->spikes[x], *q = &a->spikes[y];

	return p->rtt_ns != q->rtt_ns ? p->rtt_ns < q->rtt_ns : x > y;
}

static int cause_below(const struct tc_analysis *a, size_t x, size_t y)
{
	const struct tc_cause *p = &a->causes[x], *q = &a->causes[y];

	return p->excess_ns != q->excess_ns ? p->excess_ns < q->excess_ns : x > y;
}

/* Sift-down in a heap whose root ranks lowest. */
static void sift(const struct tc_analysis *a, size_t *h, size_t i, size_t n, below_fn below)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i, tmp;

		if (l < n && below(a, h[l], h[m]))
			m = l;
		if (l + 1 < n && below(a, h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

/* Sorts a heap whose root ranks lowest into highest-first order. */
static void heap_drain(const struct tc_analysis *a, size_t *h, size_t n, below_fn below)
{
	for (size_t end = n; end-- > 1;) {
		size_t tmp = h[0];

		h[0] = h[end];
		h[end] = tmp;
		sift(a, h, 0, end, below);
	}
}

size_t analysis_top_spikes(const struct tc_analysis *a, size_t *idx, size_t n)
{
	size_t k = 0;

	if (!a || !idx || !n)
		return 0;
	/* Keep the n best seen so far in a heap whose root is the weakest of them. */
	for (size_t i = 0; i < a->n_spikes; i++) {
		if (k < n) {
			idx[k++] = i;
			if (k == n || i + 1 == a->n_spikes)
				for (size_t j = k / 2; j-- > 0;)
					sift(a, idx, j, k, spike_below);
		} else if (spike_below(a, idx[0], i)) {
			idx[0] = i;
			sift(a, idx, 0, k, spike_below);
		}
	}
	heap_drain(a, idx, k, spike_below);
	return k;
}

size_t analysis_causes_by_excess(const struct tc_analysis *a, size_t *idx)
{
	size_t n;

	if (!a || !idx)
		return 0;
	n = a->n_causes;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	for (size_t j = n / 2; j-- > 0;)
		sift(a, idx, j, n, cause_below);
	heap_drain(a, idx, n, cause_below);
	return n;
}
