// SPDX-License-Identifier: BSD-2-Clause
/* test_histogram.c - bucket layout, precision, percentiles and merging of the HDR histogram. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "core/stats/histogram.h"

static void test_hist_bucket_exact_below_256(void **state)
{
	(void)state;
	for (uint64_t v = 0; v < 256; v++) {
		assert_int_equal(hist_bucket(v), v);
		assert_int_equal(hist_bucket_low(v), v);
		assert_int_equal(hist_bucket_high(v), v);
	}
}

static void test_hist_bucket_bounds_contain_value(void **state)
{
	static const uint64_t vals[] = {256,
					257,
					511,
					512,
					1000,
					12345,
					999999,
					1ull << 40,
					(1ull << 40) + 12345678,
					UINT64_MAX - 1,
					UINT64_MAX};

	(void)state;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		size_t b = hist_bucket(vals[i]);

		assert_true(b < HIST_BUCKETS);
		assert_true(hist_bucket_low(b) <= vals[i]);
		assert_true(hist_bucket_high(b) >= vals[i]);
	}
	assert_int_equal(hist_bucket(UINT64_MAX), HIST_BUCKETS - 1);
}

/* Two significant digits: a bucket is never wider than 1/128 of its low bound. */
static void test_hist_bucket_precision_two_digits(void **state)
{
	(void)state;
	for (size_t b = 256; b + 1 < HIST_BUCKETS; b++) {
		uint64_t lo = hist_bucket_low(b), hi = hist_bucket_high(b);

		assert_true(hi >= lo);
		assert_true((hi - lo + 1) * 128 <= lo);
		assert_int_equal(hist_bucket_low(b + 1), hi + 1); /* contiguous */
	}
}

static void test_hist_percentile_exact_small_values(void **state)
{
	struct hist *h = hist__new();

	(void)state;
	assert_non_null(h);
	for (uint64_t v = 1; v <= 100; v++)
		hist__add(h, v, 1);
	assert_int_equal(h->total, 100);
	assert_int_equal(hist_percentile(h, 50), 50);
	assert_int_equal(hist_percentile(h, 99), 99);
	assert_int_equal(hist_percentile(h, 100), 100);
	assert_int_equal(hist_percentile(h, 0.001), 1);
	hist__free(h);
}

static void test_hist_percentile_within_one_percent(void **state)
{
	struct hist *h = hist__new();
	uint64_t p99;

	(void)state;
	hist__add(h, 1000000, 990); /* 1 ms */
	hist__add(h, 40000000, 10); /* 40 ms tail */
	p99 = hist_percentile(h, 99);
	assert_true(p99 >= 1000000 && p99 <= 1010000);
	assert_int_equal(hist_percentile(h, 99.9), 40000000); /* clamped to max */
	assert_int_equal(h->min, 1000000);
	assert_int_equal(h->max, 40000000);
	hist__free(h);
}

static void test_hist_empty_is_zero(void **state)
{
	struct hist *h = hist__new();

	(void)state;
	assert_int_equal(hist_percentile(h, 99), 0);
	assert_int_equal(hist_next(h, 0), HIST_BUCKETS);
	assert_int_equal(hist_count_below(h, 1000), 0);
	hist__add(h, 5, 0); /* adding nothing changes nothing */
	assert_int_equal(h->total, 0);
	hist__free(h);
}

static void test_hist_merge_adds_counts(void **state)
{
	struct hist *a = hist__new(), *b = hist__new();

	(void)state;
	hist__add(a, 10, 3);
	hist__add(b, 10, 2);
	hist__add(b, 100000, 1);
	hist__merge(a, b);
	assert_int_equal(a->total, 6);
	assert_int_equal(a->counts[10], 5);
	assert_int_equal(a->counts[hist_bucket(100000)], 1);
	assert_int_equal(a->min, 10);
	assert_int_equal(a->max, 100000);
	assert_int_equal(hist_next(a, 0), 10);
	assert_int_equal(hist_next(a, 11), hist_bucket(100000));
	assert_int_equal(hist_count_below(a, 100000), 5);
	hist__free(a);
	hist__free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_bucket_exact_below_256),
		cmocka_unit_test(test_hist_bucket_bounds_contain_value),
		cmocka_unit_test(test_hist_bucket_precision_two_digits),
		cmocka_unit_test(test_hist_percentile_exact_small_values),
		cmocka_unit_test(test_hist_percentile_within_one_percent),
		cmocka_unit_test(test_hist_empty_is_zero),
		cmocka_unit_test(test_hist_merge_adds_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
