// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_analyze_halted.c - an IPI sent to a CPU while it idled, which ran later than a whole
 * IPI costs a running CPU by the calibration, is the host not running the halted vCPU
 * (vcpu-halt) on a VM and the C-state exit (idle-exit) on bare metal; sent to a busy CPU,
 * or in time, or without a calibration, it stays an IPI.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyze_fixture.h"

/* The calibration: a whole IPI costs a running CPU 15 us here. */
static void calibrate_ipi(struct tc_trace *t)
{
	assert_int_equal(trace__set_meta(t, "calib.loop_ns", "40"), 0);
	assert_int_equal(trace__set_meta(t, "calib.ipi.n", "50"), 0);
	assert_int_equal(trace__set_meta(t, "calib.ipi.gap_ns", "15000"), 0);
	assert_int_equal(trace__set_meta(t, "calib.ipi.traced_ns", "1000"), 0);
	assert_int_equal(trace__set_meta(t, "calib.ipi.pre_ns", "0"), 0);
	assert_int_equal(trace__set_meta(t, "calib.ipi.post_ns", "0"), 0);
}

/*
 * Spike K lasts 60 us; a call-function IPI is sent to the probe CPU at +1 us and runs at
 * +1 + delivery for 1 us; with idle, the CPU idles in C1 from before the send until the IPI.
 */
static struct tc_trace *late_ipi(const char *hypervisor, int calibrated, int idle,
				 uint64_t delivery)
{
	struct tc_trace *t = new_trace();
	uint64_t s = t0(t, K);

	if (hypervisor)
		assert_int_equal(trace__set_meta(t, "host.hypervisor", hypervisor), 0);
	if (calibrated)
		calibrate_ipi(t);
	set_rtt(t, K, 60000);
	if (idle)
		add_irq(t, TC_EV_IDLE, PROBE_CPU, s, 1000 + delivery, 1);
	add_irq(t, TC_EV_IPI, PROBE_CPU, s + 1000 + delivery, 1000, TC_IPI_CALL_FUNCTION_SINGLE);
	t->events[t->n_events - 1].sent_ns = s + 1000;
	return t;
}

static const char *primary_of(struct tc_trace *t)
{
	static char name[TC_CAUSE_NAME_LEN];
	struct tc_analysis *a = run(t);

	assert_int_equal(a->n_spikes, 1);
	snprintf(name, sizeof(name), "%s", cause_name(a, a->spikes[0].primary));
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
	return name;
}

static void test_halted_vcpu_on_a_vm(void **state)
{
	(void)state;
	assert_string_equal(primary_of(late_ipi("kvm", 1, 1, 50000)), "vcpu-halt");
}

static void test_halted_cpu_on_bare_metal_is_the_c_state_exit(void **state)
{
	(void)state;
	assert_string_equal(primary_of(late_ipi("none", 1, 1, 50000)), "idle-exit");
}

static void test_halted_but_in_time_or_busy_or_uncalibrated_stays_an_ipi(void **state)
{
	(void)state;
	/* delivered within what a whole IPI costs a running CPU */
	assert_string_equal(primary_of(late_ipi("kvm", 1, 1, 14000)), "unattributed");
	/* late, but the CPU did not idle: not the halt */
	assert_string_equal(primary_of(late_ipi("kvm", 1, 0, 50000)), "ipi:call_function_single");
	/* no calibration to say what late is */
	assert_string_equal(primary_of(late_ipi("kvm", 0, 1, 50000)), "ipi:call_function_single");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_halted_vcpu_on_a_vm),
		cmocka_unit_test(test_halted_cpu_on_bare_metal_is_the_c_state_exit),
		cmocka_unit_test(test_halted_but_in_time_or_busy_or_uncalibrated_stays_an_ipi),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
