// SPDX-License-Identifier: BSD-2-Clause
/* test_analyze_rank.c - orderings of an analysis: top spikes, causes by excess. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyze_fixture.h"

static void test_analyze_top_spikes_largest_first(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	size_t idx[10];

	(void)state;
	set_rtt(t, 100, 3000);
	set_rtt(t, 200, 5000);
	set_rtt(t, 300, 4000);
	set_rtt(t, 400, 5000);
	a = run(t);
	assert_int_equal(a->n_spikes, 4);

	assert_int_equal(analysis_top_spikes(a, idx, 3), 3);
	assert_int_equal(idx[0], 1); /* 5000, the earlier one first */
	assert_int_equal(idx[1], 3);
	assert_int_equal(idx[2], 2);
	assert_int_equal(analysis_top_spikes(a, idx, 10), 4);
	assert_int_equal(idx[0], 1);
	assert_int_equal(idx[1], 3);
	assert_int_equal(idx[2], 2);
	assert_int_equal(idx[3], 0);
	assert_int_equal(analysis_top_spikes(a, idx, 0), 0);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_causes_by_excess_largest_first(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	size_t idx[8];

	(void)state;
	set_rtt(t, K, 5000);
	add_preempt(t, t0(t, K), 3000, "stress");
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) + 2000, 2000, 30);
	set_rtt(t, K + 50, 5000);
	add_irq(t, TC_EV_SOFTIRQ, PROBE_CPU, t0(t, K + 50), 100, 1);
	a = run(t);
	assert_int_equal(a->n_causes, 4);

	/* unattributed 3900, preemption 2500, hardirq 1500, softirq:timer 100 */
	assert_int_equal(analysis_causes_by_excess(a, idx), 4);
	assert_int_equal(idx[0], 0);
	assert_string_equal(cause_name(a, idx[1]), "preemption:stress");
	assert_string_equal(cause_name(a, idx[2]), "hardirq:eth0");
	assert_string_equal(cause_name(a, idx[3]), "softirq:timer");
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_analyze_top_spikes_largest_first),
		cmocka_unit_test(test_analyze_causes_by_excess_largest_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
