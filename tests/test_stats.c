// SPDX-License-Identifier: BSD-2-Clause
/* test_stats.c - percentiles, mean and stdev, every expected value worked out by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats/stats.h"
#include "core/stats/stats_exact.h"

static void test_stats_summarize_odd_n(void **state)
{
	uint64_t v[] = {5, 1, 3};
	struct lat_summary s;

	(void)state;
	assert_int_equal(stats_summarize(v, 3, &s), 0);

	assert_int_equal(s.n, 3);
	assert_int_equal(s.min, 1);
	assert_int_equal(s.max, 5);
	assert_int_equal(s.p50, 3); /* rank ceil(1.5) = 2 */
	assert_int_equal(s.p99, 5); /* rank ceil(2.97) = 3 */
	assert_true(fabs(s.mean - 3.0) < 1e-12);
	assert_true(fabs(s.stdev - sqrt(8.0 / 3.0)) < 1e-12); /* (4 + 0 + 4) / 3 */
}

static void test_stats_summarize_even_n(void **state)
{
	uint64_t v[] = {4, 1, 3, 2};
	struct lat_summary s;

	(void)state;
	assert_int_equal(stats_summarize(v, 4, &s), 0);

	assert_int_equal(s.p50, 2); /* rank 2 exactly: nearest rank takes the lower middle */
	assert_int_equal(s.p99, 4);
	assert_true(fabs(s.mean - 2.5) < 1e-12);
	assert_true(fabs(s.stdev - sqrt(1.25)) < 1e-12); /* (2.25 + .25 + .25 + 2.25) / 4 */
}

static void test_stats_summarize_single_sample(void **state)
{
	uint64_t v[] = {42};
	struct lat_summary s;

	(void)state;
	assert_int_equal(stats_summarize(v, 1, &s), 0);

	assert_int_equal(s.min, 42);
	assert_int_equal(s.max, 42);
	assert_int_equal(s.p50, 42);
	assert_int_equal(s.p99999, 42);
	assert_true(s.mean == 42.0);
	assert_true(s.stdev == 0.0);
}

static void test_stats_summarize_known_stdev(void **state)
{
	uint64_t v[] = {2, 4, 4, 4, 5, 5, 7, 9}; /* the textbook set: mean 5, sigma 2 */
	struct lat_summary s;

	(void)state;
	assert_int_equal(stats_summarize(v, 8, &s), 0);

	assert_true(fabs(s.mean - 5.0) < 1e-12);
	assert_true(fabs(s.stdev - 2.0) < 1e-12);
}

static void test_stats_summarize_empty_is_einval(void **state)
{
	uint64_t v[] = {1};
	struct lat_summary s;

	(void)state;
	assert_int_equal(stats_summarize(v, 0, &s), -EINVAL);
	assert_int_equal(stats_summarize(NULL, 0, &s), -EINVAL);
}

static void test_stats_summarize_sorts_in_place(void **state)
{
	uint64_t v[] = {9, 3, 7, 1, 5};
	struct lat_summary s;

	(void)state;
	assert_int_equal(stats_summarize(v, 5, &s), 0);

	for (int i = 0; i < 5; i++)
		assert_int_equal(v[i], 2 * i + 1);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Enough values to take the radix path, spread over all eight bytes. */
static void test_stats_summarize_large_sort_matches_qsort(void **state)
{
	enum { N = 20000 };
	uint64_t *v = malloc(N * sizeof(*v)), *ref = malloc(N * sizeof(*ref)),
		 x = 88172645463325252ull;
	struct lat_summary s;

	(void)state;
	assert_non_null(v);
	assert_non_null(ref);
	for (int i = 0; i < N; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v[i] = ref[i] = i % 3 ? x : x % 1000; /* many small values, some huge */
	}
	qsort(ref, N, sizeof(*ref), cmp_u64);

	assert_int_equal(stats_summarize(v, N, &s), 0);

	assert_memory_equal(v, ref, N * sizeof(*v));
	assert_int_equal(s.min, ref[0]);
	assert_int_equal(s.max, ref[N - 1]);
	assert_int_equal(s.p50, ref[N / 2 - 1]);
	free(v);
	free(ref);
}

/* Latencies of one run: a narrow range far from 0, sorted in the few passes its width needs. */
static void test_stats_summarize_narrow_range_matches_qsort(void **state)
{
	enum { N = 5000 };
	uint64_t *v = malloc(N * sizeof(*v)), *ref = malloc(N * sizeof(*ref)),
		 x = 88172645463325252ull;
	struct lat_summary s;

	(void)state;
	assert_non_null(v);
	assert_non_null(ref);
	for (int i = 0; i < N; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* 18 bits that vary, above a base whose low digit is not 0 */
		v[i] = ref[i] = (1ull << 40) + 12345 + (i % 7 ? x % 3000 : x % (1u << 18));
	}
	qsort(ref, N, sizeof(*ref), cmp_u64);
	assert_int_equal(stats_summarize(v, N, &s), 0);
	assert_memory_equal(v, ref, N * sizeof(*v));
	assert_int_equal(s.p99, ref[N / 100 * 99 - 1]);
	free(v);
	free(ref);
}

/* Samples as the analyzer holds them, for stats_summarize_spans(). */
struct span_rec {
	uint64_t t_start, t_end;
	uint32_t cpu, tid;
};

/* Two summaries of the same values: the same count, extremes, percentiles and mean. */
static void assert_same_ranks(const struct lat_summary *a, const struct lat_summary *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->min, b->min);
	assert_int_equal(a->max, b->max);
	assert_int_equal(a->p50, b->p50);
	assert_int_equal(a->p99, b->p99);
	assert_int_equal(a->p999, b->p999);
	assert_int_equal(a->p9999, b->p9999);
	assert_int_equal(a->p99999, b->p99999);
	assert_true(a->mean == b->mean);
}

