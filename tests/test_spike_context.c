// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_spike_context.c - the span an event is weighed by (idle exit latency,
 * evidence-only kinds) and the context rules of preempted off-CPU intervals
 * (ksoftirqd's vector, a preempting task that compacts or reclaims, kernel
 * threads named by comm), and how each new kind is weighed end to end, through
 * analysis__run() on analyze_fixture.h traces.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>

#include "analyze_fixture.h"
#include "core/attrib/spike_context.h"

#define HOG_PID 555 /* the task that preempts the probe */

static struct tc_event event(uint16_t kind, uint64_t start, uint64_t dur, uint32_t arg)
{
	struct tc_event e = {.start_ns = start, .dur_ns = dur, .cpu = PROBE_CPU, .kind = kind};

	e.arg = arg;
	return e;
}

static void assert_span(const struct idle_latency *l, const struct tc_event *e, uint64_t s,
			uint64_t end)
{
	uint64_t got_s, got_e;

	event_span(l, e, &got_s, &got_e);
	assert_int_equal(got_s, s);
	assert_int_equal(got_e, end);
}

static void test_context_span_each_kind(void **state)
{
	uint64_t ns[4] = {0, 1000, 0, 50000};
	struct idle_latency l = {ns, 4};
	struct tc_event e;

	(void)state;
	e = event(TC_EV_HARDIRQ, 1000, 500, 30);
	assert_span(&l, &e, 1000, 1500);
	e = event(TC_EV_HARDIRQ, 1000, 0, 30);
	assert_span(&l, &e, 1000, 1000);
	e = event(TC_EV_NAPI, 1000, 500, 64); /* evidence only: an instant at its start */
	assert_span(&l, &e, 1000, 1000);
	e = event(TC_EV_KIND_MAX + 1, 1000, 500, 0);
	assert_span(&l, &e, 1000, 1000);
	e = event(TC_EV_IDLE, 1000, 20000, 1); /* the last 1 us: the way out */
	assert_span(&l, &e, 20000, 21000);
	e = event(TC_EV_IDLE, 1000, 20000, 3); /* latency above the idle time: all of it */
	assert_span(&l, &e, 1000, 21000);
	e = event(TC_EV_IDLE, 1000, 20000, 2); /* unknown latency: an instant at the exit */
	assert_span(&l, &e, 21000, 21000);
	e = event(TC_EV_IDLE, 1000, 20000, 4); /* beyond the table */
	assert_span(&l, &e, 21000, 21000);
	assert_span(NULL, &e, 21000, 21000);
	e = event(TC_EV_IPI, 1000, 500, TC_IPI_CALL_FUNCTION_SINGLE);
	assert_span(&l, &e, 1000, 1500); /* the send not seen */
	e.aux = 200;			 /* sent 800 ns before it ran: delivered meanwhile */
	assert_span(&l, &e, 200, 1500);
	e.aux = 1000; /* not before its start: no delivery */
	assert_span(&l, &e, 1000, 1500);
	e = event(TC_EV_HARDIRQ, 1000, 500, 30);
	e.aux = 200; /* aux means nothing for other kinds */
	assert_span(&l, &e, 1000, 1500);
	e = event(TC_EV_HARDIRQ, UINT64_MAX - 10, 500, 30); /* saturates */
	assert_span(&l, &e, UINT64_MAX - 10, UINT64_MAX);
}

static void test_context_idle_latency_load_reads_meta(void **state)
{
	struct tc_trace *t = trace__new();
	struct idle_latency l;

	(void)state;
	assert_non_null(t);
	assert_int_equal(trace__set_meta(t, "host.cpuidle.state0.latency_us", "0"), 0);
	assert_int_equal(trace__set_meta(t, "host.cpuidle.state1.latency_us", "2"), 0);
	assert_int_equal(trace__set_meta(t, "host.cpuidle.state3.latency_us", "133"), 0);
	assert_int_equal(trace__set_meta(t, "host.cpuidle.state4.latency_us", "1.5"), 0);
	assert_int_equal(trace__set_meta(t, "host.cpuidle.state5.latency_us", ""), 0);
	assert_int_equal(trace__set_meta(t, "host.cpuidle.state6.latency", "7"), 0);
	assert_int_equal(trace__set_meta(t, "host.cpuidle.state.latency_us", "7"), 0);
	assert_int_equal(trace__set_meta(t, "host.cpuidle.state99999.latency_us", "7"), 0);
	assert_int_equal(trace__set_meta(t, "host.cpuidle.state2x.latency_us", "7"), 0);

	assert_int_equal(idle_latency__load(&l, t), 0);

	assert_int_equal(l.n, 6);
	assert_int_equal(l.ns[0], 0);
	assert_int_equal(l.ns[1], 2000);
	assert_int_equal(l.ns[2], 0);
	assert_int_equal(l.ns[3], 133000);
	assert_int_equal(l.ns[4], 0); /* malformed: unknown */
	assert_int_equal(l.ns[5], 0);
	idle_latency__free(&l);
	assert_null(l.ns);
	trace__free(t);
}

