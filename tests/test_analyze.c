// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_analyze.c - spike attribution on synthetic traces with known answers
 * (analyze_fixture.h): overlap, nesting, sharing, candidates. What particular
 * kinds of event weigh: test_analyze_kinds.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>

#include "analyze_fixture.h"

static void test_analyze_preemption_covering_spike_is_primary(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 5000);
	add_preempt(t, t0(t, K) + 1000, 3000, "stress");

	a = run(t);

	assert_int_equal(a->threshold_ns, 2000);
	assert_int_equal(a->n_spikes, 1);
	sp = &a->spikes[0];
	assert_int_equal(sp->sample, K);
	assert_int_equal(sp->rtt_ns, 5000);
	assert_int_equal(sp->excess_ns, 4000);
	assert_string_equal(cause_name(a, sp->primary), "preemption:stress");
	assert_int_equal(a->causes[sp->primary].cls, TC_CAUSE_PREEMPTION);
	assert_int_equal(sp->candidate, TC_NO_CAUSE);
	assert_true(fabs(sp->explained - 0.75) < 1e-9);
	assert_int_equal(sp->n_contrib, 1);
	assert_int_equal(contrib(a, sp, 0)->overlap_ns, 3000);
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 3000);
	assert_int_equal(a->causes[sp->primary].excess_ns, 3000);
	assert_int_equal(a->causes[sp->primary].spikes, 1);
	assert_string_equal(a->causes[0].name, "unattributed");
	assert_int_equal(a->causes[0].excess_ns, 1000);
	assert_int_equal(a->causes[0].spikes, 0);
	assert_int_equal(a->total_excess_ns, 4000);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_irq_nested_in_preemption_counts_once(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;
	uint32_t preempt, irq;

	(void)state;
	set_rtt(t, K, 5000);
	add_preempt(t, t0(t, K) + 500, 4000, "stress");
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) + 1000, 500, 30);

	a = run(t);

	sp = &a->spikes[0];
	preempt = find_cause(a, "preemption:stress");
	irq = find_cause(a, "hardirq:eth0");
	assert_int_equal(sp->primary, preempt);
	assert_int_equal(sp->n_contrib, 2);
	assert_int_equal(contrib(a, sp, 0)->cause, preempt);
	assert_int_equal(contrib(a, sp, 0)->nested, 0);
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 4000);
	assert_int_equal(contrib(a, sp, 1)->cause, irq);
	assert_int_equal(contrib(a, sp, 1)->nested, 1);
	assert_int_equal(contrib(a, sp, 1)->overlap_ns, 500);
	assert_int_equal(contrib(a, sp, 1)->attributed_ns, 0);
	assert_int_equal(a->causes[irq].excess_ns, 0);
	assert_true(fabs(sp->explained - 1.0) < 1e-9);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_partly_overlapping_causes_split(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;
	uint32_t preempt, irq;

	(void)state;
	set_rtt(t, K, 5000);
	/* [0, 2000) preemption alone, [2000, 3000) both, [3000, 4000) the IRQ alone */
	add_preempt(t, t0(t, K), 3000, "stress");
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) + 2000, 2000, 30);

	a = run(t);

	sp = &a->spikes[0];
	preempt = find_cause(a, "preemption:stress");
	irq = find_cause(a, "hardirq:eth0");
	assert_int_equal(sp->primary, preempt);
	assert_int_equal(contrib(a, sp, 0)->nested, 0);
	assert_int_equal(contrib(a, sp, 1)->nested, 0);
	assert_int_equal(a->causes[preempt].excess_ns, 2500);
	assert_int_equal(a->causes[irq].excess_ns, 1500);
	assert_int_equal(a->causes[0].excess_ns, 0);
	assert_true(fabs(sp->explained - 1.0) < 1e-9);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_covered_beyond_excess_scales_down_and_ties_by_name(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;
	uint32_t preempt, irq;

	(void)state;
	set_rtt(t, K, 5000);
	/* Both cover the whole 5000 ns window, on different probe CPUs: 2500 each, scaled 4/5. */
	add_preempt(t, t0(t, K) - 1000, 7000, "stress");
	add_irq(t, TC_EV_HARDIRQ, PEER_CPU, t0(t, K), 5000, 30);

	a = run(t);

	sp = &a->spikes[0];
	preempt = find_cause(a, "preemption:stress");
	irq = find_cause(a, "hardirq:eth0");
	assert_int_equal(contrib(a, sp, 0)->overlap_ns, 5000);
	assert_int_equal(a->causes[preempt].excess_ns, 2000);
	assert_int_equal(a->causes[irq].excess_ns, 2000);
	/* a tie goes to the first name, not the first named (a streamed read names in
	 * another order) */
	assert_true(preempt < irq);
	assert_int_equal(sp->primary, irq);
	assert_true(fabs(sp->explained - 1.0) < 1e-9);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_spike_without_events_is_unattributed(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 5000);

	a = run(t);

	assert_int_equal(a->n_spikes, 1);
	sp = &a->spikes[0];
	assert_int_equal(sp->primary, 0);
	assert_int_equal(sp->candidate, TC_NO_CAUSE);
	assert_int_equal(sp->n_contrib, 0);
	assert_true(sp->explained == 0.0);
	assert_int_equal(a->n_causes, 1);
	assert_int_equal(a->causes[0].spikes, 1);
	assert_int_equal(a->causes[0].excess_ns, 4000);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_under_half_explained_keeps_candidate(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;
	uint32_t irq;

	(void)state;
	set_rtt(t, K, 5000);
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) + 100, 1200, 30); /* 30 % of 4000 */

	a = run(t);

	sp = &a->spikes[0];
	irq = find_cause(a, "hardirq:eth0");
	assert_true(fabs(sp->explained - 0.3) < 1e-9);
	assert_int_equal(sp->primary, 0);
	assert_int_equal(sp->candidate, irq);
	assert_int_equal(a->causes[irq].excess_ns, 1200);
	assert_int_equal(a->causes[irq].spikes, 0);
	assert_int_equal(a->causes[0].excess_ns, 2800);
	assert_int_equal(a->causes[0].spikes, 1);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_half_explained_is_attributed(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 5000);
	add_preempt(t, t0(t, K) - 2000, 4000, "stress"); /* 2000 inside the window: 50 % */

	a = run(t);

	sp = &a->spikes[0];
	assert_true(sp->explained == 0.5);
	assert_string_equal(cause_name(a, sp->primary), "preemption:stress");
	assert_int_equal(contrib(a, sp, 0)->overlap_ns, 2000);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_blocked_offcpu_is_unattributed_candidate(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;
	uint32_t blocked;

	(void)state;
	set_rtt(t, K, 5000);
	add_offcpu(t, t0(t, K) + 1000, 3000, 0, 777, "sshd");

	a = run(t);

	sp = &a->spikes[0];
	blocked = find_cause(a, "blocked, then sshd ran");
	assert_int_equal(a->causes[blocked].cls, TC_CAUSE_UNATTRIBUTED);
	assert_int_equal(sp->primary, 0);
	assert_int_equal(sp->candidate, blocked);
	assert_true(sp->explained == 0.0);
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 3000);
	assert_int_equal(a->causes[0].excess_ns, 1000);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/* A blocked interval as large as the explaining cause never takes the primary slot from it. */
