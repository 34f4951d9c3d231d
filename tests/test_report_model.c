// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_report_model.c - the report model (core/model/report_model.c): the facts every
 * renderer formats, derived once from the trace and its analysis.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyze_fixture.h"
#include "core/model/report_model.h"

static const struct report_model_opts opts = {.path = "t.tct", .top = 3, .div = 2};

static void set_meta(struct tc_trace *t, const char *k, const char *v)
{
	assert_int_equal(trace__set_meta(t, k, v), 0);
}

/* Header facts from the meta keys; NULL where the trace does not say. */
static void test_report_model_header_from_meta(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	struct report_model m;

	(void)state;
	set_meta(t, "host.name", "node7");
	set_meta(t, "run.probe", "verbs");
	set_meta(t, "run.interrupted", "yes");
	set_meta(t, "run.bad_records", "12");
	assert_int_equal(trace__set_drops(t, 3, 40), 0);
	a = run(t);
	assert_int_equal(report_model__build(&m, t, a, NULL, NULL, &opts), 0);
	assert_string_equal(m.h.path, "t.tct");
	assert_string_equal(m.h.host_name, "node7");
	assert_null(m.h.kernel);
	assert_true(m.h.nic_probe);
	assert_false(m.h.command);
	assert_true(m.h.interrupted);
	assert_true(m.h.has_bad_records);
	assert_int_equal(m.h.bad_records, 12);
	assert_false(m.h.has_samples_rows);
	assert_int_equal(m.h.lost, 40);
	assert_int_equal(m.h.round_trips, N_SAMPLES);
	assert_int_equal(m.h.first_sample_ns, SLOT);
	assert_true(m.probe_cpu[PROBE_CPU] && m.probe_cpu[PEER_CPU] && !m.probe_cpu[OTHER_CPU]);
	assert_non_null(m.verdict);
	report_model__free(&m);
	analysis__free(a);
	trace__free(t);
}

/* Tracer status parsed once: runs of attached programs per concern, and the missing ones. */
static void test_report_model_tracers(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	struct report_model m;

	(void)state;
	set_meta(t, "tracer.sched.tc_switch", "attached tp_btf/sched_switch");
	set_meta(t, "tracer.sched.tc_wakeup", "attached tp_btf/sched_wakeup");
	set_meta(t, "tracer.nic.tc_devlink", "not attached: tracepoint missing");
	set_meta(t, "tracer.irq.tc_irq", "attached tp_btf/irq_handler_entry");
	a = run(t);
	assert_int_equal(report_model__build(&m, t, a, NULL, NULL, &opts), 0);
	assert_int_equal(m.n_tracers, 4);
	assert_int_equal(m.n_missing, 1);
	assert_string_equal(m.tracers[2].concern, "nic");
	assert_string_equal(m.tracers[2].program, "tc_devlink");
	assert_false(m.tracers[2].attached);
	assert_string_equal(m.tracers[2].detail, "tracepoint missing");
	assert_string_equal(m.tracers[0].detail, "tp_btf/sched_switch");
	assert_int_equal(m.n_concerns, 2);
	assert_string_equal(m.concerns[0].name, "sched");
	assert_int_equal(m.concerns[0].attached, 2);
	assert_string_equal(m.concerns[1].name, "irq");
	report_model__free(&m);
	analysis__free(a);
	trace__free(t);
}

/*
 * Causes most excess first, the shown ones a prefix; spikes largest first;
 * recommendations by class, with the spikes of each.
 */
static void test_report_model_orders(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_event lost = {.dur_ns = 50,
				.aux = 7,
				.cpu = PROBE_CPU,
				.kind = TC_EV_LOST,
				.flags = TC_EV_OFFCPU};
	struct tc_analysis *a;
	struct report_model m;
	uint32_t hog;

	(void)state;
	set_rtt(t, 100, 9000);
	add_preempt(t, t0(t, 100) + 100, 8000, "hog");
	set_rtt(t, 200, 5000);
	add_preempt(t, t0(t, 200) + 100, 4000, "hog");
	set_rtt(t, 300, 3000);
	add_irq(t, TC_EV_TIMER, PROBE_CPU, t0(t, 300) + 100, 2000, 0);
	set_rtt(t, 400, 4000);
	lost.start_ns = t0(t, 400);
	assert_int_equal(trace__add_events(t, &lost, 1), 0);
	a = run(t);
	hog = find_cause(a, "preemption:hog");
	assert_int_equal(report_model__build(&m, t, a, NULL, NULL, &opts), 0);
	assert_int_equal(m.causes[0].cause, hog);
	assert_true(m.n_causes >= 3 && m.n_causes <= a->n_causes);
	for (size_t i = 1; i < a->n_causes; i++)
		assert_true(a->causes[m.causes[i - 1].cause].excess_ns >=
			    a->causes[m.causes[i].cause].excess_ns);
	for (size_t i = m.n_causes; i < a->n_causes; i++)
		assert_false(a->causes[m.causes[i].cause].spikes ||
			     a->causes[m.causes[i].cause].excess_ns);
	assert_int_equal(m.n_top, 3);
	assert_int_equal(m.n_ranked, a->n_spikes);
	assert_int_equal(a->spikes[m.ranked[0]].sample, 100);
	assert_int_equal(a->spikes[m.ranked[1]].sample, 200);
	assert_int_equal(a->spikes[m.ranked[2]].sample, 400);
	assert_true(m.n_recs >= 2);
	for (size_t i = 1; i < m.n_recs; i++)
		assert_true(m.recs[i - 1].info->cls < m.recs[i].info->cls);
	for (size_t i = 0; i < m.n_recs; i++)
		if (m.recs[i].info->cls == TC_CAUSE_PREEMPTION)
			assert_int_equal(m.recs[i].spikes, a->causes[hog].spikes);
	assert_int_equal(m.n_lost, 1);
	assert_int_equal(m.lost[0]->aux, 7);
	report_model__free(&m);
	analysis__free(a);
	trace__free(t);
}

