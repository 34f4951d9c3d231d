// SPDX-License-Identifier: BSD-2-Clause
/*
 * stats.c - latency statistics: nearest-rank percentiles, mean and population
 * standard deviation over up to 1e8 samples of up to 1e12 ns.
 *
 * Sorting is core's radix sort (radix.c). Without memory for its scratch buffer
 * it falls back to an in-place heap sort, so summarizing never fails for lack of
 * memory.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "core/util/radix.h"
#include "stats.h"

/* Below this, the radix sort's counters and scratch buffer do not pay off. */
#define RADIX_MIN_N 256

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

static void sort_u64(uint64_t *v, size_t n)
{
	if (n < RADIX_MIN_N) {
		insertion_sort(v, n);
		return;
	}
	if (radix_sort_u64(v, n))
		heap_sort(v, n);
}

static size_t percentile_index(size_t n, double p)
{
	return (size_t)stats_rank(n, p) - 1;
}

uint64_t stats_percentile(const uint64_t *sorted, size_t n, double p)
{
	return n ? sorted[percentile_index(n, p)] : 0;
}

/* n var = sumsq - sum^2 / n, the division's quotient and remainder exact (n > 0). */
static long double exact_m2(const struct moments *m)
{
	unsigned __int128 s2 = (unsigned __int128)m->sum * m->sum;
	unsigned __int128 q = s2 / m->n, r = s2 % m->n;

	/* n sumsq >= sum^2 (Cauchy-Schwarz): sumsq >= q */
	return (long double)(m->sumsq - q) - (long double)r / (long double)m->n;
}

void moments_add_wide(struct moments *m, uint64_t v)
{
	long double d;

	if (!m->wrapped) {
		m->wrapped = 1;
		m->mean = m->n ? (long double)m->sum / (long double)m->n : 0.0L;
		m->m2 = m->n ? exact_m2(m) : 0.0L;
	}
	m->n++;
	d = (long double)v - m->mean;
	m->mean += d / (long double)m->n;
	m->m2 += d * ((long double)v - m->mean);
}

void moments_result(const struct moments *m, double *mean, double *stdev)
{
	long double n = (long double)m->n, var = (m->wrapped ? m->m2 : exact_m2(m)) / n;

	*mean = (double)(m->wrapped ? m->mean : (long double)m->sum / n);
	*stdev = var > 0 ? (double)sqrtl(var) : 0.0;
}

int stats_summarize(uint64_t *v, size_t n, struct lat_summary *out)
{
	struct moments m = {0};

	if (!n || !v || !out)
		return -EINVAL;
	sort_u64(v, n);
	for (size_t i = 0; i < n; i++)
		moments_add(&m, v[i]);

	memset(out, 0, sizeof(*out));
	out->n = n;
	out->min = v[0];
	out->max = v[n - 1];
	out->p50 = stats_percentile(v, n, 50.0);
	out->p99 = stats_percentile(v, n, 99.0);
	out->p999 = stats_percentile(v, n, 99.9);
	out->p9999 = stats_percentile(v, n, 99.99);
	out->p99999 = stats_percentile(v, n, 99.999);
	moments_result(&m, &out->mean, &out->stdev);
	return 0;
}

/* ---- without a copy: selection over spans ----------------------------------------------- */

#define SEL_BITS    16
#define SEL_BUCKETS (1u << SEL_BITS)
#define SEL_MAX	    6 /* p50, p99, p99.9, p99.99, p99.999 and the caller's */

/* One wanted rank: its value lies in [lo, lo + 2^shift), above `below` values. */
struct sel {
	size_t index;
	uint64_t lo;
	size_t below;
	unsigned int win; /* its window (distinct lo) in the current pass */
};

static inline uint64_t span_at(const struct lat_spans *s, size_t i)
{
	const char *r = (const char *)s->base + i * s->stride;
	uint64_t a, b;

	memcpy(&a, r + s->start_off, sizeof(a));
	memcpy(&b, r + s->end_off, sizeof(b));
	return b > a ? b - a : 0;
}

/* Narrows each rank to the bucket of its window's histogram (buckets 2^shift wide) holding it. */
static void narrow(struct sel *sel, unsigned int k, const size_t *hist, unsigned int shift)
{
	for (unsigned int i = 0; i < k; i++) {
		const size_t *h = hist + (size_t)sel[i].win * SEL_BUCKETS;
		size_t b, cum;

		for (b = 0, cum = sel[i].below; cum + h[b] <= sel[i].index; b++)
			cum += h[b];
		sel[i].below = cum;
		sel[i].lo += (uint64_t)b << shift;
	}
}

/*
 * Radix selection, after the first counting pass left each rank in a bucket
 * 2^shift wide: each further pass counts, per window (a bucket holding some
 * rank), the values inside it by their next SEL_BITS bits, until a bucket is
 * one value wide. A run's latencies need one such pass, 64-bit values at
 * most 3. hist holds SEL_MAX windows; min and max bound the values.
 *
 * Windows are buckets of one width, aligned on min: while (max - min) / width
 * fits SEL_BITS (always in the first such pass), win_of (SEL_BUCKETS entries)
 * maps a value's bucket to its window in one lookup, not one test per window.
 */