static void test_analyze_explaining_cause_wins_tie_with_blocked(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 5000);
	add_offcpu(t, t0(t, K) + 500, 2000, 0, 777, "sshd"); /* a tie on its own would go to it */
	add_preempt(t, t0(t, K) + 2500, 2000, "stress");

	a = run(t);

	sp = &a->spikes[0];
	assert_true(sp->explained == 0.5);
	assert_string_equal(cause_name(a, sp->primary), "preemption:stress");
	assert_int_equal(sp->candidate, TC_NO_CAUSE);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_ignores_events_on_other_cpus(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 5000);
	add_irq(t, TC_EV_HARDIRQ, OTHER_CPU, t0(t, K) + 1000, 3000, 30);
	add_irq(t, TC_EV_SOFTIRQ, OTHER_CPU, t0(t, K), 5000, 3);

	a = run(t);

	sp = &a->spikes[0];
	assert_int_equal(sp->n_contrib, 0);
	assert_int_equal(sp->primary, 0);
	assert_int_equal(sp->candidate, TC_NO_CAUSE);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_counts_events_on_the_sample_cpu_only_for_it(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, K, 5000);
	set_rtt(t, K + 1, 5000);
	t->samples[K].cpu = OTHER_CPU; /* timed on an unpinned CPU */
	add_irq(t, TC_EV_SOFTIRQ, OTHER_CPU, t0(t, K) + 1000, 3000, 3);
	add_irq(t, TC_EV_SOFTIRQ, OTHER_CPU, t0(t, K + 1) + 1000, 3000, 3);

	a = run(t);

	assert_int_equal(a->n_spikes, 2);
	assert_string_equal(cause_name(a, a->spikes[0].primary), "softirq:net_rx");
	assert_int_equal(a->spikes[0].n_contrib, 1);
	assert_int_equal(a->spikes[1].n_contrib, 0);
	assert_int_equal(a->spikes[1].primary, 0);
	analysis__free(a);
	trace__free(t);
}

