// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_analyze_input.c - analysis__run refuses what it cannot analyze: no
 * samples, an invalid spike rule, events not sorted by start; and weighs what no
 * recorder writes without overrunning (the sanitizer build checks it).
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

/*
 * A thread's signal handlers overlap one another (no kernel runs them so; a damaged or
 * made-up file can say it), and preemptions of that thread overlap them all: each pair
 * would make a pause, more than the window holds points for. The analysis weighs the
 * spike with the pauses that fit, without writing past them (ASan: tests under make
 * test's sanitizer build).
 */
static void test_analyze_overlapping_handlers(void **state)
{
	struct tc_trace *t = new_trace();
	uint64_t k = t0(t, K);
	struct tc_analysis *a = NULL;

	(void)state;
	set_rtt(t, K, 5000);
	for (int i = 0; i < 12; i++) {
		struct tc_event sig = {.start_ns = k + 100 + (uint64_t)i * 10,
				       .dur_ns = 4000,
				       .cpu = PROBE_CPU,
				       .tid = PROBE_TID,
				       .arg = 10,
				       .kind = TC_EV_SIGNAL};

		assert_int_equal(trace__add_events(t, &sig, 1), 0);
	}
	add_preempt(t, k + 500, 1000, "hog");
	add_preempt(t, k + 2000, 1000, "hog");
	trace__sort(t);
	assert_int_equal(analysis__run(t, NULL, &a), 0);
	assert_int_equal(a->n_spikes, 1);
	assert_true(a->spikes[0].explained > 0.5);
	analysis__free(a);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_analyze_no_samples_is_einval),
		cmocka_unit_test(test_analyze_invalid_rule_is_einval),
		cmocka_unit_test(test_analyze_unsorted_events_is_einval),
		cmocka_unit_test(test_analyze_overlapping_handlers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