/* cpu-variance is named, but has no fix to chase: no recommendation; hw-noise keeps its. */
static void test_report_model_no_recommendation_for_cpu_variance(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	struct report_model m;
	int hw = 0;

	(void)state;
	complete_coverage(t);
	set_meta(t, "host.hypervisor", "KVM");
	set_meta(t, "calib.exit_floor_ns", "3400");
	set_rtt(t, 100, BASE_RTT + 8000); /* hw-noise: holds an exit */
	set_rtt(t, 200, BASE_RTT + 2000); /* cpu-variance: shorter than any */
	set_rtt(t, 300, BASE_RTT + 1500);
	a = run(t);
	assert_int_equal(a->causes[find_cause(a, "cpu-variance")].spikes, 2);
	assert_int_equal(report_model__build(&m, t, a, NULL, NULL, &opts), 0);
	assert_int_equal(m.h.cal.exit_floor_ns, 3400);
	for (size_t i = 0; i < m.n_recs; i++) {
		assert_int_not_equal(m.recs[i].info->cls, TC_CAUSE_CPU_VARIANCE);
		if (m.recs[i].info->cls == TC_CAUSE_HW_NOISE) {
			assert_int_equal(m.recs[i].spikes, 1);
			hw = 1;
		}
	}
	assert_true(hw);
	assert_int_equal(strncmp(causes_info(TC_CAUSE_CPU_VARIANCE)->fix, "none:", 5), 0);
	report_model__free(&m);
	analysis__free(a);
	trace__free(t);
}

/* IRQ placement: every IRQ with a count, most handled first, the NIC's marked. */
static void test_report_model_irqs(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	struct report_model m;
	struct report_model_opts o = opts;

	(void)state;
	assert_int_equal(trace__add_counter(t, TC_COUNTER_IRQ, 30, 0, 5), 0);
	assert_int_equal(trace__add_counter(t, TC_COUNTER_IRQ, 77, 2, 9), 0);
	assert_int_equal(trace__add_counter(t, TC_COUNTER_IRQ, 77, 3, 1), 0);
	a = run(t);
	o.nic_irq_pattern = "mlx5_*";
	assert_int_equal(report_model__build(&m, t, a, NULL, NULL, &o), 0);
	assert_int_equal(m.irqs.n_irqs, 2);
	assert_int_equal(m.irqs.irqs[0], 77);
	assert_int_equal(m.irqs.totals[0], 10);
	assert_true(m.irq[0].nic);
	assert_false(m.irq[1].nic);
	assert_string_equal(m.irq[1].name, "eth0");
	report_model__free(&m);
	analysis__free(a);
	trace__free(t);
}

/* The header's steal time: the host's steal intervals summed where the trace was read
 * whole (not the peer's); what the read counted where it was streamed. */
static void test_report_model_steal(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_event e[] = {
		{.start_ns = SLOT,
		 .dur_ns = SLOT,
		 .stolen_ns = 300,
		 .cpu = PROBE_CPU,
		 .kind = TC_EV_STEAL},
		{.start_ns = 2 * SLOT,
		 .dur_ns = SLOT,
		 .stolen_ns = 7000,
		 .cpu = 64 + PROBE_CPU,
		 .kind = TC_EV_STEAL},
		{.start_ns = 3 * SLOT,
		 .dur_ns = SLOT,
		 .stolen_ns = 500,
		 .cpu = OTHER_CPU,
		 .kind = TC_EV_STEAL},
	};
	struct tc_analysis *a;
	struct report_model m;

	(void)state;
	assert_int_equal(trace__add_events(t, e, 3), 0);
	t->peer.cpu_base = 64; /* the peer's CPUs: 64 on */
	a = run(t);
	assert_int_equal(report_model__build(&m, t, a, NULL, NULL, &opts), 0);
	assert_int_equal(m.h.stolen_ns, 800);
	report_model__free(&m);
	t->streamed.on = 1;
	t->streamed.stolen_ns = 123;
	assert_int_equal(report_model__build(&m, t, a, NULL, NULL, &opts), 0);
	assert_int_equal(m.h.stolen_ns, 123);
	report_model__free(&m);
	analysis__free(a);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_model_header_from_meta),
		cmocka_unit_test(test_report_model_tracers),
		cmocka_unit_test(test_report_model_orders),
		cmocka_unit_test(test_report_model_no_recommendation_for_cpu_variance),
		cmocka_unit_test(test_report_model_irqs),
		cmocka_unit_test(test_report_model_steal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
