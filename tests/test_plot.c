// SPDX-License-Identifier: BSD-2-Clause
/* test_plot.c - columns of a latency series, log bins, the IRQ matrix, nesting-safe lanes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>

#include "core/model/plot.h"

/* 1000 samples 1 us apart, RTT 100 ns except every 100th of 100 + i ns. */
static void test_plot_columns_min_p50_p99_max(void **state)
{
	struct tc_sample s[1000];
	struct plot_series ps;
	struct plot_column *c;

	(void)state;
	for (size_t i = 0; i < 1000; i++) {
		s[i].t_start = 5000 + i * 1000;
		s[i].t_end = s[i].t_start + (i % 100 == 99 ? 100 + i : 100);
	}
	assert_int_equal(plot_series_of(s, 1000, 10, &ps), 0);
	c = ps.c;
	assert_int_equal(ps.n, 1000);
	assert_int_equal(ps.binned, 0);
	for (size_t k = 0; k < 10; k++) {
		assert_int_equal(c[k].n, 100);
		assert_true(c[k].t_start <= s[k * 100].t_start);
		assert_true(k == 0 || c[k].t_start > s[k * 100 - 1].t_start);
		assert_int_equal(c[k].min, 100);
		assert_int_equal(c[k].p50, 100);
		assert_int_equal(c[k].p99, 100); /* rank 99 of 100: the one outlier is the 100th */
		assert_int_equal(c[k].max, 100 + k * 100 + 99);
	}
	plot_series__free(&ps);
	assert_int_equal(plot_series_of(s, 0, 10, &ps), -EINVAL);
}

static void test_plot_columns_gaps_and_one_sample(void **state)
{
	struct tc_sample s[3] = {{0, 10, 0, 0}, {1, 30, 0, 0}, {1000, 1005, 0, 0}};
	struct plot_series ps;
	struct plot_column *c;

	(void)state;
	assert_int_equal(plot_series_of(s, 3, 4, &ps), 0);
	c = ps.c;
	assert_int_equal(c[0].n, 2);
	assert_int_equal(c[0].min, 10);
	assert_int_equal(c[0].max, 29);
	assert_int_equal(c[0].p99, 29);
	assert_int_equal(c[1].n, 0); /* a gap */
	assert_int_equal(c[2].n, 0);
	assert_int_equal(c[3].n, 1); /* the last sample lands in the last column */
	assert_int_equal(c[3].p50, 5);
	plot_series__free(&ps);
	assert_int_equal(plot_series_of(s + 2, 1, 3, &ps), 0);
	assert_int_equal(ps.c[0].n + ps.c[1].n + ps.c[2].n, 1);
	plot_series__free(&ps);
}

/* 100 000 samples of a varied latency, 1 us apart. */
static struct tc_sample *varied(size_t n)
{
	struct tc_sample *s = calloc(n, sizeof(*s));
	uint64_t x = 88172645463325252ull;

	for (size_t i = 0; s && i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
		s[i].t_start = 1000000 + i * 1000;
		s[i].t_end = s[i].t_start + 2000 + x % 50000;
	}
	return s;
}

/* Filled a segment at a time, as a streamed report does: the whole read's columns. */
static void test_plot_series_in_pieces_is_the_whole(void **state)
{
	const size_t n = 100000, cols = 37;
	struct tc_sample *s = varied(n);
	struct plot_series whole, parts;

	(void)state;
	assert_non_null(s);
	assert_int_equal(plot_series_of(s, n, cols, &whole), 0);
	assert_int_equal(plot_series_init(&parts, s[0].t_start, s[n - 1].t_start, cols, 1 << 20),
			 0);
	for (size_t i = 0; i < n; i += 4999)
		assert_int_equal(plot_series_add(&parts, s + i, i + 4999 < n ? 4999 : n - i), 0);
	plot_series_finish(&parts);
	assert_int_equal(parts.n, n);
	assert_int_equal(parts.binned, 0);
	assert_memory_equal(parts.c, whole.c, cols * sizeof(*whole.c));
	plot_series__free(&whole);
	plot_series__free(&parts);
	free(s);
}

/* Past exact_max a column's p50 and p99 come from a histogram: within its resolution;
 * its count, min and max stay exact. */
static void test_plot_series_binned_within_the_histogram(void **state)
{
	const size_t n = 100000, cols = 10;
	struct tc_sample *s = varied(n);
	struct plot_series whole, binned;

	(void)state;
	assert_non_null(s);
	assert_int_equal(plot_series_of(s, n, cols, &whole), 0);
	assert_int_equal(plot_series_init(&binned, s[0].t_start, s[n - 1].t_start, cols, 1000), 0);
	assert_int_equal(plot_series_add(&binned, s, n), 0);
	plot_series_finish(&binned);
	assert_int_equal(binned.binned, cols); /* 10 000 a column, over 1000 */
	for (size_t k = 0; k < cols; k++) {
		const struct plot_column *w = &whole.c[k], *b = &binned.c[k];

		assert_int_equal(b->n, w->n);
		assert_int_equal(b->min, w->min);
		assert_int_equal(b->max, w->max);
		assert_true(b->p50 >= w->p50 && b->p50 - w->p50 <= w->p50 / 128 + 1);
		assert_true(b->p99 >= w->p99 && b->p99 - w->p99 <= w->p99 / 128 + 1);
	}
	plot_series__free(&whole);
	plot_series__free(&binned);
	free(s);
}

