// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_analyze_kinds.c - what particular kinds of event weigh in attribution:
 * instants (listed, never credited), page faults (candidate as instants,
 * credited as intervals), IPIs (from their send), signal handlers (credited,
 * paused while their thread is preempted), a switch-out whose return was never
 * reported (bounded by the round trip its thread timed).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyze_fixture.h"

static void test_analyze_instants_are_listed_but_never_credited(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 5000);
	add_preempt(t, t0(t, K) + 1000, 3000, "stress");
	add_event(t, TC_EV_PAGE_FAULT, PROBE_CPU, PROBE_TID, t0(t, K), 0, 6); /* at t_start */
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) + 2000, 0, 30); /* inside the preemption */
	add_event(t, TC_EV_NIC, PEER_CPU, 0, t0(t, K) + 4999, 0, TC_NIC_HEALTH);
	add_event(t, TC_EV_PAGE_FAULT, PROBE_CPU, PROBE_TID, t0(t, K) - 1, 0, 6);    /* before */
	add_event(t, TC_EV_PAGE_FAULT, PROBE_CPU, PROBE_TID, t0(t, K) + 5000, 0, 6); /* at t_end */
	add_irq(t, TC_EV_HARDIRQ, OTHER_CPU, t0(t, K) + 3000, 0, 30); /* irrelevant CPU */

	a = run(t);

	sp = &a->spikes[0];
	assert_string_equal(cause_name(a, sp->primary), "preemption:stress");
	assert_int_equal(sp->n_contrib, 4);
	assert_string_equal(cause_name(a, contrib(a, sp, 0)->cause), "page-fault");
	assert_string_equal(cause_name(a, contrib(a, sp, 1)->cause), "preemption:stress");
	assert_string_equal(cause_name(a, contrib(a, sp, 2)->cause), "hardirq:eth0");
	assert_string_equal(cause_name(a, contrib(a, sp, 3)->cause), "nic-event:devlink_health");
	for (size_t i = 0; i < 4; i++) {
		if (i == 1)
			continue;
		assert_int_equal(contrib(a, sp, i)->nested, 0);
		assert_int_equal(contrib(a, sp, i)->overlap_ns, 0);
		assert_int_equal(contrib(a, sp, i)->attributed_ns, 0);
	}
	assert_int_equal(contrib(a, sp, 1)->attributed_ns, 3000);
	assert_int_equal(a->causes[find_cause(a, "page-fault")].excess_ns, 0);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_page_fault_is_candidate_of_an_empty_spike(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	uint32_t pf;

	(void)state;
	set_rtt(t, K, 5000);
	add_event(t, TC_EV_PAGE_FAULT, PROBE_CPU, PROBE_TID, t0(t, K) + 100, 0, 6);
	/* Not a probe thread's fault: shown (probe CPU) but no candidate. */
	set_rtt(t, K + 10, 5000);
	add_event(t, TC_EV_PAGE_FAULT, PROBE_CPU, 555, t0(t, K + 10) + 100, 0, 6);
	/* A spike with a candidate keeps it. */
	set_rtt(t, K + 20, 5000);
	add_offcpu(t, t0(t, K + 20) + 1000, 1000, 0, 777, "sshd");
	add_event(t, TC_EV_PAGE_FAULT, PROBE_CPU, PROBE_TID, t0(t, K + 20) + 100, 0, 6);

	a = run(t);

	pf = find_cause(a, "page-fault");
	assert_int_equal(a->causes[pf].cls, TC_CAUSE_PAGE_FAULT);
	assert_int_equal(a->spikes[0].primary, 0);
	assert_int_equal(a->spikes[0].candidate, pf);
	assert_int_equal(a->spikes[0].n_contrib, 1);
	assert_int_equal(a->spikes[1].n_contrib, 1);
	assert_int_equal(a->spikes[1].candidate, TC_NO_CAUSE);
	assert_int_equal(a->spikes[2].candidate, find_cause(a, "blocked, then sshd ran"));
	assert_int_equal(a->causes[pf].excess_ns, 0);
	assert_int_equal(a->causes[pf].spikes, 0);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_page_fault_interval_is_credited(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;
	uint32_t pf;

	(void)state;
	/* Fresh-page faults of the probe thread fill the spike; a tick nests in one. */
	set_rtt(t, K, 5000);
	add_event(t, TC_EV_PAGE_FAULT, PROBE_CPU, PROBE_TID, t0(t, K) + 200, 2000, 6);
	add_event(t, TC_EV_PAGE_FAULT, PROBE_CPU, PROBE_TID, t0(t, K) + 2300, 2000, 6);
	add_irq(t, TC_EV_TIMER, PROBE_CPU, t0(t, K) + 2500, 300, 0);
	/* One that ended before the spike is not its cause. */
	set_rtt(t, K + 10, 5000);
	add_event(t, TC_EV_PAGE_FAULT, PROBE_CPU, PROBE_TID, t0(t, K + 10) - 4000, 4000, 6);

	a = run(t);

	pf = find_cause(a, "page-fault");
	sp = &a->spikes[0];
	assert_int_equal(sp->primary, pf);
	assert_int_equal(sp->n_contrib, 3);
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 2000);
	assert_int_equal(contrib(a, sp, 1)->attributed_ns, 2000);
	assert_int_equal(contrib(a, sp, 2)->nested, 1);
	assert_int_equal(a->causes[pf].excess_ns, 4000);
	assert_int_equal(a->causes[pf].spikes, 1);
	assert_int_not_equal(a->spikes[1].primary, pf);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_ipi_is_credited_from_its_send(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;
	uint32_t ipi;

	(void)state;
	/* A vCPU stopped 3 us for the delivery, then the handler ran 1 us. */
	set_rtt(t, K, 5000);
	add_irq(t, TC_EV_IPI, PROBE_CPU, t0(t, K) + 3500, 1000, TC_IPI_CALL_FUNCTION_SINGLE);
	t->events[t->n_events - 1].aux = t0(t, K) + 500;

	a = run(t);

	ipi = find_cause(a, "ipi:call_function_single");
	sp = &a->spikes[0];
	assert_int_equal(sp->primary, ipi);
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 4000);
	assert_int_equal(a->causes[ipi].excess_ns, 4000);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/*
 * A signal handler on the probe thread takes the credit of its span: the IRQ that
 * interrupts it and the sleep it chose are counted in it, and the reschedule IPI that
 * kicked the thread into it is its delivery, up to the handler's start
 * (test_analyze_signals.c has the rule).
 */
static void test_analyze_signal_handler_is_credited(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;
	uint32_t sig;

	(void)state;
	set_rtt(t, K, 5000);
	add_irq(t, TC_EV_IPI, PROBE_CPU, t0(t, K) + 200, 100, TC_IPI_RESCHEDULE);
	add_event(t, TC_EV_SIGNAL, PROBE_CPU, PROBE_TID, t0(t, K) + 500, 3000, 10);
	add_irq(t, TC_EV_TIMER, PROBE_CPU, t0(t, K) + 1000, 300, 0);
	add_offcpu(t, t0(t, K) + 2000, 500, 0, 0, "swapper/2"); /* the handler slept */

	a = run(t);

	sig = find_cause(a, "signal:SIGUSR1");
	assert_int_equal(a->causes[sig].cls, TC_CAUSE_SIGNAL);
	sp = &a->spikes[0];
	assert_int_equal(sp->primary, sig);
	assert_int_equal(sp->n_contrib, 4);
	assert_int_equal(contrib(a, sp, 0)->cause, sig);
	assert_int_equal(contrib(a, sp, 0)->joined, TC_JOIN_SIGNAL);
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 300);
	assert_int_equal(contrib(a, sp, 1)->cause, sig);
	assert_int_equal(contrib(a, sp, 1)->nested, 0);
	assert_int_equal(contrib(a, sp, 1)->attributed_ns, 3000);
	assert_int_equal(contrib(a, sp, 2)->nested, 1);
	assert_int_equal(contrib(a, sp, 3)->nested, 1);
	assert_int_equal(a->causes[sig].excess_ns, 3300);
	assert_int_equal(a->causes[sig].spikes, 1);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/*
 * The probe thread preempted inside its handler: the handler pauses meanwhile, the
 * preemption takes that time (an IRQ during it nests in it) and the handler the rest.
 * Another thread's preemption on that CPU stays nested in the handler (it ran instead).
 */
static void test_analyze_preemption_inside_a_handler_is_the_preemption(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;
	uint32_t sig, hog;

	(void)state;
	set_rtt(t, K, 5000);
	add_event(t, TC_EV_SIGNAL, PROBE_CPU, PROBE_TID, t0(t, K) + 200, 4000, 27);
	add_preempt(t, t0(t, K) + 1000, 2500, "stress");
	add_irq(t, TC_EV_TIMER, PROBE_CPU, t0(t, K) + 2000, 300, 0);
	set_rtt(t, K + 10, 5000);
	add_event(t, TC_EV_SIGNAL, PROBE_CPU, PEER_TID, t0(t, K + 10) + 200, 4000, 27);
	add_preempt(t, t0(t, K + 10) + 1000, 2500, "stress");

	a = run(t);

	sig = find_cause(a, "signal:SIGPROF");
	hog = find_cause(a, "preemption:stress");
	sp = &a->spikes[0];
	assert_int_equal(sp->primary, hog);
	assert_int_equal(sp->n_contrib, 3);
	assert_int_equal(contrib(a, sp, 0)->cause, sig);
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 1500);
	assert_int_equal(contrib(a, sp, 1)->cause, hog);
	assert_int_equal(contrib(a, sp, 1)->nested, 0);
	assert_int_equal(contrib(a, sp, 1)->attributed_ns, 2500);
	assert_int_equal(contrib(a, sp, 2)->nested, 1);
	sp = &a->spikes[1];
	assert_int_equal(sp->primary, sig);
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 4000);
	assert_int_equal(contrib(a, sp, 1)->nested, 1);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/*
 * The timing thread was preempted and its return never reported: it was back by the
 * end of its round trip, so the preemption spans at most until then and is credited
 * as such. So was the other thread of the probe's ping-pong: the round trip ended only
 * once it had answered. The same instant of a thread that is not the probe's (nothing
 * says when it was back) or before the round trip (it was back to take the start)
 * takes nothing.
 */
