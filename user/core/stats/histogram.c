// SPDX-License-Identifier: BSD-2-Clause
/* histogram.c - log-linear histogram: exact below 256, then 128 buckets per power of two. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "histogram.h"
#include "stats_rank.h"

struct hist *hist__new(void)
{
	struct hist *h = calloc(1, sizeof(*h));

	if (!h)
		errno = ENOMEM;
	return h;
}

void hist__free(struct hist *h)
{
	free(h);
}

uint64_t hist_bucket_low(size_t b)
{
	size_t k;
	unsigned int e;

	if (b < 2 * HIST_SUB)
		return b;
	k = b - 2 * HIST_SUB;
	e = (unsigned int)(k / HIST_SUB) + 1;
	return (uint64_t)(k % HIST_SUB + HIST_SUB) << e;
}

uint64_t hist_bucket_high(size_t b)
{
	if (b + 1 >= HIST_BUCKETS)
		return UINT64_MAX;
	return hist_bucket_low(b + 1) - 1;
}

void hist__merge(struct hist *dst, const struct hist *src)
{
	if (!src->total)
		return;
	if (!dst->total || src->min < dst->min)
		dst->min = src->min;
	if (!dst->total || src->max > dst->max)
		dst->max = src->max;
	for (size_t b = 0; b < HIST_BUCKETS; b++)
		dst->counts[b] += src->counts[b];
	dst->total += src->total;
}

size_t hist_next(const struct hist *h, size_t b)
{
	for (; b < HIST_BUCKETS; b++)
		if (h->counts[b])
			return b;
	return HIST_BUCKETS;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0, v;

	if (!h->total)
		return 0;
	rank = stats_rank(h->total, p);
	for (size_t b = 0; b < HIST_BUCKETS; b++) {
		seen += h->counts[b];
		if (seen < rank)
			continue;
		v = hist_bucket_high(b);
		if (v > h->max)
			v = h->max;
		return v < h->min ? h->min : v;
	}
	return h->max;
}

uint64_t hist_count_below(const struct hist *h, uint64_t v)
{
	size_t end = hist_bucket(v);
	uint64_t n = 0;

	for (size_t b = 0; b < end; b++)
		n += h->counts[b];
	return n;
}