/* An idle interval on the probe CPU in C-state 3 that ends 3 us into spike K. */
static struct tc_analysis *run_idle(const char *latency_us)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	set_rtt(t, K, 5000);
	add_event(t, TC_EV_IDLE, PROBE_CPU, 0, t0(t, K) - 8000, 11000, 3);
	if (latency_us)
		assert_int_equal(trace__set_meta(t, "host.cpuidle.state3.latency_us", latency_us),
				 0);
	a = run(t);
	trace__free(t);
	return a;
}

static void test_context_idle_exit_weighed_by_exit_latency(void **state)
{
	struct tc_analysis *a = run_idle("2");
	const struct tc_spike *sp = &a->spikes[0];

	(void)state;
	assert_string_equal(cause_name(a, sp->primary), "idle-exit");
	assert_int_equal(a->causes[sp->primary].cls, TC_CAUSE_IDLE_EXIT);
	assert_int_equal(sp->n_contrib, 1);
	assert_int_equal(contrib(a, sp, 0)->overlap_ns, 2000); /* [end - 2 us, end) */
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 2000);
	assert_true(fabs(sp->explained - 0.5) < 1e-9);
	analysis__free(a);
}

static void test_context_idle_exit_without_latency_is_evidence(void **state)
{
	struct tc_analysis *a = run_idle(NULL);
	const struct tc_spike *sp = &a->spikes[0];

	(void)state;
	assert_int_equal(sp->n_contrib, 1); /* shown at its exit */
	assert_string_equal(cause_name(a, contrib(a, sp, 0)->cause), "idle-exit");
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 0);
	assert_int_equal(sp->primary, 0);
	assert_int_equal(sp->candidate, TC_NO_CAUSE);
	analysis__free(a);
}

static void test_context_idle_exit_inside_blocked_keeps_its_credit(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 5000);
	assert_int_equal(trace__set_meta(t, "host.cpuidle.state3.latency_us", "3"), 0);
	/* The probe slept over [+500, +4500); its CPU left C3 at +4000, taking 3 us. */
	add_offcpu(t, t0(t, K) + 500, 4000, 0, 0, "swapper/2");
	add_event(t, TC_EV_IDLE, PROBE_CPU, 0, t0(t, K) + 700, 3300, 3);

	a = run(t);

	sp = &a->spikes[0];
	assert_string_equal(cause_name(a, sp->primary), "idle-exit");
	assert_int_equal(contrib(a, sp, 1)->nested, 0);
	assert_int_equal(contrib(a, sp, 1)->overlap_ns, 3000);
	assert_int_equal(contrib(a, sp, 1)->attributed_ns, 3000);
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 1000);
	assert_true(fabs(sp->explained - 0.75) < 1e-9);
	analysis__free(a);
	trace__free(t);
}

static void test_context_ksoftirqd_named_by_its_busiest_vector(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;
	uint32_t net_rx;

	(void)state;
	set_rtt(t, K, 5000);
	add_offcpu(t, t0(t, K) + 500, 4000, TC_OFFCPU_PREEMPTED, 12, "ksoftirqd/2");
	add_irq(t, TC_EV_SOFTIRQ, PROBE_CPU, t0(t, K) + 1000, 1500, 3); /* NET_RX */
	add_irq(t, TC_EV_SOFTIRQ, PROBE_CPU, t0(t, K) + 3000, 500, 1);	/* TIMER */
	/* Longer, but on another CPU: not what this ksoftirqd ran. */
	add_irq(t, TC_EV_SOFTIRQ, PEER_CPU, t0(t, K) + 1000, 3000, 2); /* NET_TX */
	set_rtt(t, K + 10, 5000);
	add_offcpu(t, t0(t, K + 10) + 500, 4000, TC_OFFCPU_PREEMPTED, 12, "ksoftirqd/2");

	a = run(t);

	sp = &a->spikes[0];
	net_rx = find_cause(a, "softirq:net_rx");
	assert_int_equal(sp->primary, net_rx);
	assert_int_equal(contrib(a, sp, 0)->cause, net_rx); /* the off-CPU interval */
	assert_int_equal(contrib(a, sp, 1)->nested, 1);
	assert_int_equal(contrib(a, sp, 3)->nested, 1);
	assert_int_equal(a->causes[net_rx].excess_ns, 2500);
	assert_string_equal(cause_name(a, a->spikes[1].primary), "softirq:ksoftirqd");
	assert_int_equal(a->causes[a->spikes[1].primary].cls, TC_CAUSE_SOFTIRQ);
	analysis__free(a);
	trace__free(t);
}

