// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_analyze_signals.c - a reschedule IPI that carried a signal to the thread running on
 * its CPU (followed there by that signal's delivery, nothing else begun in between, no
 * preemption it led to) is that signal's delivery: it takes the signal's cause and spans
 * until the handler's start. Any other interrupt, or one not followed so, keeps its own;
 * one that woke a preempting task keeps that join.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyze_fixture.h"
#include "core/attrib/describe.h"

#define SIGUSR1_NO 10

/* An IPI of kind on cpu: sent at sent, run over [start, start + dur). */
static void add_ipi(struct tc_trace *t, uint32_t kind, uint32_t cpu, uint64_t sent, uint64_t start,
		    uint64_t dur)
{
	add_irq(t, TC_EV_IPI, cpu, start, dur, kind);
	t->events[t->n_events - 1].sent_ns = sent;
}

/* SIGUSR1 delivered to tid on cpu at start, its handler run for dur (0: an instant of
 * flags), sent by process 4242. */
static void add_signal(struct tc_trace *t, uint32_t cpu, uint32_t tid, uint64_t start, uint64_t dur,
		       uint16_t flags)
{
	add_event(t, TC_EV_SIGNAL, cpu, tid, start, dur, SIGUSR1_NO);
	t->events[t->n_events - 1].flags = flags;
	t->events[t->n_events - 1].other_pid = 4242;
	memcpy(t->events[t->n_events - 1].other_comm, "sender", 7);
}

static const char *primary(const struct tc_analysis *a, size_t spike)
{
	assert_true(spike < a->n_spikes);
	return cause_name(a, a->spikes[spike].primary);
}

/* The contrib of sp for the event of kind, or fail. */
static const struct tc_contrib *contrib_of(const struct tc_trace *t, const struct tc_analysis *a,
					   const struct tc_spike *sp, uint16_t kind)
{
	for (size_t i = 0; i < sp->n_contrib; i++)
		if (t->events[contrib(a, sp, i)->event].kind == kind)
			return contrib(a, sp, i);
	fail_msg("no event of kind %u in the spike", kind);
	return NULL;
}

/* A cause's spikes and excess, 0 where it has none (or no entry: the report lists neither). */
static uint64_t cause_weight(const struct tc_analysis *a, const char *name)
{
	for (size_t i = 0; i < a->n_causes; i++)
		if (!strcmp(a->causes[i].name, name))
			return a->causes[i].spikes + a->causes[i].excess_ns;
	return 0;
}

/*
 * The IPI was delivered over 2.5 us and ran 0.5 us; 0.2 us later the signal it carried
 * was delivered and its handler ran 0.5 us. Alone the IPI would be the larger cause; as
 * the signal's delivery, its 3 us and the 0.2 us until the handler are the signal's,
 * which is the spike's cause with all 3.7 us. Recorded without --signal-ends the handler
 * is an instant bounded by its round trip, and the IPI is its delivery all the same.
 */
