// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_analyze_wakers.c - a wake-up interrupt (a reschedule IPI, a call-function IPI that
 * ran queued wake-ups, a timer whose callback only wakes a sleeper) followed in the spike by the
 * probe thread's preemption on its CPU is credited to that preemption's cause; any other interrupt,
 * or one not followed so, keeps its own.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyze_fixture.h"
#include "core/attrib/describe.h"

#define WAKEUP_FN 0xffffffff81190e50ull
#define TICK_FN	  0xffffffff814428a0ull

/* A reschedule IPI (or kind) on cpu: sent at sent, run over [start, start + dur). */
static void add_ipi(struct tc_trace *t, uint32_t kind, uint32_t cpu, uint64_t sent, uint64_t start,
		    uint64_t dur)
{
	add_irq(t, TC_EV_IPI, cpu, start, dur, kind);
	t->events[t->n_events - 1].sent_ns = sent;
}

/* A local timer interrupt over [start, start + dur) whose one callback is func. */
static void add_timer(struct tc_trace *t, uint64_t start, uint64_t dur, uint64_t func)
{
	add_irq(t, TC_EV_TIMER, PROBE_CPU, start, dur, 0);
	add_event(t, TC_EV_TIMER_FN, PROBE_CPU, 0, start + 100, dur - 200, TC_TIMER_HRTIMER);
	t->events[t->n_events - 1].func = func;
}

static const char *primary(const struct tc_analysis *a, size_t spike)
{
	assert_true(spike < a->n_spikes);
	return cause_name(a, a->spikes[spike].primary);
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
 * The IPI was delivered over 2.5 us and ran 0.5 us; 0.2 us later the task it woke took
 * the CPU for 0.8 us. Alone the IPI would be the larger cause; as the hog's way in, its
 * 3 us and the 0.2 us until the switch are the hog's, and the hog is the spike's cause
 * with all 4 us. In a second spike an IRQ runs in that gap: the gap is the IRQ's.
 */
static void test_wakers_reschedule_ipi_is_the_preemption(void **state)
{
	struct tc_trace *t = new_trace();
	const struct tc_contrib *ipi, *off;
	struct tc_analysis *a;
	const struct tc_spike *sp;
	uint32_t hog;

	(void)state;
	set_rtt(t, K, 5000);
	add_ipi(t, TC_IPI_RESCHEDULE, PROBE_CPU, t0(t, K), t0(t, K) + 2500, 500);
	add_preempt(t, t0(t, K) + 3200, 800, "hog");
	set_rtt(t, K + 10, 5000);
	add_ipi(t, TC_IPI_RESCHEDULE, PROBE_CPU, t0(t, K + 10), t0(t, K + 10) + 2500, 500);
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K + 10) + 3050, 100, 30);
	add_preempt(t, t0(t, K + 10) + 3200, 800, "hog");

	a = run(t);

	hog = find_cause(a, "preemption:hog");
	sp = &a->spikes[0];
	assert_int_equal(sp->primary, hog);
	assert_int_equal(sp->n_contrib, 2);
	ipi = contrib(a, sp, 0);
	off = contrib(a, sp, 1);
	assert_int_equal(ipi->cause, hog);
	assert_int_equal(ipi->joined, 1);
	assert_int_equal(ipi->nested, 0);
	assert_int_equal(ipi->attributed_ns, 3200);
	assert_int_equal(ipi->overlap_ns, 3200);
	assert_int_equal(off->joined, 0);
	assert_int_equal(off->attributed_ns, 800);
	sp = &a->spikes[1];
	assert_int_equal(sp->primary, hog);
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 3000);
	assert_string_equal(cause_name(a, contrib(a, sp, 1)->cause), "hardirq:eth0");
	assert_int_equal(contrib(a, sp, 1)->attributed_ns, 100);
	assert_int_equal(a->causes[hog].excess_ns, 4000 + 3800);
	assert_int_equal(a->causes[hog].spikes, 2);
	assert_int_equal(cause_weight(a, "ipi:reschedule"), 0);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/*
 * Not a way in: a reschedule IPI with no preemption after it, one whose preemption is on
 * another CPU, one sent before the preemption began but run inside it (the CPU was taken
 * before it), one whose preemption starts after the window, and a call-function IPI (its
 * work is its own) before a preemption.
 */
