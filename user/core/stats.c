// SPDX-License-Identifier: BSD-2-Clause
/*
 * stats.c - latency statistics: nearest-rank percentiles, mean and population
 * standard deviation over up to 1e8 samples of up to 1e12 ns.
 *
 * Sorting is an LSD radix sort of v - min, 11 bits per pass over the bits that
 * vary, skipping passes where every key has the same digit: latencies of one run
 * take 2 or 3 passes, where qsort() takes log2(n) compare rounds. Without memory for its scratch buffer it falls back to an
 * in-place heap sort, so summarizing never fails for lack of memory.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* Below this, the radix sort's counters and scratch buffer do not pay off. */
#define RADIX_MIN_N	 256
#define RADIX_BITS	 11
#define RADIX_BUCKETS	 (1u << RADIX_BITS)
#define RADIX_MAX_PASSES ((64 + RADIX_BITS - 1) / RADIX_BITS)

static void insertion_sort(uint64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint64_t x = v[i];
		size_t j = i;

		while (j > 0 && v[j - 1] > x) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

static void sift_down(uint64_t *v, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;
		uint64_t tmp;

		if (child >= n)
			return;
		if (child + 1 < n && v[child + 1] > v[child])
			child++;
		if (v[root] >= v[child])
			return;
		tmp = v[root];
		v[root] = v[child];
		v[child] = tmp;
		root = child;
	}
}

static void heap_sort(uint64_t *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (size_t end = n; end-- > 1;) {
		uint64_t tmp = v[0];

		v[0] = v[end];
		v[end] = tmp;
		sift_down(v, 0, end);
	}
}

/* Sorts v ascending; 0, or -ENOMEM (v untouched). */
static int radix_sort(uint64_t *v, size_t n)
{
	size_t(*count)[RADIX_BUCKETS];
	uint64_t *src = v, *dst, *tmp, min = v[0], range = 0;
	unsigned int pass, passes;

	tmp = malloc(n * sizeof(*tmp));
	count = calloc(RADIX_MAX_PASSES, sizeof(*count));
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return -ENOMEM;
	}
	dst = tmp;
	for (size_t i = 1; i < n; i++)
		min = v[i] < min ? v[i] : min;
	for (size_t i = 0; i < n; i++)
		range |= v[i] - min;
	for (passes = 0; passes < RADIX_MAX_PASSES && range >> (passes * RADIX_BITS); passes++)
		;
	/* One read of the input fills the histograms of every pass. */
	for (size_t i = 0; i < n; i++)
		for (pass = 0; pass < passes; pass++)
			count[pass][((v[i] - min) >> (pass * RADIX_BITS)) & (RADIX_BUCKETS - 1)]++;

	for (pass = 0; pass < passes; pass++) {
		unsigned int shift = pass * RADIX_BITS;
		size_t sum = 0, *c = count[pass];

		/* Every key has the same digit here: the pass would be a copy. */
		if (c[((v[0] - min) >> shift) & (RADIX_BUCKETS - 1)] == n)
			continue;
		for (unsigned int d = 0; d < RADIX_BUCKETS; d++) {
			size_t k = c[d];

			c[d] = sum;
			sum += k;
		}
		for (size_t i = 0; i < n; i++)
			dst[c[((src[i] - min) >> shift) & (RADIX_BUCKETS - 1)]++] = src[i];
		tmp = src;
		src = dst;
		dst = tmp;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(src == v ? dst : src);
	free(count);
	return 0;
}

static void sort_u64(uint64_t *v, size_t n)
{
	if (n < RADIX_MIN_N) {
		insertion_sort(v, n);
		return;
	}
	if (radix_sort(v, n))
		heap_sort(v, n);
}

uint64_t stats_percentile(const uint64_t *sorted, size_t n, double p)
{
	double x;
	size_t rank;

	if (!n)
		return 0;
	if (!(p > 0.0))
		return sorted[0];
	if (p >= 100.0)
		return sorted[n - 1];
	/*
	 * rank = ceil(p / 100 * n). p is a decimal such as 99.9 that double
	 * cannot hold exactly, so an exact product (999.0 for n = 1000) may come
	 * out a few ulps high; shave a relative 1e-12 before ceil() so it does
	 * not step to the next rank.
	 */
	x = p * (double)n / 100.0;
	x = ceil(x - x * 1e-12);
	rank = x < 1.0 ? 1 : (size_t)x;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

int stats_summarize(uint64_t *v, size_t n, struct lat_summary *out)
{
	long double sum = 0.0L, sq = 0.0L, mean;

	if (!n || !v || !out)
		return -EINVAL;
	sort_u64(v, n);

	/* Two passes: the mean first, then squared deviations from it (no cancellation). */
	for (size_t i = 0; i < n; i++)
		sum += (long double)v[i];
	mean = sum / (long double)n;
	for (size_t i = 0; i < n; i++) {
		long double d = (long double)v[i] - mean;

		sq += d * d;
	}

	memset(out, 0, sizeof(*out));
	out->n = n;
	out->min = v[0];
	out->max = v[n - 1];
	out->p50 = stats_percentile(v, n, 50.0);
	out->p99 = stats_percentile(v, n, 99.0);
	out->p999 = stats_percentile(v, n, 99.9);
	out->p9999 = stats_percentile(v, n, 99.99);
	out->p99999 = stats_percentile(v, n, 99.999);
	out->mean = (double)mean;
	out->stdev = (double)sqrtl(sq / (long double)n);
	return 0;
}