static void test_signals_reschedule_ipi_is_the_delivery(void **state)
{
	struct tc_trace *t = new_trace();
	const struct tc_contrib *ipi, *hdl;
	struct tc_analysis *a;
	const struct tc_spike *sp;
	uint32_t sig;

	(void)state;
	set_rtt(t, K, 5000);
	add_ipi(t, TC_IPI_RESCHEDULE, PROBE_CPU, t0(t, K), t0(t, K) + 2500, 500);
	add_signal(t, PROBE_CPU, PROBE_TID, t0(t, K) + 3200, 500, 0);
	set_rtt(t, K + 10, 5000);
	add_ipi(t, TC_IPI_RESCHEDULE, PROBE_CPU, t0(t, K + 10), t0(t, K + 10) + 2500, 500);
	add_signal(t, PROBE_CPU, PROBE_TID, t0(t, K + 10) + 3200, 0, TC_SIGNAL_END_UNTRACED);

	a = run(t);

	sig = find_cause(a, "signal:SIGUSR1");
	assert_int_equal(a->n_spikes, 2);
	sp = &a->spikes[0];
	assert_int_equal(sp->primary, sig);
	assert_int_equal(sp->n_contrib, 2);
	ipi = contrib_of(t, a, sp, TC_EV_IPI);
	hdl = contrib_of(t, a, sp, TC_EV_SIGNAL);
	assert_int_equal(ipi->cause, sig);
	assert_int_equal(ipi->joined, TC_JOIN_SIGNAL);
	assert_int_equal(ipi->nested, 0);
	assert_int_equal(ipi->attributed_ns, 3200);
	assert_int_equal(ipi->overlap_ns, 3200);
	assert_int_equal(hdl->joined, TC_JOIN_NONE);
	assert_int_equal(hdl->attributed_ns, 500);
	assert_non_null(describe_mark(ipi));
	assert_non_null(strstr(describe_mark(ipi), "carried the signal"));
	assert_null(describe_mark(hdl));
	sp = &a->spikes[1];
	assert_int_equal(sp->primary, sig);
	ipi = contrib_of(t, a, sp, TC_EV_IPI);
	assert_int_equal(ipi->joined, TC_JOIN_SIGNAL);
	assert_int_equal(ipi->cause, sig);
	assert_int_equal(a->causes[sig].spikes, 2);
	assert_int_equal(a->causes[sig].excess_ns, 3700 + 4000);
	assert_int_equal(cause_weight(a, "ipi:reschedule"), 0);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/*
 * An IPI followed by the probe thread's preemption let the preempting task in: it joins
 * that preemption as before, even where a signal is delivered once the thread is back
 * (the kernel switches before it delivers).
 */
static void test_signals_ipi_before_a_preemption_joins_the_preemption(void **state)
{
	struct tc_trace *t = new_trace();
	const struct tc_contrib *ipi, *hdl;
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 5000);
	add_ipi(t, TC_IPI_RESCHEDULE, PROBE_CPU, t0(t, K), t0(t, K) + 2500, 500);
	add_preempt(t, t0(t, K) + 3200, 500, "hog");
	add_signal(t, PROBE_CPU, PROBE_TID, t0(t, K) + 3800, 200, 0);

	a = run(t);

	sp = &a->spikes[0];
	assert_string_equal(primary(a, 0), "preemption:hog");
	ipi = contrib_of(t, a, sp, TC_EV_IPI);
	hdl = contrib_of(t, a, sp, TC_EV_SIGNAL);
	assert_int_equal(ipi->joined, TC_JOIN_WAKEUP);
	assert_string_equal(cause_name(a, ipi->cause), "preemption:hog");
	assert_int_equal(ipi->attributed_ns, 3200);
	assert_string_equal(cause_name(a, hdl->cause), "signal:SIGUSR1");
	assert_int_equal(hdl->attributed_ns, 200);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/*
 * Not the signal's delivery: a reschedule IPI with a device interrupt begun between its
 * end and the delivery; a call-function IPI (its work is its own); a reschedule IPI that
 * came while the thread slept (it was not running: its signal woke it); one whose
 * delivery is on another CPU; one that came once the handler had begun.
 */
static void test_signals_other_ipis_keep_their_cause(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 5000); /* an IRQ in between */
	add_ipi(t, TC_IPI_RESCHEDULE, PROBE_CPU, t0(t, K), t0(t, K) + 2500, 500);
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) + 3050, 100, 30);
	add_signal(t, PROBE_CPU, PROBE_TID, t0(t, K) + 3200, 500, 0);
	set_rtt(t, K + 10, 5000); /* a call-function IPI */
	add_ipi(t, TC_IPI_CALL_FUNCTION_SINGLE, PROBE_CPU, t0(t, K + 10), t0(t, K + 10) + 2500,
		500);
	add_signal(t, PROBE_CPU, PROBE_TID, t0(t, K + 10) + 3200, 500, 0);
	set_rtt(t, K + 20, 5000); /* the thread was asleep */
	add_offcpu(t, t0(t, K + 20) + 100, 3000, 0, 0, "swapper/2");
	add_ipi(t, TC_IPI_RESCHEDULE, PROBE_CPU, t0(t, K + 20), t0(t, K + 20) + 2500, 500);
	add_signal(t, PROBE_CPU, PROBE_TID, t0(t, K + 20) + 3200, 500, 0);
	set_rtt(t, K + 30, 5000); /* delivered on the peer's CPU */
	add_ipi(t, TC_IPI_RESCHEDULE, PROBE_CPU, t0(t, K + 30), t0(t, K + 30) + 2500, 500);
	add_signal(t, PEER_CPU, PEER_TID, t0(t, K + 30) + 3200, 500, 0);
	set_rtt(t, K + 40, 5000); /* inside the handler */
	add_signal(t, PROBE_CPU, PROBE_TID, t0(t, K + 40) + 200, 500, 0);
	add_ipi(t, TC_IPI_RESCHEDULE, PROBE_CPU, t0(t, K + 40), t0(t, K + 40) + 2500, 500);

	a = run(t);

	assert_int_equal(a->n_spikes, 5);
	assert_string_equal(primary(a, 0), "ipi:reschedule");
	sp = &a->spikes[0];
	assert_string_equal(cause_name(a, contrib_of(t, a, sp, TC_EV_HARDIRQ)->cause),
			    "hardirq:eth0");
	assert_string_equal(primary(a, 1), "ipi:call_function_single");
	assert_string_equal(primary(a, 2), "ipi:reschedule");
	assert_string_equal(primary(a, 3), "ipi:reschedule");
	assert_string_equal(primary(a, 4), "ipi:reschedule");
	for (size_t s = 0; s < a->n_spikes; s++) {
		sp = &a->spikes[s];
		assert_string_equal(cause_name(a, contrib_of(t, a, sp, TC_EV_IPI)->cause),
				    s == 1 ? "ipi:call_function_single" : "ipi:reschedule");
	}
	for (size_t i = 0; i < a->n_contribs; i++)
		assert_int_equal(a->contribs[i].joined, TC_JOIN_NONE);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/*
 * A signal with no IPI before it (sent from its own CPU, or by its own timer) is credited
 * as before; a device interrupt right before a delivery is the interrupt's, not the
 * signal's: its work is its own.
 */
