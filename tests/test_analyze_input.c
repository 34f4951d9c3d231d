// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_analyze_input.c - analysis__run refuses what it cannot analyze: no
 * samples, an invalid spike rule, events not sorted by start.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>

#include "analyze_fixture.h"

static void test_analyze_no_samples_is_einval(void **state)
{
	struct tc_trace *t = trace__new();
	struct tc_analysis *a = NULL;

	(void)state;
	assert_non_null(t);
	assert_int_equal(analysis__run(t, NULL, &a), -EINVAL);
	assert_null(a);
	assert_int_equal(analysis__run(NULL, NULL, &a), -EINVAL);
	trace__free(t);
}

static void test_analyze_invalid_rule_is_einval(void **state)
{
	struct tc_trace *t = new_trace_n(10);
	struct tc_analysis_opts o = {.spike = {TC_SPIKE_PERCENTILE, 150.0}};
	struct tc_analysis *a = NULL;

	(void)state;
	assert_int_equal(analysis__run(t, &o, &a), -EINVAL);
	o.spike = (struct tc_spike_rule){TC_SPIKE_ABSOLUTE, -1.0};
	assert_int_equal(analysis__run(t, &o, &a), -EINVAL);
	assert_null(a);
	trace__free(t);
}

static void test_analyze_unsorted_events_is_einval(void **state)
{
	struct tc_trace *t = new_trace_n(10);
	struct tc_analysis *a = NULL;

	(void)state;
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, 5000, 10, 30);
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, 1000, 10, 30); /* no trace__sort() */

	assert_int_equal(analysis__run(t, NULL, &a), -EINVAL);
	assert_null(a);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_analyze_no_samples_is_einval),
		cmocka_unit_test(test_analyze_invalid_rule_is_einval),
		cmocka_unit_test(test_analyze_unsorted_events_is_einval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
