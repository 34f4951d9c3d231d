// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_analyze_callbacks.c - intervals named by the callbacks that ran inside
 * them, through the whole analysis: a local timer interrupt or a TIMER softirq
 * by its timer callback (timer:tick, timer:<function>), a kworker's preemption
 * by its work function; and NMIs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyze_fixture.h"

#define TICK_FN	   0xffffffff814428a0ull
#define TIMERFD_FN 0xffffffff81756fc0ull
#define BLK_FN	   0xffffffff81b4d460ull
#define WORK_FN	   0xffffffff81234560ull

static void name_funcs(struct tc_trace *t)
{
	assert_int_equal(trace__set_meta(t, "ksym.ffffffff814428a0", "tick_nohz_handler"), 0);
	assert_int_equal(trace__set_meta(t, "ksym.ffffffff81756fc0", "timerfd_tmrproc"), 0);
	assert_int_equal(trace__set_meta(t, "ksym.ffffffff81b4d460", "blk_stat_timer_fn"), 0);
	assert_int_equal(trace__set_meta(t, "ksym.ffffffff81234560", "vmstat_update"), 0);
}

static void add_callback(struct tc_trace *t, uint16_t kind, uint32_t arg, uint64_t start,
			 uint64_t dur, uint64_t func)
{
	add_event(t, kind, PROBE_CPU, 0, start, dur, arg);
	t->events[t->n_events - 1].func = func;
}

static void add_timer_fn(struct tc_trace *t, uint64_t start, uint64_t dur, uint64_t func)
{
	add_callback(t, TC_EV_TIMER_FN, TC_TIMER_HRTIMER, start, dur, func);
}

static const char *primary(const struct tc_analysis *a, size_t spike)
{
	assert_true(spike < a->n_spikes);
	return cause_name(a, a->spikes[spike].primary);
}

/*
 * The callback with the most time inside the interrupt names it; the callbacks nest
 * in it and take no credit of their own. An interrupt without one stays `timer`.
 */
static void test_callbacks_name_the_timer_interrupt(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	name_funcs(t);
	set_rtt(t, K, 5000);
	add_irq(t, TC_EV_TIMER, PROBE_CPU, t0(t, K) + 1000, 3000, 0);
	add_timer_fn(t, t0(t, K) + 1200, 1000, TICK_FN);
	add_timer_fn(t, t0(t, K) + 2300, 300, TIMERFD_FN);
	set_rtt(t, K + 10, 5000);
	add_irq(t, TC_EV_TIMER, PROBE_CPU, t0(t, K + 10) + 1000, 3000, 0);
	add_timer_fn(t, t0(t, K + 10) + 1100, 200, TIMERFD_FN);
	set_rtt(t, K + 20, 5000);
	add_irq(t, TC_EV_TIMER, PROBE_CPU, t0(t, K + 20) + 1000, 3000, 0);

	a = run(t);

	assert_int_equal(a->n_spikes, 3);
	sp = &a->spikes[0];
	assert_string_equal(primary(a, 0), "timer:tick");
	assert_int_equal(sp->n_contrib, 3);
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 3000);
	assert_int_equal(contrib(a, sp, 1)->nested, 1);
	assert_int_equal(contrib(a, sp, 2)->nested, 1);
	assert_string_equal(cause_name(a, contrib(a, sp, 2)->cause), "timer:timerfd_tmrproc");
	assert_string_equal(primary(a, 1), "timer:timerfd_tmrproc");
	assert_string_equal(primary(a, 2), "timer");
	assert_int_equal(a->causes[find_cause(a, "timer:tick")].excess_ns, 3000);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/*
 * A spike window that holds only the end of an interrupt still names it by the
 * callback that ran inside it before the window began; that callback is not in the
 * spike's timeline, and names no later interrupt.
 */
