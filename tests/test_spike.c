// SPDX-License-Identifier: BSD-2-Clause
/* test_spike.c - the --spike rule: parsed, described, and turned into a threshold. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>

#include "analyze_fixture.h"

/* 98 samples at 1000, one at 1500, one at 3000: p50 = 1000, p99 = 1500. */
static size_t spikes_for(const char *rule, uint64_t *threshold)
{
	struct tc_trace *t = new_trace_n(100);
	struct tc_analysis_opts o = {0};
	struct tc_analysis *a;
	size_t n;

	set_rtt(t, 10, 1500);
	set_rtt(t, 20, 3000);
	assert_int_equal(spike_rule_parse(rule, &o.spike), 0);
	a = run_opts(t, &o);
	n = a->n_spikes;
	*threshold = a->threshold_ns;
	analysis__free(a);
	trace__free(t);
	return n;
}

static void test_spike_rule_threshold_for_each_rule(void **state)
{
	uint64_t thr;

	(void)state;
	assert_int_equal(spikes_for("default", &thr), 1); /* max(p99, 2 x p50) */
	assert_int_equal(thr, 2000);
	assert_int_equal(spikes_for("p98", &thr), 2);
	assert_int_equal(thr, 1000);
	assert_int_equal(spikes_for("p100", &thr), 0);
	assert_int_equal(thr, 3000);
	assert_int_equal(spikes_for("600ns", &thr), 2); /* one way: RTT above 1200 */
	assert_int_equal(thr, 1200);
	assert_int_equal(spikes_for("1us", &thr), 1);
	assert_int_equal(thr, 2000);
	assert_int_equal(spikes_for("1.4x", &thr), 2);
	assert_int_equal(thr, 1400);
	assert_int_equal(spikes_for("3x", &thr), 0); /* strictly above */
	assert_int_equal(thr, 3000);
}

static void test_spike_rule_threshold_default_takes_p99_when_higher(void **state)
{
	struct tc_trace *t = new_trace_n(100);
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, 10, 5000);
	set_rtt(t, 20, 5000);
	set_rtt(t, 30, 5000);

	a = run(t);

	assert_int_equal(a->stats.p50, 1000);
	assert_int_equal(a->threshold_ns, 5000);
	assert_int_equal(a->n_spikes, 0);
	analysis__free(a);
	trace__free(t);
}

static void test_spike_rule_parse_accepts_each_form(void **state)
{
	struct tc_spike_rule r;

	(void)state;
	assert_int_equal(spike_rule_parse("default", &r), 0);
	assert_int_equal(r.mode, TC_SPIKE_DEFAULT);
	assert_int_equal(spike_rule_parse("p99.9", &r), 0);
	assert_int_equal(r.mode, TC_SPIKE_PERCENTILE);
	assert_true(r.value == 99.9);
	assert_int_equal(spike_rule_parse("p100", &r), 0);
	assert_true(r.value == 100.0);
	assert_int_equal(spike_rule_parse("20us", &r), 0);
	assert_int_equal(r.mode, TC_SPIKE_ABSOLUTE);
	assert_true(r.value == 20000.0);
	assert_int_equal(spike_rule_parse("1.5ms", &r), 0);
	assert_true(r.value == 1500000.0);
	assert_int_equal(spike_rule_parse("800ns", &r), 0);
	assert_true(r.value == 800.0);
	assert_int_equal(spike_rule_parse("0.1us", &r), 0);
	assert_true(r.value == 100.0);
	assert_int_equal(spike_rule_parse("2s", &r), 0);
	assert_true(r.value == 2e9);
	assert_int_equal(spike_rule_parse("3x", &r), 0);
	assert_int_equal(r.mode, TC_SPIKE_MEDIAN_X);
	assert_true(r.value == 3.0);
	assert_int_equal(spike_rule_parse("2.5x", &r), 0);
	assert_true(r.value == 2.5);
}

static void test_spike_rule_parse_rejects_garbage(void **state)
{
	static const char *const bad[] = {
		"",	   "p",	    "p0",     "p-1",   "p100.1",
		"p99.",	   "p99x",  "-5us",   "0us",   "0x",
		"0.0ms",   "20",    "20 us",  " 20us", "20us ",
		"20usx",   "1e3ns", "1..5ms", ".5ms",  "abc",
		"inf",	   "nanx",  "+3x",    "20µs",  "12345678901234567ns",
		"Default",
	};
	struct tc_spike_rule r = {TC_SPIKE_MEDIAN_X, 7.0};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (spike_rule_parse(bad[i], &r) != -EINVAL)
			fail_msg("accepted \"%s\"", bad[i]);
	}
	assert_int_equal(spike_rule_parse(NULL, &r), -EINVAL);
	assert_int_equal(r.mode, TC_SPIKE_MEDIAN_X); /* untouched on failure */
	assert_true(r.value == 7.0);
}

static void test_spike_rule_describe_each_mode(void **state)
{
	struct tc_spike_rule r;
	char buf[64];

	(void)state;
	r = (struct tc_spike_rule){TC_SPIKE_DEFAULT, 0};
	spike_rule_describe(&r, buf, sizeof(buf));
	assert_string_equal(buf, "above p99 and above 2x median");
	r = (struct tc_spike_rule){TC_SPIKE_PERCENTILE, 99.9};
	spike_rule_describe(&r, buf, sizeof(buf));
	assert_string_equal(buf, "above p99.9");
	r = (struct tc_spike_rule){TC_SPIKE_ABSOLUTE, 20000};
	spike_rule_describe(&r, buf, sizeof(buf));
	assert_string_equal(buf, "one-way latency above 20 us");
	r = (struct tc_spike_rule){TC_SPIKE_ABSOLUTE, 1500000};
	spike_rule_describe(&r, buf, sizeof(buf));
	assert_string_equal(buf, "one-way latency above 1.5 ms");
	r = (struct tc_spike_rule){TC_SPIKE_ABSOLUTE, 800};
	spike_rule_describe(&r, buf, sizeof(buf));
	assert_string_equal(buf, "one-way latency above 800 ns");
	r = (struct tc_spike_rule){TC_SPIKE_MEDIAN_X, 2.5};
	spike_rule_describe(&r, buf, sizeof(buf));
	assert_string_equal(buf, "above 2.5x median");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spike_rule_threshold_for_each_rule),
		cmocka_unit_test(test_spike_rule_threshold_default_takes_p99_when_higher),
		cmocka_unit_test(test_spike_rule_parse_accepts_each_form),
		cmocka_unit_test(test_spike_rule_parse_rejects_garbage),
		cmocka_unit_test(test_spike_rule_describe_each_mode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