static void test_context_ksoftirqd_vector_is_per_spike(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, K, 5000);
	set_rtt(t, K + 1, 5000);
	/* One preemption across both spikes; in each, a different vector runs most. */
	add_offcpu(t, t0(t, K), 15000, TC_OFFCPU_PREEMPTED, 12, "ksoftirqd/2");
	add_irq(t, TC_EV_SOFTIRQ, PROBE_CPU, t0(t, K) + 1000, 1000, 1); /* TIMER in K */
	/* Longer, but only 500 ns of it inside K: what counts is the time in the spike. */
	add_irq(t, TC_EV_SOFTIRQ, PROBE_CPU, t0(t, K) + 4500, 3000, 3);
	add_irq(t, TC_EV_SOFTIRQ, PROBE_CPU, t0(t, K + 1) + 1000, 2000, 9); /* RCU in K + 1 */

	a = run(t);

	assert_string_equal(cause_name(a, a->spikes[0].primary), "softirq:timer");
	assert_string_equal(cause_name(a, a->spikes[1].primary), "softirq:rcu");
	analysis__free(a);
	trace__free(t);
}

/* Spike K: the probe preempted by HOG_PID over [+1000, +4000); mm by tid over 2 us from at. */
static struct tc_analysis *run_mm(uint16_t kind, uint32_t tid, int64_t at)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	set_rtt(t, K, 5000);
	add_offcpu(t, t0(t, K) + 1000, 3000, TC_OFFCPU_PREEMPTED, HOG_PID, "stress");
	add_event(t, kind, OTHER_CPU, tid, (uint64_t)((int64_t)t0(t, K) + at), 2000,
		  TC_COMPACT_RUN);
	a = run(t);
	trace__free(t);
	return a;
}

static void test_context_preempting_task_compacting_is_thp_compaction(void **state)
{
	struct tc_analysis *a = run_mm(TC_EV_COMPACTION, HOG_PID, 500);
	const struct tc_spike *sp = &a->spikes[0];

	(void)state;
	assert_string_equal(cause_name(a, sp->primary), "thp-compaction");
	assert_int_equal(a->causes[sp->primary].cls, TC_CAUSE_THP_COMPACTION);
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 0); /* the compaction: shown, */
	assert_int_equal(contrib(a, sp, 0)->nested, 1);	       /* counted in the preemption */
	assert_int_equal(contrib(a, sp, 0)->overlap_ns, 2000);
	assert_int_equal(contrib(a, sp, 1)->attributed_ns, 3000);
	assert_int_equal(a->causes[sp->primary].excess_ns, 3000);
	analysis__free(a);
}

static void test_context_preempting_task_reclaiming_is_reclaim(void **state)
{
	struct tc_analysis *a = run_mm(TC_EV_RECLAIM, HOG_PID, 500);
	const struct tc_spike *sp = &a->spikes[0];

	(void)state;
	assert_string_equal(cause_name(a, sp->primary), "reclaim");
	assert_int_equal(a->causes[sp->primary].cls, TC_CAUSE_RECLAIM);
	assert_int_equal(sp->n_contrib, 2);
	assert_int_equal(contrib(a, sp, 0)->nested, 1);
	analysis__free(a);
}

static void test_context_mm_of_another_task_or_outside_is_ignored(void **state)
{
	struct tc_analysis *other = run_mm(TC_EV_COMPACTION, HOG_PID + 1, 500);
	struct tc_analysis *before = run_mm(TC_EV_COMPACTION, HOG_PID, -1000); /* ends at +1000 */

	(void)state;
	assert_string_equal(cause_name(other, other->spikes[0].primary), "preemption:stress");
	assert_int_equal(other->spikes[0].n_contrib, 1);
	assert_string_equal(cause_name(before, before->spikes[0].primary), "preemption:stress");
	assert_int_equal(before->spikes[0].n_contrib, 1);
	analysis__free(other);
	analysis__free(before);
}

