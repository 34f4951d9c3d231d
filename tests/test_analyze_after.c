// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_analyze_after.c - what the analyzer credits after the sweep
 * (core/attrib/analyze_after.c): the hypervisor's steal, never more than was stolen and
 * the largest unexplained spike first; hw-noise only with complete tracing and
 * nothing lost, and on a VM only where the excess can hold one exit (cpu-variance
 * below it); and why the other spikes stay unattributed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

#include "analyze_fixture.h"
#include "core/attrib/calibrate.h"

/* TC_EV_STEAL: stolen ns somewhere in [start, start + dur) on cpu. */
static void add_steal(struct tc_trace *t, uint32_t cpu, uint64_t start, uint64_t dur,
		      uint64_t stolen)
{
	struct tc_event e = {.start_ns = start,
			     .dur_ns = dur,
			     .stolen_ns = stolen,
			     .cpu = cpu,
			     .kind = TC_EV_STEAL,
			     .arg = TC_STEAL_RQ};

	assert_int_equal(trace__add_events(t, &e, 1), 0);
}

static uint64_t steal_credit(const struct tc_analysis *a, const struct tc_spike *sp)
{
	uint64_t n = 0;

	for (size_t i = 0; i < sp->n_contrib; i++)
		if (a->causes[contrib(a, sp, i)->cause].cls == TC_CAUSE_STEAL)
			n += contrib(a, sp, i)->attributed_ns;
	return n;
}

/*
 * 10 us stolen in a 4 ms interval holding three unexplained spikes of 8, 5 and 2 us: the
 * largest takes 8, the next the 2 left, the smallest nothing; steal is never credited more
 * than was stolen.
 */
static void test_steal_largest_first_within_budget(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, 100, 3000); /* excess 2000, first in time */
	set_rtt(t, 200, 9000); /* excess 8000 */
	set_rtt(t, 300, 6000); /* excess 5000 */
	add_steal(t, PROBE_CPU, t0(t, 50), 4000000, 10000);
	trace__sort(t);
	a = run(t);
	assert_int_equal(a->n_spikes, 3);
	assert_int_equal(steal_credit(a, &a->spikes[0]), 0);
	assert_int_equal(steal_credit(a, &a->spikes[1]), 8000);
	assert_int_equal(steal_credit(a, &a->spikes[2]), 2000);
	assert_string_equal(cause_name(a, a->spikes[1].primary), "steal");
	assert_true(a->spikes[1].explained > 0.999);
	/* 2 of 5 us explained: under half, unattributed with steal the candidate; no OS event
	 * and no coverage meta (tracing not known complete): no hw-noise for the rest */
	assert_int_equal(a->spikes[2].primary, 0);
	assert_string_equal(cause_name(a, a->spikes[2].candidate), "steal");
	assert_int_equal(a->spikes[2].unexplained, TC_UNEXPLAINED_UNTRACED);
	assert_int_equal(a->causes[find_cause(a, "steal")].excess_ns, 10000);
	assert_int_equal(a->causes[find_cause(a, "steal")].spikes, 1);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/* A spike's steal is at most its overlap with the interval, and the explained part is not
 * taken twice: a preemption that covers a spike leaves nothing for steal. */
static void test_steal_only_the_unexplained_overlap(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, K, 9000);	  /* excess 8000 */
	set_rtt(t, K + 10, 9000); /* excess 8000, preempted throughout */
	add_preempt(t, t0(t, K + 10), 9000, "hog");
	/* the interval ends 3 us into the first spike, and covers the second */
	add_steal(t, PROBE_CPU, t0(t, K) - 100000, 103000, 50000);
	trace__sort(t);
	a = run(t);
	assert_int_equal(a->n_spikes, 2);
	assert_int_equal(steal_credit(a, &a->spikes[0]), 3000);
	assert_int_equal(steal_credit(a, &a->spikes[1]), 0);
	assert_string_equal(cause_name(a, a->spikes[1].primary), "preemption:hog");
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/*
 * The probe thread blocked for its answer while its CPU was idle: the blocked wait explains
 * nothing, so 7 us stolen in a 10 us reading that covers the spike are steal's, taken from
 * the wait's credit; the spike is steal's.
 */