/* A run's RTTs above a base, spread up to `spread`, now and then an end before the start. */
static void fill_spans(struct span_rec *r, size_t n, uint64_t spread, uint64_t *x)
{
	for (size_t i = 0; i < n; i++) {
		*x ^= *x << 13;
		*x ^= *x >> 7;
		*x ^= *x << 17;
		r[i].t_start = 1000 + i;
		r[i].t_end = i % 97 == 5 ? 0
					 : r[i].t_start + 2500 +
						   (spread < UINT64_MAX - 5000 ? *x % (spread + 1)
									       : *x >> 1);
	}
}

/* stats_summarize_spans() reports what stats_summarize() does on a copy, for any spread. */
static void test_stats_summarize_spans_matches_sorting(void **state)
{
	enum { N = 30011 };
	static const uint64_t spreads[] = {0, 1, 7, 3000, 1u << 18, 1ull << 33, UINT64_MAX};
	static const double ps[] = {0.001, 50.0, 98.5, 99.97, 100.0};
	struct span_rec *r = malloc(N * sizeof(*r));
	uint64_t *v = malloc(N * sizeof(*v)), x = 88172645463325252ull, pct;
	struct lat_spans sp = {.base = r,
			       .stride = sizeof(*r),
			       .start_off = offsetof(struct span_rec, t_start),
			       .end_off = offsetof(struct span_rec, t_end)};
	struct lat_summary a, b;
	size_t k, j, i, n;

	(void)state;
	assert_non_null(r);
	assert_non_null(v);
	for (k = 0; k < sizeof(spreads) / sizeof(spreads[0]); k++) {
		for (n = 1; n <= N; n = n * 7 + 3) {
			fill_spans(r, n, spreads[k], &x);
			for (i = 0; i < n; i++)
				v[i] = r[i].t_end > r[i].t_start ? r[i].t_end - r[i].t_start : 0;
			sp.n = n;
			for (j = 0; j < sizeof(ps) / sizeof(ps[0]); j++) {
				assert_int_equal(stats_summarize_spans(&sp, ps[j], &pct, &a), 0);
				assert_int_equal(stats_summarize(v, n, &b), 0);
				assert_int_equal(pct, stats_percentile(v, n, ps[j]));
				assert_same_ranks(&a, &b);
				assert_true(fabs(a.stdev - b.stdev) <= 1e-9 * (b.stdev + 1));
			}
		}
	}
	sp.n = 0;
	assert_int_equal(stats_summarize_spans(&sp, 50.0, &pct, &a), -EINVAL);
	free(r);
	free(v);
}

/* 20 x 1e18 = 2e19 overflows a uint64_t sum; 1e12 +- 1 needs more than a naive double E[x^2]. */
static void test_stats_summarize_large_values_no_overflow(void **state)
{
	enum { N = 1000 };
	uint64_t big[20], v[N];
	struct lat_summary s;

	(void)state;
	for (int i = 0; i < 20; i++)
		big[i] = 1000000000000000000ull;
	assert_int_equal(stats_summarize(big, 20, &s), 0);
	assert_true(fabs(s.mean - 1e18) < 1e3);
	assert_true(s.stdev == 0.0);

	for (int i = 0; i < N; i++)
		v[i] = 1000000000000ull + (i % 2 ? 2 : 0);
	assert_int_equal(stats_summarize(v, N, &s), 0);
	assert_true(fabs(s.mean - 1000000000001.0) < 1e-3);
	assert_true(fabs(s.stdev - 1.0) < 1e-6);
}

/*
 * The moments: exact on a large mean with a tiny spread (10^12 + 0, 1, 2: sqrt(2/3)),
 * the same bits in any order, and past the integers' range (a sum over 2^64) still
 * right: 40 values 10^18 and 10^18 + 2 * 10^9 alternating have mean 10^18 + 10^9 and
 * deviation 10^9.
 */