static void test_context_longer_of_compaction_and_reclaim_wins(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, K, 5000);
	add_offcpu(t, t0(t, K) + 1000, 3000, TC_OFFCPU_PREEMPTED, HOG_PID, "kcompactd0");
	add_event(t, TC_EV_COMPACTION, OTHER_CPU, HOG_PID, t0(t, K) + 1000, 500, TC_COMPACT_RUN);
	add_event(t, TC_EV_RECLAIM, OTHER_CPU, HOG_PID, t0(t, K) + 1500, 2000, 0);

	a = run(t);

	assert_string_equal(cause_name(a, a->spikes[0].primary), "reclaim");
	assert_int_equal(a->spikes[0].n_contrib, 3);
	analysis__free(a);
	trace__free(t);
}

static void test_context_mm_relevant_by_probe_thread_or_cpu(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, K, 5000); /* direct compaction by the probe thread, elsewhere */
	add_event(t, TC_EV_COMPACTION, OTHER_CPU, PROBE_TID, t0(t, K) + 1000, 3000, TC_COMPACT_RUN);
	set_rtt(t, K + 10, 5000); /* kcompactd on the peer's CPU */
	add_event(t, TC_EV_COMPACTION, PEER_CPU, 60, t0(t, K + 10) + 1000, 3000,
		  TC_COMPACT_KCOMPACTD);
	set_rtt(t, K + 20, 5000); /* reclaim by another task elsewhere: not ours */
	add_event(t, TC_EV_RECLAIM, OTHER_CPU, 61, t0(t, K + 20) + 1000, 3000, 0);

	a = run(t);

	assert_string_equal(cause_name(a, a->spikes[0].primary), "thp-compaction");
	assert_string_equal(cause_name(a, a->spikes[1].primary), "thp-compaction");
	assert_int_equal(a->spikes[2].primary, 0);
	assert_int_equal(a->spikes[2].n_contrib, 0);
	analysis__free(a);
	trace__free(t);
}

static void test_context_kernel_threads_named_by_comm(void **state)
{
	static const char *const comm[] = {"kcompactd0", "khugepaged", "kswapd0", "migration/2"};
	static const char *const want[] = {"thp-compaction", "thp-compaction", "reclaim",
					   "migration"};
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		set_rtt(t, K + 10 * i, 5000);
		add_offcpu(t, t0(t, K + 10 * i) + 1000, 3000, TC_OFFCPU_PREEMPTED, 40 + i, comm[i]);
	}

	a = run(t);

	for (size_t i = 0; i < 4; i++)
		assert_string_equal(cause_name(a, a->spikes[i].primary), want[i]);
	analysis__free(a);
	trace__free(t);
}

static void test_context_evidence_kinds_never_primary_or_candidate(void **state)
{
	static const uint16_t kinds[] = {TC_EV_MIGRATE, TC_EV_IRQ_MOVE,	    TC_EV_CPU_FREQ,
					 TC_EV_NAPI,	TC_EV_KIND_MAX + 1, 0};
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	size_t n = sizeof(kinds) / sizeof(kinds[0]);

	(void)state;
	/* Even with a duration covering the spike (a corrupt or newer trace). */
	for (size_t i = 0; i < n; i++) {
		set_rtt(t, K + 10 * i, 5000);
		add_event(t, kinds[i], PROBE_CPU, PROBE_TID, t0(t, K + 10 * i), 5000, 1);
	}

	a = run(t);

	assert_int_equal(a->n_spikes, n);
	for (size_t i = 0; i < n; i++) {
		const struct tc_spike *sp = &a->spikes[i];

		assert_int_equal(sp->n_contrib, 1);
		assert_int_equal(a->causes[contrib(a, sp, 0)->cause].cls, TC_CAUSE_UNATTRIBUTED);
		assert_int_equal(contrib(a, sp, 0)->attributed_ns, 0);
		assert_int_equal(sp->primary, 0);
		assert_int_equal(sp->candidate, TC_NO_CAUSE);
	}
	assert_int_equal(a->causes[0].excess_ns, a->total_excess_ns);
	analysis__free(a);
	trace__free(t);
}

static void test_context_new_interval_kinds_take_credit(void **state)
{
	static const struct {
		uint16_t kind;
		uint32_t tid, arg;
		const char *want;
	} cases[] = {
		{TC_EV_IPI, 0, TC_IPI_CALL_FUNCTION, "ipi:call_function"},
		{TC_EV_TIMER, 0, 0, "timer"},
		{TC_EV_NIC, 0, TC_NIC_COMP_EQ, "nic-event:mlx5_eq_comp"},
		{TC_EV_PAGE_FAULT, PROBE_TID, 6, "page-fault"},
		{TC_EV_RECLAIM, PROBE_TID, 0, "reclaim"},
		{TC_EV_COMPACTION, PROBE_TID, TC_COMPACT_RUN, "thp-compaction"},
	};
	size_t n = sizeof(cases) / sizeof(cases[0]);
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		set_rtt(t, K + 10 * i, 5000);
		add_event(t, cases[i].kind, PROBE_CPU, cases[i].tid, t0(t, K + 10 * i) + 1000, 3000,
			  cases[i].arg);
	}

	a = run(t);

	for (size_t i = 0; i < n; i++) {
		assert_string_equal(cause_name(a, a->spikes[i].primary), cases[i].want);
		assert_int_equal(contrib(a, &a->spikes[i], 0)->attributed_ns, 3000);
	}
	analysis__free(a);
	trace__free(t);
}