static void test_plot_hist_bins_keep_every_count(void **state)
{
	struct hist *h = hist__new();
	struct plot_bin bins[20];
	uint64_t sum = 0;
	size_t n;

	(void)state;
	for (uint64_t v = 1000; v < 1000000; v += 997)
		hist__add(h, v, 1);
	n = plot_hist_bins(h, bins, 20);
	assert_true(n > 10 && n <= 20);
	for (size_t i = 0; i < n; i++) {
		sum += bins[i].count;
		assert_true(bins[i].lo <= bins[i].hi);
		if (i)
			assert_true(bins[i].lo > bins[i - 1].hi);
	}
	assert_int_equal(sum, h->total);
	assert_int_equal(bins[0].lo, h->min);
	assert_int_equal(bins[n - 1].hi, h->max);
	hist__free(h);
}

static void test_plot_irq_matrix_rows_by_total(void **state)
{
	struct tc_trace *t = trace__new();
	struct plot_irq_matrix m;

	(void)state;
	trace__add_counter(t, TC_COUNTER_IRQ, 30, 0, 5);
	trace__add_counter(t, TC_COUNTER_IRQ, 30, 3, 5);
	trace__add_counter(t, TC_COUNTER_IRQ, 12, 1, 100);
	trace__add_counter(t, TC_COUNTER_IRQ, 99, 1, 1);
	trace__add_counter(t, TC_COUNTER_SOFTIRQ, 3, 7, 1000); /* not IRQ placement */
	assert_int_equal(plot_irq_matrix(t, 2, &m), 0);
	assert_int_equal(m.n_irqs_all, 3);
	assert_int_equal(m.n_irqs, 2);
	assert_int_equal(m.n_cpus, 4);
	assert_int_equal(m.irqs[0], 12);
	assert_int_equal(m.irqs[1], 30);
	assert_int_equal(m.totals[1], 10);
	assert_int_equal(m.counts[1 * 4 + 3], 5);
	assert_int_equal(m.counts[0 * 4 + 1], 100);
	assert_int_equal(m.max, 100);
	plot_irq_matrix__free(&m);
	trace__free(t);
}

static void test_plot_lanes_nest_or_move_aside(void **state)
{
	/* sorted by start, longer first on ties */
	uint64_t s[] = {0, 0, 10, 15, 50, 100, 130};
	uint64_t e[] = {100, 40, 20, 60, 80, 200, 150};
	uint32_t lane[7];

	(void)state;
	assert_int_equal(plot_lanes(s, e, 7, 0, lane), 2);
	assert_int_equal(lane[0], 0); /* [0, 100) */
	assert_int_equal(lane[1], 0); /* [0, 40) nested */
	assert_int_equal(lane[2], 0); /* [10, 20) nested in [0, 40) */
	assert_int_equal(lane[3], 1); /* [15, 60) overlaps [0, 40) without nesting */
	assert_int_equal(lane[4], 0); /* [50, 80) nested in [0, 100) once [0, 40) closed */
	assert_int_equal(lane[5], 0); /* [100, 200) starts where [0, 100) ends */
	assert_int_equal(lane[6], 0);
	/* with a 2 ns margin, touching is not disjoint... */
	assert_int_equal(plot_lanes(s, e, 7, 2, lane), 2);
	assert_int_equal(lane[5], 1);
	assert_int_equal(lane[6], 0);
}

static void test_plot_lanes_margin_for_equal_ends(void **state)
{
	uint64_t s[] = {0, 5, 5};
	uint64_t e[] = {10, 10, 8};
	uint32_t lane[3];

	(void)state;
	assert_int_equal(plot_lanes(s, e, 3, 0, lane), 1);
	/* ...and an equal end is not nested unless the start is equal too */
	assert_int_equal(plot_lanes(s, e, 3, 2, lane), 2);
	assert_int_equal(lane[1], 1);
	assert_int_equal(lane[2], 0); /* 8 + 2 <= 10 */
	assert_int_equal(plot_lanes(s, e, 0, 2, lane), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plot_columns_min_p50_p99_max),
		cmocka_unit_test(test_plot_columns_gaps_and_one_sample),
		cmocka_unit_test(test_plot_series_in_pieces_is_the_whole),
		cmocka_unit_test(test_plot_series_binned_within_the_histogram),
		cmocka_unit_test(test_plot_hist_bins_keep_every_count),
		cmocka_unit_test(test_plot_irq_matrix_rows_by_total),
		cmocka_unit_test(test_plot_lanes_nest_or_move_aside),
		cmocka_unit_test(test_plot_lanes_margin_for_equal_ends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