static void test_wakers_other_ipis_keep_their_cause(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 5000); /* no preemption */
	add_ipi(t, TC_IPI_RESCHEDULE, PROBE_CPU, t0(t, K), t0(t, K) + 2500, 500);
	set_rtt(t, K + 10, 5000); /* the preemption on the peer's CPU */
	add_ipi(t, TC_IPI_RESCHEDULE, PROBE_CPU, t0(t, K + 10), t0(t, K + 10) + 2500, 500);
	add_event(t, TC_EV_OFFCPU, PEER_CPU, PEER_TID, t0(t, K + 10) + 3200, 800, 0);
	t->events[t->n_events - 1].flags = TC_OFFCPU_PREEMPTED;
	set_rtt(t, K + 20, 5000); /* sent before the preemption, run inside it */
	add_preempt(t, t0(t, K + 20) + 500, 3000, "hog");
	add_ipi(t, TC_IPI_RESCHEDULE, PROBE_CPU, t0(t, K + 20) + 100, t0(t, K + 20) + 1000, 500);
	set_rtt(t, K + 30, 5000); /* the preemption after the window */
	add_ipi(t, TC_IPI_RESCHEDULE, PROBE_CPU, t0(t, K + 30), t0(t, K + 30) + 2500, 500);
	add_preempt(t, t0(t, K + 30) + 5200, 800, "hog");
	set_rtt(t, K + 40, 5000); /* a call-function IPI */
	add_ipi(t, TC_IPI_CALL_FUNCTION_SINGLE, PROBE_CPU, t0(t, K + 40), t0(t, K + 40) + 2500,
		500);
	add_preempt(t, t0(t, K + 40) + 3200, 800, "hog");

	a = run(t);

	assert_int_equal(a->n_spikes, 5);
	assert_string_equal(primary(a, 0), "ipi:reschedule");
	assert_string_equal(primary(a, 1), "ipi:reschedule");
	sp = &a->spikes[2];
	assert_string_equal(primary(a, 2), "preemption:hog");
	assert_string_equal(cause_name(a, contrib(a, sp, 1)->cause), "ipi:reschedule");
	assert_int_equal(contrib(a, sp, 1)->joined, 0);
	assert_string_equal(primary(a, 3), "ipi:reschedule");
	sp = &a->spikes[4];
	assert_string_equal(primary(a, 4), "ipi:call_function_single");
	assert_int_equal(contrib(a, sp, 0)->joined, 0);
	for (size_t i = 0; i < a->n_contribs; i++)
		assert_int_equal(a->contribs[i].joined, 0);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/*
 * Between CPUs that share no cache the waker queues the wake-up and a call-function IPI
 * runs it (flag TC_IPI_TTWU): that IPI is the preempting task's way in, on either
 * call-function vector. Its detail says what it ran. A replayed shape: the test VM's two
 * vCPUs share one L3, so a busy probe CPU there is reached by a reschedule IPI
 * (test_tracers sees the flag on the real kernel, on an idle CPU).
 */