/*
 * context_callback() weighs a parent's callbacks over [lo, hi) first and over the
 * parent itself where none ran there; context_parents_*() keep a callback's until
 * at the end of the parent running when it began, per CPU and parent class.
 */
static void test_context_callback_window_first_then_parent(void **state)
{
	struct spike_context sc = {0};
	struct context_parents p = {0};
	struct tc_event irq = event(TC_EV_TIMER, 1000, 4000, 0),
			fn = event(TC_EV_TIMER_FN, 1200, 500, 1),
			work = event(TC_EV_WORK, 1500, 100, 0),
			off = event(TC_EV_OFFCPU, 900, 9000, 0),
			late = event(TC_EV_TIMER_FN, 6000, 100, 1);
	struct context_ref refs[] = {
		{.start = 1200, .end = 1700, .key = PROBE_CPU, .kind = TC_EV_TIMER_FN, .func = 0xa},
		{.start = 2000, .end = 2900, .key = PROBE_CPU, .kind = TC_EV_TIMER_FN, .func = 0xb},
		{.start = 3000, .end = 3100, .key = PROBE_CPU, .kind = TC_EV_TIMER_FN, .func = 0xa},
		{.start = 3500, .end = 3600, .key = PEER_CPU, .kind = TC_EV_TIMER_FN, .func = 0xc},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		refs[i].slot = i;
		assert_int_equal(context__add(&sc, &refs[i]), 0);
	}
	context__sort(&sc);
	assert_int_equal(context_callback(&sc, &irq, TC_EV_TIMER_FN, 1000, 5000), 0xb);
	assert_int_equal(context_callback(&sc, &irq, TC_EV_TIMER_FN, 2950, 5000), 0xa);
	/* nothing in [3200, 5000): the parent's busiest, 0xb (900 ns against 600) */
	assert_int_equal(context_callback(&sc, &irq, TC_EV_TIMER_FN, 3200, 5000), 0xb);
	assert_int_equal(context_callback(&sc, &irq, TC_EV_WORK, 1000, 5000), 0);
	context__free(&sc);

	assert_int_equal(context_parents_until(&p, &fn), 0);
	assert_int_equal(context_parents_note(&p, &irq, 5000), 0);
	off.flags = TC_OFFCPU_PREEMPTED;
	assert_int_equal(context_parents_note(&p, &off, 9900), 0);
	assert_int_equal(context_parents_until(&p, &fn), 5000);
	assert_int_equal(context_parents_until(&p, &work), 9900);
	assert_int_equal(context_parents_until(&p, &late), 0); /* the interrupt was over */
	assert_int_equal(context_parents_until(&p, &irq), 0);  /* not a callback */
	fn.cpu = PEER_CPU;
	assert_int_equal(context_parents_until(&p, &fn), 0);
	context_parents_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_context_span_each_kind),
		cmocka_unit_test(test_context_idle_latency_load_reads_meta),
		cmocka_unit_test(test_context_idle_exit_weighed_by_exit_latency),
		cmocka_unit_test(test_context_idle_exit_without_latency_is_evidence),
		cmocka_unit_test(test_context_idle_exit_inside_blocked_keeps_its_credit),
		cmocka_unit_test(test_context_ksoftirqd_named_by_its_busiest_vector),
		cmocka_unit_test(test_context_ksoftirqd_vector_is_per_spike),
		cmocka_unit_test(test_context_preempting_task_compacting_is_thp_compaction),
		cmocka_unit_test(test_context_preempting_task_reclaiming_is_reclaim),
		cmocka_unit_test(test_context_mm_of_another_task_or_outside_is_ignored),
		cmocka_unit_test(test_context_longer_of_compaction_and_reclaim_wins),
		cmocka_unit_test(test_context_mm_relevant_by_probe_thread_or_cpu),
		cmocka_unit_test(test_context_kernel_threads_named_by_comm),
		cmocka_unit_test(test_context_evidence_kinds_never_primary_or_candidate),
		cmocka_unit_test(test_context_new_interval_kinds_take_credit),
		cmocka_unit_test(test_context_callback_window_first_then_parent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