static void test_steal_takes_a_blocked_wait(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, K, 9000); /* excess 8000 */
	add_offcpu(t, t0(t, K), 9000, 0, 0, "swapper/2");
	add_steal(t, PROBE_CPU, t0(t, K) - 500, 10000, 7000);
	a = run(t);
	assert_int_equal(a->n_spikes, 1);
	assert_int_equal(steal_credit(a, &a->spikes[0]), 7000);
	assert_string_equal(cause_name(a, a->spikes[0].primary), "steal");
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/*
 * A task preempts the probe for a whole 8 us reading in which the host stole S: nothing
 * of the guest ran for those S, the preempting task no more than the probe. S of 7 us:
 * steal's, and the spike is; S of 1 us: steal takes that 1 us, the spike stays the
 * preemption's. A reading that reaches 4 us past the preemption proves only S - 4 inside.
 */
static void test_steal_proven_inside_a_preemption(void **state)
{
	static const struct {
		uint64_t before, stolen, steal;
		const char *primary;
	} cases[] = {
		{0, 7000, 7000, "steal"},
		{0, 1000, 1000, "preemption:hog"},
		{4000, 7000, 3000, "preemption:hog"},
		{4000, 3000, 0, "preemption:hog"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tc_trace *t = new_trace();
		struct tc_analysis *a;

		set_rtt(t, K, 9000); /* excess 8000 */
		add_preempt(t, t0(t, K), 8000, "hog");
		add_steal(t, PROBE_CPU, t0(t, K) - cases[i].before, 8000 + cases[i].before,
			  cases[i].stolen);
		a = run(t);
		assert_int_equal(a->n_spikes, 1);
		assert_int_equal(steal_credit(a, &a->spikes[0]), cases[i].steal);
		assert_string_equal(cause_name(a, a->spikes[0].primary), cases[i].primary);
		assert_excess_adds_up(a);
		analysis__free(a);
		trace__free(t);
	}
}

/* A call-function IPI on cpu: sent at sent, run over [start, start + dur). */
static void add_sent_ipi(struct tc_trace *t, uint32_t cpu, uint64_t sent, uint64_t start,
			 uint64_t dur)
{
	add_irq(t, TC_EV_IPI, cpu, start, dur, TC_IPI_CALL_FUNCTION);
	t->events[t->n_events - 1].sent_ns = sent;
}

static uint64_t cause_credit(const struct tc_analysis *a, const struct tc_spike *sp,
			     const char *name)
{
	uint32_t c = find_cause(a, name);
	uint64_t n = 0;

	for (size_t i = 0; i < sp->n_contrib; i++)
		if (contrib(a, sp, i)->cause == c)
			n += contrib(a, sp, i)->attributed_ns;
	return n;
}

/* The calibration of a host where a whole IPI usually takes 1 us, nothing hidden. */
static void calibrate_ipi(struct tc_trace *t)
{
	struct tc_calibration cal = {.loop_ns = 20};

	cal.k[1] = (struct tc_calib_kind){
		.kind = TC_EV_IPI, .n = 50, .gap_ns = 1000, .traced_ns = 1000};
	assert_int_equal(calibrate_store(t, &cal), 0);
}

/*
 * An IPI whose delivery took 7 us on the probe CPU, where a whole IPI usually takes 1, while
 * 6 us were stolen there: the vCPU could not take it while descheduled, so steal takes the
 * unexplained 0.5 us and then 5.5 us of the delivery's credit past its usual 1 us, and is
 * primary. Where the steal interval ends before that, the delivery keeps its credit.
 */
static void test_steal_takes_an_ipi_delivery_it_overlaps(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	complete_coverage(t);
	calibrate_ipi(t);
	set_rtt(t, K, 9000); /* excess 8000 */
	add_sent_ipi(t, PROBE_CPU, t0(t, K) + 500, t0(t, K) + 7500, 500);
	add_steal(t, PROBE_CPU, t0(t, K) - 1000, 20000, 6000);
	set_rtt(t, K + 10, 9000);
	add_sent_ipi(t, PROBE_CPU, t0(t, K + 10) + 500, t0(t, K + 10) + 7500, 500);
	add_steal(t, PROBE_CPU, t0(t, K + 10) - 1000, 2600, 50000); /* 0.1 us past usual */
	trace__sort(t);
	a = run(t);
	assert_int_equal(a->n_spikes, 2);
	sp = &a->spikes[0];
	assert_int_equal(steal_credit(a, sp), 6000);
	assert_int_equal(cause_credit(a, sp, "ipi:call_function"), 2000);
	assert_string_equal(cause_name(a, sp->primary), "steal");
	sp = &a->spikes[1];
	/* the unexplained 0.5 us, and the 0.1 us past the usual IPI it overlaps */
	assert_int_equal(steal_credit(a, sp), 600);
	assert_int_equal(cause_credit(a, sp, "ipi:call_function"), 7400);
	assert_string_equal(cause_name(a, sp->primary), "ipi:call_function");
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/* Without a calibration a usual delivery is not known: steal takes none of it. */
static void test_steal_leaves_an_uncalibrated_delivery(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	complete_coverage(t);
	set_rtt(t, K, 9000);
	add_sent_ipi(t, PROBE_CPU, t0(t, K) + 500, t0(t, K) + 7500, 500);
	add_steal(t, PROBE_CPU, t0(t, K) - 1000, 20000, 6000);
	trace__sort(t);
	a = run(t);
	assert_int_equal(steal_credit(a, &a->spikes[0]), 500);
	assert_int_equal(cause_credit(a, &a->spikes[0], "ipi:call_function"), 7500);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/* No steal, and steal on a CPU that does not matter: nothing credited. */
static void test_zero_steal_changes_nothing(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, K, 9000);
	add_steal(t, PROBE_CPU, t0(t, K) - 1000, 20000, 0);
	add_steal(t, OTHER_CPU, t0(t, K) - 1000, 20000, 8000);
	trace__sort(t);
	a = run(t);
	assert_int_equal(steal_credit(a, &a->spikes[0]), 0);
	assert_int_equal(a->spikes[0].primary, 0);
	/* no coverage meta (an older trace): no hw-noise, and it says so */
	assert_int_equal(a->spikes[0].unexplained, TC_UNEXPLAINED_UNTRACED);
	assert_false(a->coverage_complete);
	assert_non_null(strstr(a->coverage_missing, "sched"));
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/* With every tracer attached, a spike with no OS event at all is hw-noise, whole. */
static void test_hw_noise_needs_no_event_and_complete_tracing(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	complete_coverage(t);
	set_rtt(t, K, 9000);	  /* nothing at all */
	set_rtt(t, K + 10, 9000); /* a short IRQ: an OS event, explains too little */
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K + 10) + 100, 500, 30);
	set_rtt(t, K + 20, 9000); /* steal for part, hw-noise for the rest */
	add_steal(t, PROBE_CPU, t0(t, K + 20), 9000, 3000);
	trace__sort(t);
	a = run(t);
	assert_true(a->coverage_complete);
	assert_string_equal(a->coverage_missing, "");
	assert_string_equal(cause_name(a, a->spikes[0].primary), "hw-noise");
	assert_int_equal(a->spikes[0].hw_noise_ns, 8000);
	assert_true(a->spikes[0].explained > 0.999);
	assert_int_equal(a->spikes[1].primary, 0);
	assert_int_equal(a->spikes[1].hw_noise_ns, 0);
	assert_int_equal(a->spikes[1].unexplained, TC_UNEXPLAINED_LITTLE);
	assert_string_equal(cause_name(a, a->spikes[1].candidate), "hardirq:eth0");
	assert_int_equal(steal_credit(a, &a->spikes[2]), 3000);
	assert_int_equal(a->spikes[2].hw_noise_ns, 5000);
	assert_string_equal(cause_name(a, a->spikes[2].primary), "hw-noise");
	assert_int_equal(a->causes[find_cause(a, "hw-noise")].excess_ns, 13000);
	assert_int_equal(a->causes[find_cause(a, "hw-noise")].spikes, 2);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/* A lost window over the spike, or one tracer missing: unattributed, with the reason. */
static void test_hw_noise_not_where_tracing_was_incomplete(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_event lost = {.start_ns = 0,
				.dur_ns = 2000,
				.lost = 12,
				.cpu = PEER_CPU,
				.kind = TC_EV_LOST,
				.lost_kind = TC_EV_OFFCPU};
	struct tc_analysis *a;

	(void)state;
	complete_coverage(t);
	set_rtt(t, K, 9000);
	lost.start_ns = t0(t, K) + 1000;
	assert_int_equal(trace__add_events(t, &lost, 1), 0);
	trace__sort(t);
	a = run(t);
	assert_int_equal(a->spikes[0].primary, 0);
	assert_int_equal(a->spikes[0].unexplained, TC_UNEXPLAINED_LOST);
	analysis__free(a);
	assert_int_equal(trace__set_meta(t, "tracer.signal.tc_signal_deliver", "not attached: x"),
			 0);
	a = run(t);
	assert_false(a->coverage_complete);
	assert_string_equal(a->coverage_missing, "signal");
	analysis__free(a);
	trace__free(t);
}

/* Three spikes with no OS event: 8000, 2000 and 3400 ns of excess, complete tracing. */
static struct tc_trace *eventless_spikes(const char *hypervisor, const char *floor_ns)
{
	struct tc_trace *t = new_trace();

	complete_coverage(t);
	if (hypervisor)
		assert_int_equal(trace__set_meta(t, "host.hypervisor", hypervisor), 0);
	if (floor_ns)
		assert_int_equal(trace__set_meta(t, "calib.exit_floor_ns", floor_ns), 0);
	set_rtt(t, K, BASE_RTT + 8000);
	set_rtt(t, K + 10, BASE_RTT + 2000);
	set_rtt(t, K + 20, BASE_RTT + 3400);
	trace__sort(t);
	return t;
}

/* On a VM, hw-noise only where the excess can hold the cheapest exit; less is cpu-variance. */
static void test_hw_noise_only_above_the_exit_floor(void **state)
{
	struct tc_trace *t = eventless_spikes("KVM", "3400");
	struct tc_analysis *a;
	uint32_t var;

	(void)state;
	a = run(t);
	assert_string_equal(cause_name(a, a->spikes[0].primary), "hw-noise");
	assert_int_equal(a->spikes[0].hw_noise_ns, 8000);
	assert_int_equal(a->spikes[0].variance_ns, 0);
	assert_string_equal(cause_name(a, a->spikes[1].primary), "cpu-variance");
	assert_int_equal(a->spikes[1].variance_ns, 2000);
	assert_int_equal(a->spikes[1].hw_noise_ns, 0);
	assert_int_equal(a->spikes[1].unexplained, TC_EXPLAINED);
	assert_string_equal(cause_name(a, a->spikes[2].primary), "hw-noise"); /* one exit */
	var = find_cause(a, "cpu-variance");
	assert_int_equal(a->causes[var].cls, TC_CAUSE_CPU_VARIANCE);
	assert_int_equal(a->causes[var].spikes, 1);
	assert_int_equal(a->causes[var].excess_ns, 2000);
	assert_int_equal(a->causes[find_cause(a, "hw-noise")].spikes, 2);
	assert_int_equal(a->causes[find_cause(a, "hw-noise")].excess_ns, 11400);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/* Bare metal (cpuid does not exit), or a trace without the floor: hw-noise as before. */
static void test_hw_noise_whole_without_an_exit_floor(void **state)
{
	const char *hosts[][2] = {{"none", "3400"}, {"KVM", NULL}, {NULL, "3400"}};

	(void)state;
	for (size_t h = 0; h < sizeof(hosts) / sizeof(hosts[0]); h++) {
		struct tc_trace *t = eventless_spikes(hosts[h][0], hosts[h][1]);
		struct tc_analysis *a = run(t);

		for (size_t i = 0; i < 3; i++) {
			assert_string_equal(cause_name(a, a->spikes[i].primary), "hw-noise");
			assert_int_equal(a->spikes[i].variance_ns, 0);
		}
		assert_int_equal(a->causes[find_cause(a, "hw-noise")].excess_ns, 13400);
		analysis__free(a);
		trace__free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steal_largest_first_within_budget),
		cmocka_unit_test(test_steal_only_the_unexplained_overlap),
		cmocka_unit_test(test_steal_takes_a_blocked_wait),
		cmocka_unit_test(test_steal_proven_inside_a_preemption),
		cmocka_unit_test(test_steal_takes_an_ipi_delivery_it_overlaps),
		cmocka_unit_test(test_steal_leaves_an_uncalibrated_delivery),
		cmocka_unit_test(test_zero_steal_changes_nothing),
		cmocka_unit_test(test_hw_noise_needs_no_event_and_complete_tracing),
		cmocka_unit_test(test_hw_noise_not_where_tracing_was_incomplete),
		cmocka_unit_test(test_hw_noise_only_above_the_exit_floor),
		cmocka_unit_test(test_hw_noise_whole_without_an_exit_floor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
