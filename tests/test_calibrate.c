// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_calibrate.c - the hidden cost of each kind of event (core/attrib/calibrate.c):
 * which gaps measure a kind, the medians and spread, the trace's meta, and the
 * analyzer's widening with its hidden part labelled; a trace without a
 * calibration, or with nothing hidden, is analysed as before; a tick held up beyond
 * what a whole tick takes here is hw-noise.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyze_fixture.h"
#include "core/attrib/calibrate.h"

#define CAL_CPU 1
#define CAL_TID 4242
#define LOOP	40

static void add(struct tc_trace *t, uint16_t kind, uint32_t cpu, uint32_t tid, uint64_t start,
		uint64_t dur)
{
	struct tc_event e = {
		.start_ns = start, .dur_ns = dur, .cpu = cpu, .tid = tid, .kind = kind};

	assert_int_equal(trace__add_events(t, &e, 1), 0);
}

static struct tc_gap gap(uint64_t start, uint64_t len, uint32_t what)
{
	return (struct tc_gap){start, start + len, CAL_CPU, what, CAL_TID, 0};
}

/*
 * 30 ticks: a 16 us gap each, 8 us of it traced (6 us of timer, 2 us of its softirq) starting
 * 6 us in (+ i ns: a spread); 30 page touches of 2.5 us with 1.5 us traced; and gaps that must
 * not count: a tick during a preemption, two IPIs in one gap, a fault in a loop gap, a gap with
 * nothing in it.
 */
static struct tc_trace *calibration_trace(struct tc_gap *g, size_t *n)
{
	struct tc_trace *t = trace__new();
	uint64_t at = 1000000;

	*n = 0;
	for (uint64_t i = 0; i < 30; i++, at += 100000) {
		add(t, TC_EV_TIMER, CAL_CPU, 0, at + 6000 + i, 6000);
		add(t, TC_EV_SOFTIRQ, CAL_CPU, 0, at + 12000 + i, 2000);
		g[(*n)++] = gap(at, 16000 + 2 * i, TC_GAP_LOOP);
		add(t, TC_EV_PAGE_FAULT, CAL_CPU, CAL_TID, at + 50000 + 400, 1500);
		g[(*n)++] = gap(at + 50000, 2500, TC_GAP_TOUCH);
	}
	add(t, TC_EV_TIMER, CAL_CPU, 0, at + 6000, 6000);
	add(t, TC_EV_OFFCPU, CAL_CPU, CAL_TID, at + 8000, 30000);
	g[(*n)++] = gap(at, 40000, TC_GAP_LOOP);
	at += 100000;
	add(t, TC_EV_IPI, CAL_CPU, 0, at + 1000, 500);
	add(t, TC_EV_IPI, CAL_CPU, 0, at + 3000, 500);
	g[(*n)++] = gap(at, 6000, TC_GAP_LOOP);
	at += 100000;
	add(t, TC_EV_PAGE_FAULT, CAL_CPU, CAL_TID, at + 300, 1000);
	g[(*n)++] = gap(at, 3000, TC_GAP_LOOP);
	g[(*n)++] = gap(at + 50000, 5000, TC_GAP_LOOP);
	/* another CPU's tick during a gap is not this gap's */
	add(t, TC_EV_TIMER, 0, 0, at + 50100, 4000);
	trace__sort(t);
	return t;
}

static void test_calibrate_measures_each_kind(void **state)
{
	struct tc_gap g[80];
	size_t n;
	struct tc_trace *t = calibration_trace(g, &n);
	struct tc_calibration c;
	const struct tc_calib_kind *tick, *fault;

	(void)state;
	assert_int_equal(calibrate_run(t, NULL, g, n, LOOP, &c), 0);
	tick = calibrate_kind(&c, TC_EV_TIMER);
	fault = calibrate_kind(&c, TC_EV_PAGE_FAULT);
	assert_non_null(tick);
	assert_non_null(fault);
	assert_null(calibrate_kind(&c, TC_EV_IPI)); /* the one IPI gap held two: none */
	assert_int_equal(tick->n, 30);
	assert_int_equal(tick->traced_ns, 8000);
	assert_int_equal(tick->traced_p90_ns, 8000); /* the traced part has no spread here */
	/* 6 us before the tick (+ the spread's median, 15), less half a loop */
	assert_int_equal(tick->pre_ns, 6000 + 15 - LOOP / 2);
	/* the gap ends 2 us after the softirq: 2000 + 2i - i, median 2015, less half a loop */
	assert_int_equal(tick->post_ns, 2000 + 15 - LOOP / 2);
	assert_true(tick->p10_ns < tick->p90_ns);
	assert_int_equal(tick->gap_ns, 16000 + 30);
	assert_int_equal(fault->n, 30);
	assert_int_equal(fault->traced_ns, 1500);
	assert_int_equal(fault->pre_ns, 400 - LOOP / 2);
	assert_int_equal(fault->post_ns, 600 - LOOP / 2);
	trace__free(t);
}