static void test_stats_moments_exact_any_order_and_past_the_integers(void **state)
{
	struct moments up = {0}, down = {0}, wide = {0};
	double mean, stdev, mean2, stdev2;

	(void)state;
	for (uint64_t i = 0; i < 3000; i++) {
		moments_add(&up, 1000000000000ull + i % 3);
		moments_add(&down, 1000000000000ull + (2999 - i) % 3);
	}
	moments_result(&up, &mean, &stdev);
	moments_result(&down, &mean2, &stdev2);
	assert_true(mean == 1000000000001.0);
	assert_true(fabs(stdev - sqrt(2.0 / 3.0)) < 1e-12);
	assert_true(mean == mean2 && stdev == stdev2);

	for (int i = 0; i < 40; i++)
		moments_add(&wide, 1000000000000000000ull + (i % 2 ? 2000000000ull : 0));
	assert_true(wide.wrapped);
	assert_int_equal(wide.n, 40);
	moments_result(&wide, &mean, &stdev);
	assert_true(fabs(mean - 1.000000001e18) < 1e3);
	assert_true(fabs(stdev - 1e9) < 1.0);
}

static void test_stats_percentile_nearest_rank(void **state)
{
	enum { N = 1000 };
	uint64_t v[N];

	(void)state;
	for (int i = 0; i < N; i++)
		v[i] = i + 1;

	assert_int_equal(stats_percentile(v, N, 50.0), 500);
	assert_int_equal(stats_percentile(v, N, 99.0), 990);
	assert_int_equal(stats_percentile(v, N, 99.9), 999);
	assert_int_equal(stats_percentile(v, N, 99.99), 1000); /* rank ceil(999.9) */
	assert_int_equal(stats_percentile(v, N, 0.1), 1);
	assert_int_equal(stats_percentile(v, N, 0.15), 2); /* rank ceil(1.5) */
	assert_int_equal(stats_percentile(v, N, 100.0), 1000);
}

static void test_stats_percentile_exact_rank_at_scale(void **state)
{
	enum { N = 100000 };
	uint64_t *v = malloc(N * sizeof(*v));

	(void)state;
	assert_non_null(v);
	for (int i = 0; i < N; i++)
		v[i] = i + 1;

	assert_int_equal(stats_percentile(v, N, 99.999), 99999);
	assert_int_equal(stats_percentile(v, N, 99.99), 99990);
	assert_int_equal(stats_percentile(v, N, 99.9), 99900);
	free(v);
}

/* 99.9 * 41000 / 100 computes as 40959.00000000001 in double: the rank must stay 40959. */
static void test_stats_percentile_inexact_product_keeps_rank(void **state)
{
	enum { N = 41000 };
	uint64_t *v = malloc(N * sizeof(*v));

	(void)state;
	assert_non_null(v);
	for (int i = 0; i < N; i++)
		v[i] = i + 1;

	assert_int_equal(stats_percentile(v, N, 99.9), 40959);
	free(v);
}

static void test_stats_summarize_tail_percentiles(void **state)
{
	enum { N = 100000 };
	uint64_t *v = malloc(N * sizeof(*v));
	struct lat_summary s;

	(void)state;
	assert_non_null(v);
	for (int i = 0; i < N; i++)
		v[i] = N - i; /* descending: summarize must sort */

	assert_int_equal(stats_summarize(v, N, &s), 0);

	assert_int_equal(s.p50, 50000);
	assert_int_equal(s.p99, 99000);
	assert_int_equal(s.p999, 99900);
	assert_int_equal(s.p9999, 99990);
	assert_int_equal(s.p99999, 99999);
	free(v);
}

/* The histogram's statistics (lat --duration) against the exact ones: percentiles within
 * 1/128, the moments and the extremes exact. */