/*
 * Another thread of a traced command, not a probe thread, waiting on the probe's CPU while
 * the timed thread runs (preempted by it) delays nothing: its wait is no item; the same
 * wait of the peer's probe thread is one.
 */
static void test_analyze_another_threads_wait_is_not_an_item(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, K, 5000);
	add_event(t, TC_EV_OFFCPU, PROBE_CPU, 777, t0(t, K) + 500, 4000, 0);
	t->events[t->n_events - 1].flags = TC_OFFCPU_PREEMPTED;
	t->events[t->n_events - 1].other_pid = PROBE_TID;
	set_rtt(t, K + 10, 5000);
	add_event(t, TC_EV_OFFCPU, PROBE_CPU, PEER_TID, t0(t, K + 10) + 500, 4000, 0);
	t->events[t->n_events - 1].flags = TC_OFFCPU_PREEMPTED;
	t->events[t->n_events - 1].other_pid = 555;
	memcpy(t->events[t->n_events - 1].other_comm, "hog", 4);

	a = run(t);

	assert_int_equal(a->n_spikes, 2);
	assert_int_equal(a->spikes[0].n_contrib, 0);
	assert_string_equal(cause_name(a, a->spikes[0].primary), "unattributed");
	assert_string_equal(cause_name(a, a->spikes[1].primary), "preemption:hog");
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_intervals_touching_the_window_are_ignored(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, K, 5000);
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) - 3000, 3000, 30); /* [s, s + dur) */
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) + 5000, 3000, 30); /* starts at t_end */

	a = run(t);

	assert_int_equal(a->spikes[0].n_contrib, 0);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_preemption_by_recorder_is_self(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 5000);
	add_offcpu(t, t0(t, K) + 1000, 3000, TC_OFFCPU_PREEMPTED, SELF_TID, "tailcause");

	a = run(t);

	sp = &a->spikes[0];
	assert_string_equal(cause_name(a, sp->primary), "self");
	assert_int_equal(a->causes[sp->primary].cls, TC_CAUSE_SELF);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_identical_intervals_nest_the_later_event(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 5000);
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) + 1000, 3000, 30);
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) + 1000, 3000, 77);

	a = run(t);

	sp = &a->spikes[0];
	assert_string_equal(cause_name(a, sp->primary), "hardirq:eth0");
	assert_int_equal(contrib(a, sp, 0)->nested, 0);
	assert_int_equal(contrib(a, sp, 1)->nested, 1);
	assert_string_equal(cause_name(a, contrib(a, sp, 1)->cause),
			    "nic-irq:mlx5_comp3@pci:0000:81:00.0");
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_nic_pattern_option_applies(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis_opts o = {.nic_irq_pattern = "eth*"};
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, K, 5000);
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) + 1000, 3000, 30);

	a = run_opts(t, &o);

	assert_string_equal(cause_name(a, a->spikes[0].primary), "nic-irq:eth0");
	assert_int_equal(a->causes[a->spikes[0].primary].cls, TC_CAUSE_NIC_IRQ);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_long_interval_attributes_every_spike(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	uint32_t preempt;

	(void)state;
	for (size_t i = 0; i < 10; i++)
		set_rtt(t, 100 + 20 * i, 5000);
	/* 2 ms of preemption across all ten, with unrelated short IRQs in between. */
	add_preempt(t, t0(t, 100) - 1000, t0(t, 300) - t0(t, 100), "stress");
	for (size_t i = 0; i < 200; i++)
		add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, 100 + i) + 6000, 100, 30);

	a = run(t);

	preempt = find_cause(a, "preemption:stress");
	assert_int_equal(a->n_spikes, 10);
	for (size_t i = 0; i < 10; i++) {
		assert_int_equal(a->spikes[i].sample, 100 + 20 * i);
		assert_int_equal(a->spikes[i].primary, preempt);
		assert_int_equal(a->spikes[i].n_contrib, 1);
		assert_int_equal(contrib(a, &a->spikes[i], 0)->attributed_ns, 4000);
	}
	assert_int_equal(a->causes[preempt].spikes, 10);
	assert_int_equal(a->causes[preempt].excess_ns, 40000);
	assert_int_equal(a->n_causes, 2); /* the IRQs never overlapped a spike */
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_causes_dedup_by_name(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	uint32_t preempt;

	(void)state;
	set_rtt(t, K, 5000);
	set_rtt(t, K + 50, 5000);
	add_offcpu(t, t0(t, K) + 1000, 3000, TC_OFFCPU_PREEMPTED, 555, "stress");
	add_offcpu(t, t0(t, K + 50) + 1000, 3000, TC_OFFCPU_PREEMPTED, 556, "stress");

	a = run(t);

	preempt = find_cause(a, "preemption:stress");
	assert_int_equal(a->n_causes, 2);
	assert_int_equal(a->spikes[0].primary, preempt);
	assert_int_equal(a->spikes[1].primary, preempt);
	assert_int_equal(a->causes[preempt].spikes, 2);
	assert_int_equal(a->causes[preempt].excess_ns, 6000);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_blocked_parent_does_not_absorb_nested_hardirq(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;
	uint32_t blocked, irq;

	(void)state;
	set_rtt(t, K, 5000);
	add_offcpu(t, t0(t, K) + 500, 4000, 0, 777, "sshd");
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) + 1000, 500, 30);

	a = run(t);

	sp = &a->spikes[0];
	blocked = find_cause(a, "blocked, then sshd ran");
	irq = find_cause(a, "hardirq:eth0");
	assert_int_equal(contrib(a, sp, 1)->cause, irq);
	assert_int_equal(contrib(a, sp, 1)->nested, 0);
	/* It keeps all of its own time: the blocked envelope explains none of it. */
	assert_int_equal(contrib(a, sp, 1)->attributed_ns, 500);
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 3500);
	assert_true(fabs(sp->explained - 0.125) < 1e-9);
	assert_int_equal(sp->primary, 0);
	assert_int_equal(sp->candidate, blocked);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_analyze_preemption_covering_spike_is_primary),
		cmocka_unit_test(test_analyze_irq_nested_in_preemption_counts_once),
		cmocka_unit_test(test_analyze_partly_overlapping_causes_split),
		cmocka_unit_test(test_analyze_covered_beyond_excess_scales_down_and_ties_by_name),
		cmocka_unit_test(test_analyze_spike_without_events_is_unattributed),
		cmocka_unit_test(test_analyze_under_half_explained_keeps_candidate),
		cmocka_unit_test(test_analyze_half_explained_is_attributed),
		cmocka_unit_test(test_analyze_blocked_offcpu_is_unattributed_candidate),
		cmocka_unit_test(test_analyze_explaining_cause_wins_tie_with_blocked),
		cmocka_unit_test(test_analyze_ignores_events_on_other_cpus),
		cmocka_unit_test(test_analyze_counts_events_on_the_sample_cpu_only_for_it),
		cmocka_unit_test(test_analyze_another_threads_wait_is_not_an_item),
		cmocka_unit_test(test_analyze_intervals_touching_the_window_are_ignored),
		cmocka_unit_test(test_analyze_preemption_by_recorder_is_self),
		cmocka_unit_test(test_analyze_identical_intervals_nest_the_later_event),
		cmocka_unit_test(test_analyze_nic_pattern_option_applies),
		cmocka_unit_test(test_analyze_long_interval_attributes_every_spike),
		cmocka_unit_test(test_analyze_causes_dedup_by_name),
		cmocka_unit_test(test_analyze_blocked_parent_does_not_absorb_nested_hardirq),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