/* A gap during which records were lost on its CPU measures nothing: it may hold more. */
/*
 * A disk's interrupts: 25 gaps of 6 us, each with a 2 us hard IRQ and its 1 us block softirq;
 * one more also holds a tick (two kinds in one gap: it measures neither).
 */
static void test_calibrate_measures_device_interrupts(void **state)
{
	struct tc_trace *t = trace__new();
	struct tc_gap g[32];
	struct tc_calibration c;
	const struct tc_calib_kind *irq;
	uint64_t at = 1000000;
	size_t n = 0;

	(void)state;
	for (int i = 0; i < 25; i++, at += 100000) {
		add(t, TC_EV_HARDIRQ, CAL_CPU, 0, at + 2000, 2000);
		add(t, TC_EV_SOFTIRQ, CAL_CPU, 0, at + 4000, 1000);
		g[n++] = gap(at, 6000, TC_GAP_LOOP);
	}
	add(t, TC_EV_HARDIRQ, CAL_CPU, 0, at + 1000, 2000);
	add(t, TC_EV_TIMER, CAL_CPU, 0, at + 4000, 3000);
	g[n++] = gap(at, 9000, TC_GAP_LOOP);
	trace__sort(t);
	assert_int_equal(calibrate_run(t, NULL, g, n, LOOP, &c), 0);
	irq = calibrate_kind(&c, TC_EV_HARDIRQ);
	assert_non_null(irq);
	assert_int_equal(irq->n, 25);
	assert_int_equal(irq->gap_ns, 6000);
	assert_int_equal(irq->traced_ns, 3000);
	assert_int_equal(irq->pre_ns, 2000 - LOOP / 2);
	assert_int_equal(irq->post_ns, 1000 - LOOP / 2);
	assert_null(calibrate_kind(&c, TC_EV_TIMER)); /* one gap, and it held two kinds */
	trace__free(t);
}

static void test_calibrate_skips_gaps_with_lost_records(void **state)
{
	struct tc_gap g[80];
	size_t n;
	struct tc_trace *t = calibration_trace(g, &n);
	struct tc_calibration c;

	(void)state;
	/* from well before the first tick gap (past any lookback) into it, on its CPU */
	add(t, TC_EV_LOST, CAL_CPU, 0, 1000, 1000000 + 100);
	add(t, TC_EV_LOST, 0, 0, 1000000 + 100000, 20000); /* another CPU: no matter */
	trace__sort(t);
	assert_int_equal(calibrate_run(t, NULL, g, n, LOOP, &c), 0);
	assert_int_equal(calibrate_kind(&c, TC_EV_TIMER)->n, 29);
	assert_int_equal(calibrate_kind(&c, TC_EV_PAGE_FAULT)->n, 30);
	trace__free(t);
}

static void test_calibrate_meta_round_trip(void **state)
{
	struct tc_gap g[80];
	size_t n;
	struct tc_trace *t = calibration_trace(g, &n);
	struct tc_calibration c, back;

	(void)state;
	assert_int_equal(calibrate_run(t, NULL, g, n, LOOP, &c), 0);
	assert_int_equal(calibrate_store(t, &c), 0);
	assert_string_equal(trace__meta(t, "calib.timer.pre_ns"), "5995");
	assert_string_equal(trace__meta(t, "calib.timer.traced_p90_ns"), "8000");
	assert_string_equal(trace__meta(t, "calib.ipi.n"), "0");
	assert_null(trace__meta(t, "calib.ipi.pre_ns"));
	assert_true(calibrate_load(t, &back));
	assert_int_equal(back.loop_ns, LOOP);
	assert_memory_equal(calibrate_kind(&back, TC_EV_TIMER), calibrate_kind(&c, TC_EV_TIMER),
			    sizeof(struct tc_calib_kind));
	assert_null(calibrate_kind(&back, TC_EV_IPI));
	assert_null(trace__meta(t, "calib.exit_floor_ns")); /* not measured: not stored */
	c.exit_floor_ns = 3400;
	assert_int_equal(calibrate_store(t, &c), 0);
	assert_string_equal(trace__meta(t, "calib.exit_floor_ns"), "3400");
	calibrate_load(t, &back);
	assert_int_equal(back.exit_floor_ns, 0); /* no hypervisor named: cpuid is no exit */
	assert_int_equal(trace__set_meta(t, "host.hypervisor", "KVM"), 0);
	calibrate_load(t, &back);
	assert_int_equal(back.exit_floor_ns, 3400);
	trace__free(t);
}

/* Calibration meta for the analyzer's fixture: the tick hides pre before it, post after. */
static void calibrated(struct tc_trace *t, const char *pre, const char *post)
{
	assert_int_equal(trace__set_meta(t, "calib.loop_ns", "40"), 0);
	assert_int_equal(trace__set_meta(t, "calib.timer.n", "50"), 0);
	assert_int_equal(trace__set_meta(t, "calib.timer.pre_ns", pre), 0);
	assert_int_equal(trace__set_meta(t, "calib.timer.post_ns", post), 0);
}