static void test_analyze_unended_preemption_is_bounded_by_the_round_trip(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;
	struct tc_event peer = {.cpu = PEER_CPU,
				.tid = PEER_TID,
				.other_pid = 69,
				.other_comm = "agent",
				.kind = TC_EV_OFFCPU,
				.flags = TC_OFFCPU_PREEMPTED | TC_OFFCPU_UNENDED};
	struct tc_event other = peer;

	(void)state;
	assert_int_equal(trace__add_thread(t, 4321, TC_THREAD_TARGET, PEER_CPU), 0);
	set_rtt(t, K, 10000);
	add_offcpu(t, t0(t, K) + 2000, 0, TC_OFFCPU_PREEMPTED | TC_OFFCPU_UNENDED, 69, "agent");
	set_rtt(t, K + 10, 10000);
	peer.start_ns = t0(t, K + 10) + 2000;
	assert_int_equal(trace__add_events(t, &peer, 1), 0);
	set_rtt(t, K + 20, 10000);
	add_offcpu(t, t0(t, K + 20) - 500, 0, TC_OFFCPU_PREEMPTED | TC_OFFCPU_UNENDED, 69, "agent");
	set_rtt(t, K + 30, 10000);
	other.tid = 4321;
	other.start_ns = t0(t, K + 30) + 2000;
	assert_int_equal(trace__add_events(t, &other, 1), 0);

	a = run(t);

	assert_int_equal(a->n_spikes, 4);
	sp = &a->spikes[0];
	assert_string_equal(cause_name(a, sp->primary), "preemption:agent");
	assert_int_equal(contrib(a, sp, 0)->overlap_ns, 8000);
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 8000);
	sp = &a->spikes[1];
	assert_string_equal(cause_name(a, sp->primary), "preemption:agent");
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 8000);
	assert_string_equal(cause_name(a, a->spikes[2].primary), "unattributed");
	assert_string_equal(cause_name(a, a->spikes[3].primary), "unattributed");
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/*
 * Recorded without --signal-ends: a handler that ran on the timing thread is an
 * instant at its delivery, and spans at most until the end of the round trip it falls
 * in. A default action (no handler) stays an instant.
 */
