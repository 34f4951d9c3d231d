// SPDX-License-Identifier: BSD-2-Clause
/* test_iter_log.c - perftest's -U list, parsed and placed on the trace's clock by its marked first
 * iterations. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/iter/iter_log.h"

static const char *const perftest_out =
	"---------------------------------------------------------------------------------------\n"
	" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec] ...\n"
	"#, usec\n"
	"1, 5.0000\n"
	"2, 6.5\r\n"
	"3, 5.25\n"
	"---------------------------------------------------------------------------------------\n"
	" 2       4          5.00 ...\n";

static void test_parse_perftest_list(void **state)
{
	struct samples_csv_error e;
	double *us;
	size_t n;

	(void)state;
	assert_int_equal(iter_log_parse_perftest(perftest_out, strlen(perftest_out), &us, &n, &e),
			 0);
	assert_int_equal(n, 3);
	assert_true(us[0] == 5.0 && us[1] == 6.5 && us[2] == 5.25);
	free(us);
}

static void test_parse_errors(void **state)
{
	const char *gap = "#, usec\n1, 5\n3, 5\n", *none = "no list here\n";
	struct samples_csv_error e;
	double *us;
	size_t n;

	(void)state;
	assert_int_equal(iter_log_parse_perftest(gap, strlen(gap), &us, &n, &e), -EINVAL);
	assert_int_equal(e.line, 3);
	assert_non_null(strstr(e.msg, "expected row 2"));
	assert_int_equal(iter_log_parse_perftest(none, strlen(none), &us, &n, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "run perftest with -U"));
}

/*
 * A run of 1000 iterations whose log clock runs 1.0002 times slower than the trace's:
 * placed by its first 100 marked ones, the starts land on the true ones far past the
 * anchors, and the fit says the rate.
 */
static void test_place_corrects_the_rate(void **state)
{
	enum { N = 1000, K = 100 };
	double *us = malloc(N * sizeof(*us));
	struct tc_sample marked[K], *s;
	uint64_t truth[N + 1], t = 5000000000ull;
	struct samples_csv_error e;
	struct iter_log_fit fit;
	const double rate = 1.0002;

	(void)state;
	for (size_t i = 0; i < N; i++) {
		uint64_t rtt = 10000 + (i % 7) * 300 + (i == 500 ? 250000 : 0); /* one spike */

		truth[i] = t;
		t += rtt;
		us[i] = (double)rtt / rate / 2.0 / 1000.0; /* one way, usec, on its own clock */
	}
	truth[N] = t;
	for (size_t i = 0; i < K; i++)
		marked[i] = (struct tc_sample){truth[i], truth[i + 1], 3, 77};
	assert_int_equal(iter_log_place(marked, K, us, N, 2, &s, &fit, &e), 0);
	assert_true(fabs(fit.rate - rate) < 1e-9);
	assert_int_equal(fit.anchors, K);
	assert_true(fit.resid_ns <= 1.0);
	assert_true(fit.drift_ns <= 1.0);
	for (size_t i = 0; i < N; i++) {
		assert_true(llabs((long long)s[i].t_start - (long long)truth[i]) <= 2);
		assert_int_equal(s[i].tid, 77);
	}
	assert_true(s[500].t_end - s[500].t_start > 250000);
	free(s);
	free(us);
}

/*
 * The first mark 40 us late (a process's first uprobe hit is slow; the first iteration,
 * as first ones are, long): left out of the line.
 */
static void test_place_leaves_a_displaced_mark_out(void **state)
{
	enum { N = 400, K = 50 };
	double us[N];
	struct tc_sample marked[K], *s;
	uint64_t truth[N + 1], t = 1000000ull;
	struct samples_csv_error e;
	struct iter_log_fit fit;

	(void)state;
	for (size_t i = 0; i < N; i++) {
		uint64_t rtt = i ? 20000 + (i * 37) % 900 : 900000;

		truth[i] = t;
		t += rtt;
		us[i] = (double)rtt / 2.0 / 1000.0;
	}
	truth[N] = t;
	for (size_t i = 0; i < K; i++)
		marked[i] = (struct tc_sample){truth[i] + (i == 0 ? 40000 : (i % 3) * 20),
					       truth[i + 1], 1, 9};
	assert_int_equal(iter_log_place(marked, K, us, N, 2, &s, &fit, &e), 0);
	assert_int_equal(fit.anchors, K - 1);
	assert_true(fabs(fit.rate - 1.0) < 1e-4);
	assert_true(fit.resid_ns < 30.0);
	/* the error it states holds: the marks' scatter, plus the rate's by the end */
	for (size_t i = 0; i < N; i++)
		assert_true((double)llabs((long long)s[i].t_start - (long long)truth[i]) <=
			    fit.drift_ns + 3.0 * fit.resid_ns + 40.0);
	free(s);
}

static void test_place_refuses_another_runs_log(void **state)
{
	double us[4] = {5.0, 5.0, 5.0, 5.0};
	struct tc_sample marked[2] = {{1000, 21000, 0, 1}, {21000, 41000, 0, 1}}, *s;
	struct samples_csv_error e;
	struct iter_log_fit fit;

	(void)state;
	/* marked 20 us round trips, the log says 10 us: not this run */
	assert_int_equal(iter_log_place(marked, 2, us, 4, 2, &s, &fit, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "not this run's log"));
	assert_int_equal(iter_log_place(marked, 1, us, 4, 2, &s, &fit, &e), -EINVAL);
	assert_int_equal(iter_log_place(marked, 2, us, 1, 2, &s, &fit, &e), -EINVAL);
}

/*
 * Another run of the same benchmark: the same pace on the whole, but its iterations
 * vary otherwise, so the marks drift from its list by many iterations: refused. The
 * same run with its clock 10.3 % off (perftest's own MHz estimate, seen under TCG): placed.
 */
static void test_place_refuses_a_same_paced_wrong_log(void **state)
{
	enum { N = 400 };
	struct tc_sample marked[N], *s;
	double ours[N], theirs[N];
	struct samples_csv_error e;
	struct iter_log_fit fit;
	uint64_t t = 1000000;

	(void)state;
	for (size_t i = 0; i < N; i++) {
		/* 10 us one way, with long and short stretches in this run, not in the other */
		uint64_t rtt = 20000 + (((i / 50) % 2) ? 8000 : 0);

		marked[i] = (struct tc_sample){t, t + rtt, 0, 1};
		ours[i] = (double)rtt / 1.103 / 2.0 / 1000.0;
		theirs[i] = 12.0;
		t += rtt;
	}
	assert_int_equal(iter_log_place(marked, N, theirs, N, 2, &s, &fit, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "more than one iteration: not this run's log"));
	assert_int_equal(iter_log_place(marked, N, ours, N, 2, &s, &fit, &e), 0);
	assert_true(fabs(fit.rate - 1.103) < 1e-6);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_perftest_list),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_place_corrects_the_rate),
		cmocka_unit_test(test_place_refuses_a_same_paced_wrong_log),
		cmocka_unit_test(test_place_leaves_a_displaced_mark_out),
		cmocka_unit_test(test_place_refuses_another_runs_log),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