static void test_wakers_queued_wakeup_ipi_is_the_preemption(void **state)
{
	struct tc_trace *t = new_trace();
	const struct tc_contrib *ipi;
	struct tc_analysis *a;
	char detail[256];
	uint32_t hog;

	(void)state;
	set_rtt(t, K, 5000);
	add_ipi(t, TC_IPI_CALL_FUNCTION_SINGLE, PROBE_CPU, t0(t, K), t0(t, K) + 2500, 500);
	t->events[t->n_events - 1].flags = TC_IPI_TTWU;
	add_preempt(t, t0(t, K) + 3200, 800, "hog");
	set_rtt(t, K + 10, 5000);
	add_ipi(t, TC_IPI_CALL_FUNCTION, PROBE_CPU, t0(t, K + 10), t0(t, K + 10) + 2500, 500);
	t->events[t->n_events - 1].flags = TC_IPI_TTWU;
	add_preempt(t, t0(t, K + 10) + 3200, 800, "hog");

	a = run(t);

	hog = find_cause(a, "preemption:hog");
	assert_int_equal(a->n_spikes, 2);
	for (size_t s = 0; s < 2; s++) {
		assert_int_equal(a->spikes[s].primary, hog);
		ipi = contrib(a, &a->spikes[s], 0);
		assert_int_equal(ipi->cause, hog);
		assert_int_equal(ipi->joined, 1);
		assert_int_equal(ipi->attributed_ns, 3200);
	}
	describe_event(t, &t->events[contrib(a, &a->spikes[0], 0)->event], detail, sizeof(detail));
	assert_non_null(strstr(detail, "running wake-ups queued from another CPU"));
	assert_int_equal(cause_weight(a, "ipi:call_function_single"), 0);
	assert_int_equal(cause_weight(a, "ipi:call_function"), 0);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/*
 * A probe thread that slept and was woken: the reschedule IPI that woke it is not another
 * task's way in, nor is its wait for the CPU afterwards a preemption of a running thread.
 */
static void test_wakers_a_woken_wait_is_not_a_preemption(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 5000);
	add_offcpu(t, t0(t, K) + 100, 2000, 0, 0, "swapper/2");
	add_ipi(t, TC_IPI_RESCHEDULE, PROBE_CPU, t0(t, K) + 1000, t0(t, K) + 2000, 500);
	add_offcpu(t, t0(t, K) + 2600, 1000, TC_OFFCPU_PREEMPTED | TC_OFFCPU_WOKEN, 555, "hog");

	a = run(t);

	sp = &a->spikes[0];
	assert_string_equal(primary(a, 0), "ipi:reschedule");
	for (size_t i = 0; i < sp->n_contrib; i++)
		assert_int_equal(contrib(a, sp, i)->joined, 0);
	analysis__free(a);
	trace__free(t);
}

/*
 * A timer interrupt whose callback woke a sleeper, then that sleeper's preemption: the
 * preemption's; a tick before a preemption stays the tick's (it runs whether or not).
 */
static void test_wakers_a_wakeup_timer_is_the_preemption(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	assert_int_equal(trace__set_meta(t, "ksym.ffffffff81190e50", "hrtimer_wakeup"), 0);
	assert_int_equal(trace__set_meta(t, "ksym.ffffffff814428a0", "tick_nohz_handler"), 0);
	set_rtt(t, K, 5000);
	add_timer(t, t0(t, K) + 500, 2500, WAKEUP_FN);
	add_preempt(t, t0(t, K) + 3200, 800, "sleeper");
	set_rtt(t, K + 10, 5000);
	add_timer(t, t0(t, K + 10) + 500, 2500, TICK_FN);
	add_preempt(t, t0(t, K + 10) + 3200, 800, "sleeper");

	a = run(t);

	assert_int_equal(a->n_spikes, 2);
	sp = &a->spikes[0];
	assert_string_equal(primary(a, 0), "preemption:sleeper");
	assert_int_equal(contrib(a, sp, 0)->joined, 1);
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 2700); /* to the switch */
	assert_string_equal(cause_name(a, contrib(a, sp, 1)->cause), "timer:hrtimer_wakeup");
	assert_int_equal(contrib(a, sp, 1)->nested, 1);
	assert_int_equal(a->causes[find_cause(a, "preemption:sleeper")].excess_ns,
			 2700 + 800 + 800);
	sp = &a->spikes[1];
	assert_string_equal(primary(a, 1), "timer:tick");
	assert_int_equal(contrib(a, sp, 0)->joined, 0);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/* The preempting task's own off-CPU interval on the probe's CPU, ending where it took the
 * CPU at `at`: woken `woken` ns after its start (0: preempted there, runnable throughout). */