static void test_analyze_untraced_handler_end_is_bounded_by_the_round_trip(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, K, 10000);
	add_event(t, TC_EV_SIGNAL, PROBE_CPU, PROBE_TID, t0(t, K) + 3000, 0, 27);
	t->events[t->n_events - 1].flags = TC_SIGNAL_END_UNTRACED;
	set_rtt(t, K + 10, 10000);
	add_event(t, TC_EV_SIGNAL, PROBE_CPU, PROBE_TID, t0(t, K + 10) + 3000, 0, 27);
	t->events[t->n_events - 1].flags = TC_SIGNAL_NO_HANDLER;

	a = run(t);

	assert_int_equal(a->n_spikes, 2);
	assert_string_equal(cause_name(a, a->spikes[0].primary), "signal:SIGPROF");
	assert_int_equal(contrib(a, &a->spikes[0], 0)->attributed_ns, 7000);
	assert_string_equal(cause_name(a, a->spikes[1].primary), "unattributed");
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_analyze_instants_are_listed_but_never_credited),
		cmocka_unit_test(test_analyze_page_fault_is_candidate_of_an_empty_spike),
		cmocka_unit_test(test_analyze_page_fault_interval_is_credited),
		cmocka_unit_test(test_analyze_ipi_is_credited_from_its_send),
		cmocka_unit_test(test_analyze_signal_handler_is_credited),
		cmocka_unit_test(test_analyze_preemption_inside_a_handler_is_the_preemption),
		cmocka_unit_test(test_analyze_unended_preemption_is_bounded_by_the_round_trip),
		cmocka_unit_test(test_analyze_untraced_handler_end_is_bounded_by_the_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