/*
 * A 16 us spike with a 6 us tick in it: traced alone the tick explains 6 of 15 us (under
 * half: unattributed); with the tick's measured 7 us before and 2 us after, 15 of 15, of
 * which 9 hidden.
 */
static void test_hidden_cost_widens_and_is_labelled(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_contrib *k;

	(void)state;
	set_rtt(t, K, 16000); /* excess 15000 */
	add(t, TC_EV_TIMER, PROBE_CPU, 0, t0(t, K) + 7500, 6000);
	trace__sort(t);
	a = run(t);
	assert_false(a->calibrated);
	assert_int_equal(a->spikes[0].primary, 0);
	assert_int_equal(contrib(a, &a->spikes[0], 0)->hidden_ns, 0);
	analysis__free(a);

	calibrated(t, "7000", "2000");
	a = run(t);
	assert_true(a->calibrated);
	assert_string_equal(cause_name(a, a->spikes[0].primary), "timer");
	k = contrib(a, &a->spikes[0], 0);
	/* widened to [t+500, t+15500): 15 us, all of the excess */
	assert_int_equal(k->attributed_ns, 15000);
	assert_int_equal(k->hidden_ns, 9000);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/* Bare metal: a calibration that found nothing hidden changes nothing. */
static void test_nothing_hidden_changes_nothing(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, K, 16000);
	add(t, TC_EV_TIMER, PROBE_CPU, 0, t0(t, K) + 7500, 6000);
	calibrated(t, "0", "0");
	trace__sort(t);
	a = run(t);
	assert_true(a->calibrated);
	assert_int_equal(a->spikes[0].primary, 0);
	assert_int_equal(contrib(a, &a->spikes[0], 0)->attributed_ns, 6000);
	assert_int_equal(contrib(a, &a->spikes[0], 0)->hidden_ns, 0);
	analysis__free(a);
	trace__free(t);
}

/*
 * A 60 us round trip (59 us excess) holding a 52 us timer interrupt whose callback took
 * 2 us, where a whole tick takes up to 6 us: its own code ran 50 us, 44 more than a whole
 * tick, which the tick did not do: hw-noise, and the interrupt keeps 8 us.
 */
static void test_tick_held_up_is_hw_noise(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 60000);
	add(t, TC_EV_TIMER, PROBE_CPU, 0, t0(t, K) + 2000, 52000);
	add(t, TC_EV_TIMER_FN, PROBE_CPU, 0, t0(t, K) + 3000, 2000);
	calibrated(t, "0", "0");
	trace__sort(t);
	a = run(t); /* without what a whole tick takes: nothing is held up */
	assert_int_equal(a->spikes[0].stall_ns, 0);
	assert_string_equal(cause_name(a, a->spikes[0].primary), "timer");
	analysis__free(a);

	/* an older recorder's calibration, its median only: the spread unknown, nor is it */
	assert_int_equal(trace__set_meta(t, "calib.timer.traced_ns", "5000"), 0);
	a = run(t);
	assert_int_equal(a->spikes[0].stall_ns, 0);
	analysis__free(a);

	assert_int_equal(trace__set_meta(t, "calib.timer.traced_p90_ns", "6000"), 0);
	a = run(t);
	sp = &a->spikes[0];
	assert_int_equal(sp->stall_ns, 44000);
	assert_int_equal(sp->hw_noise_ns, 44000);
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 8000);
	assert_string_equal(cause_name(a, sp->primary), "hw-noise");
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/*
 * A tick whose own code took longer than the median tick but no longer than the top of a
 * usual tick's spread keeps all of its credit: half of all ticks are longer than the median.
 */
static void test_usual_tick_keeps_its_credit(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, K, 16000);
	add(t, TC_EV_TIMER, PROBE_CPU, 0, t0(t, K) + 2000, 10500);
	add(t, TC_EV_TIMER_FN, PROBE_CPU, 0, t0(t, K) + 3000, 4000);
	calibrated(t, "0", "0");
	assert_int_equal(trace__set_meta(t, "calib.timer.traced_ns", "6000"), 0);
	assert_int_equal(trace__set_meta(t, "calib.timer.traced_p90_ns", "7000"), 0);
	trace__sort(t);
	a = run(t);
	assert_int_equal(a->spikes[0].stall_ns, 0);
	assert_int_equal(a->spikes[0].hw_noise_ns, 0);
	assert_int_equal(contrib(a, &a->spikes[0], 0)->attributed_ns, 10500);
	assert_string_equal(cause_name(a, a->spikes[0].primary), "timer");
	analysis__free(a);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calibrate_measures_each_kind),
		cmocka_unit_test(test_calibrate_measures_device_interrupts),
		cmocka_unit_test(test_calibrate_skips_gaps_with_lost_records),
		cmocka_unit_test(test_calibrate_meta_round_trip),
		cmocka_unit_test(test_hidden_cost_widens_and_is_labelled),
		cmocka_unit_test(test_nothing_hidden_changes_nothing),
		cmocka_unit_test(test_tick_held_up_is_hw_noise),
		cmocka_unit_test(test_usual_tick_keeps_its_credit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