static void add_preemptor_wait(struct tc_trace *t, uint64_t at, uint64_t woken)
{
	add_event(t, TC_EV_OFFCPU, PROBE_CPU, 555, at - 20000, 20000, 0);
	t->events[t->n_events - 1].flags = woken ? 0 : TC_OFFCPU_PREEMPTED;
	t->events[t->n_events - 1].woken_after_ns = woken;
}

/*
 * Where the preempting task is traced, its own wait says whether the interrupt can have
 * woken it: a timer's wake-up callback before the preemption by a thread woken long
 * before it (the probe's thread woke its partner itself), or runnable all along, keeps
 * its own cause; one woken inside the timer is the preemption's, and so is one woken
 * before a reschedule IPI (that IPI follows its wake-up).
 */
static void test_wakers_a_preemptor_woken_elsewhere_keeps_the_interrupt(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	assert_int_equal(trace__set_meta(t, "ksym.ffffffff81190e50", "hrtimer_wakeup"), 0);
	set_rtt(t, K, 5000); /* woken before the timer */
	add_timer(t, t0(t, K) + 500, 2500, WAKEUP_FN);
	add_preemptor_wait(t, t0(t, K) + 3200, 20000 - 3200 - 200);
	add_preempt(t, t0(t, K) + 3200, 800, "partner");
	set_rtt(t, K + 10, 5000); /* runnable all along */
	add_timer(t, t0(t, K + 10) + 500, 2500, WAKEUP_FN);
	add_preemptor_wait(t, t0(t, K + 10) + 3200, 0);
	add_preempt(t, t0(t, K + 10) + 3200, 800, "partner");
	set_rtt(t, K + 20, 5000); /* woken inside the timer */
	add_timer(t, t0(t, K + 20) + 500, 2500, WAKEUP_FN);
	add_preemptor_wait(t, t0(t, K + 20) + 3200, 20000 - 3200 + 1000);
	add_preempt(t, t0(t, K + 20) + 3200, 800, "partner");
	set_rtt(t, K + 30, 5000); /* woken before a reschedule IPI */
	add_ipi(t, TC_IPI_RESCHEDULE, PROBE_CPU, t0(t, K + 30), t0(t, K + 30) + 2500, 500);
	add_preemptor_wait(t, t0(t, K + 30) + 3200, 20000 - 3200 - 100);
	add_preempt(t, t0(t, K + 30) + 3200, 800, "partner");

	a = run(t);

	assert_int_equal(a->n_spikes, 4);
	assert_string_equal(primary(a, 0), "timer:hrtimer_wakeup");
	assert_string_equal(primary(a, 1), "timer:hrtimer_wakeup");
	assert_string_equal(primary(a, 2), "preemption:partner");
	assert_string_equal(primary(a, 3), "preemption:partner");
	for (size_t s = 0; s < 4; s++) {
		const struct tc_spike *sp = &a->spikes[s];
		int joined = 0;

		for (size_t i = 0; i < sp->n_contrib; i++)
			joined += contrib(a, sp, i)->joined;
		assert_int_equal(joined, s >= 2);
	}
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wakers_reschedule_ipi_is_the_preemption),
		cmocka_unit_test(test_wakers_other_ipis_keep_their_cause),
		cmocka_unit_test(test_wakers_queued_wakeup_ipi_is_the_preemption),
		cmocka_unit_test(test_wakers_a_woken_wait_is_not_a_preemption),
		cmocka_unit_test(test_wakers_a_wakeup_timer_is_the_preemption),
		cmocka_unit_test(test_wakers_a_preemptor_woken_elsewhere_keeps_the_interrupt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