static void test_callbacks_name_an_interrupt_the_window_clips(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	name_funcs(t);
	set_rtt(t, K, 5000);
	add_irq(t, TC_EV_TIMER, PROBE_CPU, t0(t, K) - 2000, 4000, 0);
	add_timer_fn(t, t0(t, K) - 1800, 1500, TIMERFD_FN);
	add_irq(t, TC_EV_TIMER, PROBE_CPU, t0(t, K) + 3000, 1500, 0);
	/* The next sample's window again holds only the end of an interrupt. */
	set_rtt(t, K + 1, 5000);
	add_irq(t, TC_EV_TIMER, PROBE_CPU, t0(t, K + 1) - 3000, 4000, 0);
	add_timer_fn(t, t0(t, K + 1) - 2500, 500, TICK_FN);
	add_timer_fn(t, t0(t, K + 1) - 1500, 1000, TIMERFD_FN);
	add_timer_fn(t, t0(t, K + 1) + 200, 300, TICK_FN); /* the only one in the window */

	a = run(t);

	assert_int_equal(a->n_spikes, 2);
	sp = &a->spikes[0];
	assert_int_equal(sp->n_contrib, 2);
	assert_string_equal(cause_name(a, contrib(a, sp, 0)->cause), "timer:timerfd_tmrproc");
	assert_int_equal(contrib(a, sp, 0)->overlap_ns, 2000);
	assert_string_equal(cause_name(a, contrib(a, sp, 1)->cause), "timer");
	/* Time inside the window comes first: the tick ran there, the timerfd before. */
	sp = &a->spikes[1];
	assert_int_equal(sp->n_contrib, 2);
	assert_string_equal(cause_name(a, contrib(a, sp, 0)->cause), "timer:tick");
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/*
 * A window that ends inside an interrupt before its callback began: the callback the
 * sweep has not reached yet names it all the same, and is not in the timeline.
 */
static void test_callbacks_name_an_interrupt_the_window_ends_in(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	name_funcs(t);
	set_rtt(t, K, 5000);
	add_irq(t, TC_EV_TIMER, PROBE_CPU, t0(t, K) + 2000, 4000, 0);
	add_timer_fn(t, t0(t, K) + 5500, 300, TIMERFD_FN);
	add_event(t, TC_EV_HARDIRQ, PEER_CPU, 0, t0(t, K) + 5200, 100, 30);
	/* Another CPU's callback inside that time names nothing here. */
	set_rtt(t, K + 10, 5000);
	add_irq(t, TC_EV_TIMER, PROBE_CPU, t0(t, K + 10) + 2000, 4000, 0);
	add_event(t, TC_EV_TIMER_FN, PEER_CPU, 0, t0(t, K + 10) + 5500, 300, TC_TIMER_HRTIMER);
	t->events[t->n_events - 1].func = TICK_FN;

	a = run(t);

	sp = &a->spikes[0];
	assert_string_equal(primary(a, 0), "timer:timerfd_tmrproc");
	assert_int_equal(sp->n_contrib, 1);
	assert_int_equal(contrib(a, sp, 0)->overlap_ns, 3000);
	assert_string_equal(primary(a, 1), "timer");
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/*
 * A calibrated timer interrupt starts before its event by its hidden entry cost: one
 * that begins just after the window still reaches into it, and its callback, after
 * the window too, names it there.
 */
static void test_callbacks_name_a_calibrated_interrupt_after_the_window(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	name_funcs(t);
	assert_int_equal(trace__set_meta(t, "calib.loop_ns", "40"), 0);
	assert_int_equal(trace__set_meta(t, "calib.timer.n", "50"), 0);
	assert_int_equal(trace__set_meta(t, "calib.timer.pre_ns", "7000"), 0);
	assert_int_equal(trace__set_meta(t, "calib.timer.post_ns", "0"), 0);
	set_rtt(t, K, 8000);
	/* The window ends at t0 + 8000: the interrupt's hidden entry overlaps its last 2 us. */
	add_irq(t, TC_EV_TIMER, PROBE_CPU, t0(t, K) + 13000, 5000, 0);
	add_timer_fn(t, t0(t, K) + 13300, 300, TIMERFD_FN);

	a = run(t);

	sp = &a->spikes[0];
	assert_int_equal(sp->n_contrib, 1);
	assert_string_equal(cause_name(a, contrib(a, sp, 0)->cause), "timer:timerfd_tmrproc");
	assert_int_equal(contrib(a, sp, 0)->overlap_ns, 2000);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/* The TIMER softirq by its timer-list callback, an HRTIMER one by its soft hrtimer. */
static void test_callbacks_name_the_timer_softirqs(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	name_funcs(t);
	set_rtt(t, K, 5000);
	add_irq(t, TC_EV_SOFTIRQ, PROBE_CPU, t0(t, K) + 1000, 3000, 1);
	add_callback(t, TC_EV_TIMER_FN, TC_TIMER_LIST, t0(t, K) + 1500, 2000, BLK_FN);
	set_rtt(t, K + 10, 5000);
	add_irq(t, TC_EV_SOFTIRQ, PROBE_CPU, t0(t, K + 10) + 1000, 3000, 8);
	add_timer_fn(t, t0(t, K + 10) + 1500, 2000, TIMERFD_FN);
	set_rtt(t, K + 20, 5000);
	add_irq(t, TC_EV_SOFTIRQ, PROBE_CPU, t0(t, K + 20) + 1000, 3000, 1);

	a = run(t);

	assert_string_equal(primary(a, 0), "timer:blk_stat_timer_fn");
	assert_string_equal(primary(a, 1), "timer:timerfd_tmrproc");
	assert_string_equal(primary(a, 2), "softirq:timer");
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/* A kworker's preemption by the work it ran inside it, also before the window. */
static void test_callbacks_name_a_kworker_preemption(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	name_funcs(t);
	set_rtt(t, K, 5000);
	add_preempt(t, t0(t, K) + 500, 4000, "kworker/2:1");
	add_callback(t, TC_EV_WORK, 0, t0(t, K) + 1000, 2000, WORK_FN);
	set_rtt(t, K + 10, 5000);
	add_preempt(t, t0(t, K + 10) - 5000, 9000, "kworker/2:1");
	add_callback(t, TC_EV_WORK, 0, t0(t, K + 10) - 4000, 2000, WORK_FN);
	set_rtt(t, K + 20, 5000);
	add_preempt(t, t0(t, K + 20) + 500, 4000, "kworker/2:1");

	a = run(t);

	assert_string_equal(primary(a, 0), "workqueue:vmstat_update");
	assert_string_equal(primary(a, 1), "workqueue:vmstat_update");
	assert_string_equal(primary(a, 2), "preemption:kworker/2:1");
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/* A timer callback with no interrupt traced around it names itself; an NMI is `nmi`. */
static void test_callbacks_alone_and_nmis(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	name_funcs(t);
	set_rtt(t, K, 5000);
	add_timer_fn(t, t0(t, K) + 1000, 3000, TICK_FN);
	set_rtt(t, K + 10, 5000);
	add_event(t, TC_EV_NMI, PROBE_CPU, 0, t0(t, K + 10) + 1000, 3000, 1);

	a = run(t);

	assert_string_equal(primary(a, 0), "timer:tick");
	assert_string_equal(primary(a, 1), "nmi");
	assert_int_equal(a->causes[find_cause(a, "nmi")].excess_ns, 3000);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_callbacks_name_the_timer_interrupt),
		cmocka_unit_test(test_callbacks_name_an_interrupt_the_window_clips),
		cmocka_unit_test(test_callbacks_name_an_interrupt_the_window_ends_in),
		cmocka_unit_test(test_callbacks_name_a_calibrated_interrupt_after_the_window),
		cmocka_unit_test(test_callbacks_name_the_timer_softirqs),
		cmocka_unit_test(test_callbacks_name_a_kworker_preemption),
		cmocka_unit_test(test_callbacks_alone_and_nmis),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