static void test_signals_without_an_ipi_are_unchanged(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 5000);
	add_signal(t, PROBE_CPU, PROBE_TID, t0(t, K) + 500, 3000, 0);
	set_rtt(t, K + 10, 5000);
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K + 10) + 100, 3000, 30);
	add_signal(t, PROBE_CPU, PROBE_TID, t0(t, K + 10) + 3200, 500, 0);

	a = run(t);

	assert_int_equal(a->n_spikes, 2);
	sp = &a->spikes[0];
	assert_string_equal(primary(a, 0), "signal:SIGUSR1");
	assert_int_equal(sp->n_contrib, 1);
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 3000);
	sp = &a->spikes[1];
	assert_string_equal(primary(a, 1), "hardirq:eth0");
	assert_int_equal(contrib_of(t, a, sp, TC_EV_HARDIRQ)->attributed_ns, 3000);
	assert_int_equal(contrib_of(t, a, sp, TC_EV_SIGNAL)->attributed_ns, 500);
	for (size_t i = 0; i < a->n_contribs; i++)
		assert_int_equal(a->contribs[i].joined, TC_JOIN_NONE);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signals_reschedule_ipi_is_the_delivery),
		cmocka_unit_test(test_signals_ipi_before_a_preemption_joins_the_preemption),
		cmocka_unit_test(test_signals_other_ipis_keep_their_cause),
		cmocka_unit_test(test_signals_without_an_ipi_are_unchanged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