static void test_stats_acc_matches_exact(void **state)
{
	enum { N = 100000 };
	uint64_t *v = malloc(N * sizeof(*v)), x = 88172645463325252ull;
	struct lat_summary exact, binned;
	struct stats_acc acc;

	(void)state;
	assert_non_null(v);
	assert_int_equal(stats_acc__init(&acc), 0);
	assert_int_equal(stats_acc_summary(&acc, &binned), -EINVAL); /* empty */
	for (size_t i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		/* mostly ~2 us, a tail to 2 ms */
		v[i] = 1500 + x % 1000 + (i % 997 == 0 ? x % 2000000 : 0);
		stats_acc__add(&acc, v[i]);
	}
	assert_int_equal(stats_acc_summary(&acc, &binned), 0);
	assert_int_equal(stats_summarize(v, N, &exact), 0);
	assert_true(binned.binned && !exact.binned);
	assert_int_equal(binned.n, N);
	assert_int_equal(binned.min, exact.min);
	assert_int_equal(binned.max, exact.max);
	assert_true(fabs(binned.mean - exact.mean) < 1e-6 * exact.mean);
	assert_true(fabs(binned.stdev - exact.stdev) < 1e-6 * exact.stdev);
	{
		const uint64_t want[] = {exact.p50, exact.p99, exact.p999, exact.p9999,
					 exact.p99999};
		const uint64_t got[] = {binned.p50, binned.p99, binned.p999, binned.p9999,
					binned.p99999};

		for (int k = 0; k < 5; k++) {
			if (!(got[k] >= want[k] && got[k] - want[k] <= want[k] / 128 + 1))
				fprintf(stderr, "k %d got %llu want %llu\n", k,
					(unsigned long long)got[k], (unsigned long long)want[k]);
			assert_true(got[k] >= want[k] && got[k] - want[k] <= want[k] / 128 + 1);
		}
	}
	stats_acc__free(&acc);
	free(v);
}

/* Two passes in bounded memory give what the in-place selection gives, value for value. */
static void test_stats_exact_matches_spans(void **state)
{
	enum { N = 30011 };
	static const uint64_t spreads[] = {0, 1, 7, 3000, 1u << 18, 1ull << 33, UINT64_MAX};
	static const double ps[] = {0.001, 50.0, 98.5, 99.97, 100.0};
	struct span_rec *r = malloc(N * sizeof(*r));
	uint64_t x = 88172645463325252ull, pct, pct2, v;
	struct lat_spans sp = {.base = r,
			       .stride = sizeof(*r),
			       .start_off = offsetof(struct span_rec, t_start),
			       .end_off = offsetof(struct span_rec, t_end)};
	struct lat_summary a, b;
	struct stats_exact e;

	(void)state;
	assert_non_null(r);
	for (size_t k = 0; k < sizeof(spreads) / sizeof(spreads[0]); k++) {
		for (size_t n = 1; n <= N; n = n * 7 + 3) {
			fill_spans(r, n, spreads[k], &x);
			sp.n = n;
			for (size_t j = 0; j < sizeof(ps) / sizeof(ps[0]); j++) {
				assert_int_equal(stats_summarize_spans(&sp, ps[j], &pct, &a), 0);
				assert_int_equal(stats_exact__init(&e), 0);
				for (size_t i = 0; i < n; i++) {
					v = r[i].t_end > r[i].t_start ? r[i].t_end - r[i].t_start
								      : 0;
					stats_exact_count(&e, v);
				}
				assert_int_equal(stats_exact_begin(&e, ps[j]), 0);
				for (size_t i = n; i-- > 0;) { /* any order */
					v = r[i].t_end > r[i].t_start ? r[i].t_end - r[i].t_start
								      : 0;
					stats_exact_select(&e, v);
				}
				assert_int_equal(stats_exact_finish(&e, &b, &pct2), 0);
				stats_exact__free(&e);
				assert_int_equal(b.binned, 0);
				assert_int_equal(pct2, pct);
				assert_same_ranks(&a, &b);
				assert_true(a.stdev == b.stdev);
			}
		}
	}
	free(r);
}

/* Nothing counted: the selection cannot begin. */
static void test_stats_exact_empty_is_einval(void **state)
{
	struct stats_exact e;

	(void)state;
	assert_int_equal(stats_exact__init(&e), 0);
	assert_int_equal(stats_exact_begin(&e, 99.0), -EINVAL);
	stats_exact__free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_acc_matches_exact),
		cmocka_unit_test(test_stats_summarize_odd_n),
		cmocka_unit_test(test_stats_summarize_even_n),
		cmocka_unit_test(test_stats_summarize_single_sample),
		cmocka_unit_test(test_stats_summarize_known_stdev),
		cmocka_unit_test(test_stats_summarize_empty_is_einval),
		cmocka_unit_test(test_stats_summarize_sorts_in_place),
		cmocka_unit_test(test_stats_summarize_large_sort_matches_qsort),
		cmocka_unit_test(test_stats_summarize_narrow_range_matches_qsort),
		cmocka_unit_test(test_stats_summarize_spans_matches_sorting),
		cmocka_unit_test(test_stats_exact_matches_spans),
		cmocka_unit_test(test_stats_exact_empty_is_einval),
		cmocka_unit_test(test_stats_summarize_large_values_no_overflow),
		cmocka_unit_test(test_stats_moments_exact_any_order_and_past_the_integers),
		cmocka_unit_test(test_stats_percentile_nearest_rank),
		cmocka_unit_test(test_stats_percentile_exact_rank_at_scale),
		cmocka_unit_test(test_stats_percentile_inexact_product_keeps_rank),
		cmocka_unit_test(test_stats_summarize_tail_percentiles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