static void refine(const struct lat_spans *s, struct sel *sel, unsigned int k, size_t *hist,
		   unsigned int shift, uint64_t min, uint64_t max, uint8_t *win_of)
{
	uint64_t lo[SEL_MAX], width;
	unsigned int nw, w, i, wbits;

	while (shift) {
		wbits = shift;
		width = 1ull << shift;
		shift = shift > SEL_BITS ? shift - SEL_BITS : 0;
		nw = 0;
		for (i = 0; i < k; i++) {
			for (w = 0; w < nw && lo[w] != sel[i].lo; w++)
				;
			if (w == nw)
				lo[nw++] = sel[i].lo;
			sel[i].win = w;
		}
		memset(hist, 0, (size_t)nw * SEL_BUCKETS * sizeof(*hist));
		if ((max - min) >> wbits < SEL_BUCKETS) {
			memset(win_of, SEL_MAX, SEL_BUCKETS);
			for (w = 0; w < nw; w++)
				win_of[(lo[w] - min) >> wbits] = (uint8_t)w;
			for (size_t j = 0; j < s->n; j++) {
				uint64_t x = span_at(s, j);

				w = win_of[(x - min) >> wbits];
				if (w < SEL_MAX)
					hist[(size_t)w * SEL_BUCKETS + ((x - lo[w]) >> shift)]++;
			}
		} else {
			for (size_t j = 0; j < s->n; j++) {
				uint64_t x = span_at(s, j);

				for (w = 0; w < nw; w++)
					if (x - lo[w] < width && x >= lo[w])
						hist[(size_t)w * SEL_BUCKETS +
						     ((x - lo[w]) >> shift)]++;
			}
		}
		narrow(sel, k, hist, shift);
	}
}

int stats_summarize_spans(const struct lat_spans *s, double p, uint64_t *pct,
			  struct lat_summary *out)
{
	static const double ps[SEL_MAX - 1] = {50.0, 99.0, 99.9, 99.99, 99.999};
	uint64_t min = UINT64_MAX, max = 0, x;
	struct moments m = {0};
	struct sel sel[SEL_MAX];
	size_t *hist, n = s ? s->n : 0;
	unsigned int i, bits = 0, shift;
	uint8_t *win_of;

	if (!n || !s->base || !out || !pct)
		return -EINVAL;
	hist = malloc((size_t)SEL_MAX * SEL_BUCKETS * sizeof(*hist) + SEL_BUCKETS);
	if (!hist)
		return -ENOMEM;
	win_of = (uint8_t *)(hist + (size_t)SEL_MAX * SEL_BUCKETS);
	for (size_t j = 0; j < n; j++) {
		x = span_at(s, j);
		min = x < min ? x : min;
		max = x > max ? x : max;
		moments_add(&m, x);
	}
	/* the second pass counts the values by their top SEL_BITS bits above min */
	while (bits < 64 && (max - min) >> bits)
		bits++;
	shift = bits > SEL_BITS ? bits - SEL_BITS : 0;
	memset(hist, 0, SEL_BUCKETS * sizeof(*hist));
	for (size_t j = 0; j < n; j++)
		hist[(span_at(s, j) - min) >> shift]++;
	for (i = 0; i < SEL_MAX; i++) {
		sel[i].index = percentile_index(n, i < SEL_MAX - 1 ? ps[i] : p);
		sel[i].lo = min;
		sel[i].below = 0;
		sel[i].win = 0;
	}
	narrow(sel, SEL_MAX, hist, shift);
	refine(s, sel, SEL_MAX, hist, shift, min, max, win_of);
	free(hist);

	memset(out, 0, sizeof(*out));
	out->n = n;
	out->min = min;
	out->max = max;
	out->p50 = sel[0].lo;
	out->p99 = sel[1].lo;
	out->p999 = sel[2].lo;
	out->p9999 = sel[3].lo;
	out->p99999 = sel[4].lo;
	*pct = sel[5].lo;
	moments_result(&m, &out->mean, &out->stdev);
	return 0;
}

int stats_acc__init(struct stats_acc *a)
{
	memset(a, 0, sizeof(*a));
	a->h = hist__new();
	return a->h ? 0 : -ENOMEM;
}

void stats_acc__add(struct stats_acc *a, uint64_t v)
{
	hist__add(a->h, v, 1);
	moments_add(&a->m, v);
}

int stats_acc_summary(const struct stats_acc *a, struct lat_summary *out)
{
	const struct hist *h = a->h;

	memset(out, 0, sizeof(*out));
	if (!h || !h->total)
		return -EINVAL;
	*out = (struct lat_summary){
		.n = (size_t)h->total,
		.min = h->min,
		.max = h->max,
		.p50 = hist_percentile(h, 50),
		.p99 = hist_percentile(h, 99),
		.p999 = hist_percentile(h, 99.9),
		.p9999 = hist_percentile(h, 99.99),
		.p99999 = hist_percentile(h, 99.999),
		.binned = 1,
	};
	moments_result(&a->m, &out->mean, &out->stdev);
	return 0;
}

void stats_acc__free(struct stats_acc *a)
{
	hist__free(a->h);
	a->h = NULL;
}
