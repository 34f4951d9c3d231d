// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_wait_chain.c - a spike whose timing thread was blocked is explained by what delayed
 * the task that woke it (wait_chain.h): a chain of two and of three, a waker never traced,
 * one that was not disturbed (the wait on it, by its name), the depth bound, a waking by an
 * interrupt, the clipping to the wait, and an interrupt on the waker's CPU while it could run or
 * while it slept.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyze_fixture.h"

#define W1     301 /* the task the probe thread waits on, and the ones it waits on */
#define W2     302
#define W3     303
#define W4     304
#define W1_CPU 5
#define W2_CPU 6
#define W3_CPU 4
#define W4_CPU 1

/* tid woken at `at` by waker, from cpu; flags TC_WAKE_*. */
static void add_wake(struct tc_trace *t, uint32_t tid, uint64_t at, uint32_t waker, uint32_t cpu,
		     uint16_t flags)
{
	struct tc_event e = {.start_ns = at,
			     .cpu = cpu,
			     .tid = tid,
			     .arg = 77,
			     .other_pid = waker,
			     .kind = TC_EV_WAKEUP,
			     .flags = flags};

	memcpy(e.other_comm, "server", 7);
	assert_int_equal(trace__add_events(t, &e, 1), 0);
}

/* tid off cpu over [start, start + dur): flags TC_OFFCPU_* (0: blocked), other ran. */
static void add_off(struct tc_trace *t, uint32_t tid, uint32_t cpu, uint64_t start, uint64_t dur,
		    uint16_t flags, const char *other)
{
	struct tc_event e = {.start_ns = start,
			     .dur_ns = dur,
			     .cpu = cpu,
			     .tid = tid,
			     .other_pid = 999,
			     .kind = TC_EV_OFFCPU,
			     .flags = flags};

	memcpy(e.other_comm, other, strlen(other) + 1);
	assert_int_equal(trace__add_events(t, &e, 1), 0);
}

/* Sample K takes 5 us; the probe thread blocks from +100 until W1 wakes it at +4000. */
static struct tc_trace *waiting_probe(void)
{
	struct tc_trace *t = new_trace();

	set_rtt(t, K, 5000);
	add_off(t, PROBE_TID, PROBE_CPU, t0(t, K) + 100, 3900, 0, "swapper/2");
	add_wake(t, PROBE_TID, t0(t, K) + 4000, W1, W1_CPU, 0);
	return t;
}

static const char *primary(const struct tc_analysis *a)
{
	assert_int_equal(a->n_spikes, 1);
	return cause_name(a, a->spikes[0].primary);
}

/* The spike's contrib of event kind with the given tid, or NULL. */
static const struct tc_contrib *contrib_of(const struct tc_trace *t, const struct tc_analysis *a,
					   uint16_t kind, uint32_t tid)
{
	const struct tc_spike *sp = &a->spikes[0];

	for (size_t i = 0; i < sp->n_contrib; i++) {
		const struct tc_contrib *k = contrib(a, sp, i);

		if (t->events[k->event].kind == kind && t->events[k->event].tid == tid)
			return k;
	}
	return NULL;
}

/* W1 was preempted by hog on its CPU while the probe thread waited on it: the spike is hog's. */
static void test_wait_chain_two(void **state)
{
	struct tc_trace *t = waiting_probe();
	const struct tc_contrib *k;
	struct tc_analysis *a;

	(void)state;
	add_off(t, W1, W1_CPU, t0(t, K) + 500, 3000, TC_OFFCPU_PREEMPTED, "hog");
	a = run(t);
	assert_string_equal(primary(a), "preemption:hog");
	k = contrib_of(t, a, TC_EV_OFFCPU, W1);
	assert_non_null(k);
	assert_int_equal(k->chain, 1);
	assert_int_equal(k->attributed_ns, 3000);
	k = contrib_of(t, a, TC_EV_WAKEUP, PROBE_TID);
	assert_non_null(k);
	assert_int_equal(k->chain, 1);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/*
 * Without a waking record, nothing says whom the probe thread waited on; with one of an
 * interrupt's (the task it interrupted is no waker, and is not followed) neither: blocked,
 * unattributed, whatever delayed W1.
 */
static void test_wait_chain_needs_a_task_waking(void **state)
{
	for (int irq = 0; irq < 2; irq++) {
		struct tc_trace *t = new_trace();
		struct tc_analysis *a;

		(void)state;
		set_rtt(t, K, 5000);
		add_off(t, PROBE_TID, PROBE_CPU, t0(t, K) + 100, 3900, 0, "swapper/2");
		if (irq)
			add_wake(t, PROBE_TID, t0(t, K) + 4000, W1, W1_CPU, TC_WAKE_IRQ);
		add_off(t, W1, W1_CPU, t0(t, K) + 500, 3000, TC_OFFCPU_PREEMPTED, "hog");
		a = run(t);
		assert_string_equal(primary(a), "unattributed");
		assert_null(contrib_of(t, a, TC_EV_OFFCPU, W1));
		analysis__free(a);
		trace__free(t);
	}
}

/* W1 itself waited on W2, which hog2 preempted: the spike is hog2's, two links down. */
static void test_wait_chain_three(void **state)
{
	struct tc_trace *t = waiting_probe();
	const struct tc_contrib *k;
	struct tc_analysis *a;

	(void)state;
	add_off(t, W1, W1_CPU, t0(t, K) + 200, 3600, 0, "swapper/5");
	add_wake(t, W1, t0(t, K) + 3800, W2, W2_CPU, 0);
	add_off(t, W2, W2_CPU, t0(t, K) + 300, 2700, TC_OFFCPU_PREEMPTED, "hog2");
	a = run(t);
	assert_string_equal(primary(a), "preemption:hog2");
	k = contrib_of(t, a, TC_EV_OFFCPU, W2);
	assert_non_null(k);
	assert_int_equal(k->chain, 2);
	analysis__free(a);
	trace__free(t);
}

/* Four links down is past the depth followed: W4's preemption is not the spike's. */
static void test_wait_chain_depth_bound(void **state)
{
	struct tc_trace *t = waiting_probe();
	struct tc_analysis *a;

	(void)state;
	add_off(t, W1, W1_CPU, t0(t, K) + 200, 3600, 0, "swapper/5");
	add_wake(t, W1, t0(t, K) + 3800, W2, W2_CPU, 0);
	add_off(t, W2, W2_CPU, t0(t, K) + 250, 3400, 0, "swapper/6");
	add_wake(t, W2, t0(t, K) + 3650, W3, W3_CPU, 0);
	add_off(t, W3, W3_CPU, t0(t, K) + 280, 3300, 0, "swapper/4");
	add_wake(t, W3, t0(t, K) + 3580, W4, W4_CPU, 0);
	add_off(t, W4, W4_CPU, t0(t, K) + 300, 3000, TC_OFFCPU_PREEMPTED, "hog4");
	a = run(t);
	assert_string_not_equal(primary(a), "preemption:hog4");
	assert_null(contrib_of(t, a, TC_EV_OFFCPU, W4));
	assert_non_null(contrib_of(t, a, TC_EV_OFFCPU, W3));
	analysis__free(a);
	trace__free(t);
}

/* A waker never traced (the bound of followed wakers reached), or one that ran undisturbed:
 * nothing of it delayed the wait, which is the wait on it (its own work, not a host cause),
 * with the waking as evidence. */
static void test_wait_chain_waker_untraced_or_undisturbed(void **state)
{
	for (int untraced = 0; untraced < 2; untraced++) {
		struct tc_trace *t = new_trace();
		const struct tc_contrib *k;
		struct tc_analysis *a;

		(void)state;
		set_rtt(t, K, 5000);
		add_off(t, PROBE_TID, PROBE_CPU, t0(t, K) + 100, 3900, 0, "swapper/2");
		add_wake(t, PROBE_TID, t0(t, K) + 4000, W1, W1_CPU,
			 untraced ? TC_WAKE_UNFOLLOWED : 0);
		/* the waker's own wait for its request ended before the probe thread's began */
		add_off(t, W1, W1_CPU, t0(t, K) - 3000, 3050, 0, "swapper/5");
		a = run(t);
		assert_string_equal(primary(a), "wait:server");
		assert_int_equal(a->causes[a->spikes[0].primary].cls, TC_CAUSE_WAIT);
		k = contrib_of(t, a, TC_EV_WAKEUP, PROBE_TID);
		assert_non_null(k);
		assert_int_equal(k->chain, 1);
		assert_null(contrib_of(t, a, TC_EV_OFFCPU, W1));
		analysis__free(a);
		trace__free(t);
	}
}

/* The waker, woken by the request, waited for its CPU while hog ran (a weak interval): that
 * is a host cause, and takes the time from the wait on the waker's own work. */
static void test_wait_chain_wakers_cpu_wait_beats_its_work(void **state)
{
	struct tc_trace *t = waiting_probe();
	const struct tc_contrib *k;
	struct tc_analysis *a;

	(void)state;
	add_off(t, W1, W1_CPU, t0(t, K) + 300, 2500, TC_OFFCPU_PREEMPTED | TC_OFFCPU_WOKEN, "hog");
	a = run(t);
	assert_string_equal(primary(a), "preemption:hog");
	k = contrib_of(t, a, TC_EV_OFFCPU, W1);
	assert_non_null(k);
	assert_int_equal(k->attributed_ns, 2500);
	k = contrib_of(t, a, TC_EV_OFFCPU, PROBE_TID);
	assert_non_null(k);
	assert_string_equal(cause_name(a, k->cause), "wait:server");
	assert_int_equal(k->attributed_ns, 3900 - 2500);
	analysis__free(a);
	trace__free(t);
}

/*
 * The recorder writes a waking only when a thread's waker changes: a record long before the
 * spike names the waker of every wait since, until an interrupt's waking takes over.
 */
static void test_wait_chain_waker_recorded_once(void **state)
{
	for (int irq_since = 0; irq_since < 2; irq_since++) {
		struct tc_trace *t = new_trace();
		struct tc_analysis *a;

		(void)state;
		add_wake(t, PROBE_TID, t0(t, K - 300), W1, W1_CPU, 0);
		if (irq_since)
			add_wake(t, PROBE_TID, t0(t, K - 10), 0, PROBE_CPU, TC_WAKE_IRQ);
		set_rtt(t, K, 5000);
		add_off(t, PROBE_TID, PROBE_CPU, t0(t, K) + 100, 3900, 0, "swapper/2");
		add_off(t, W1, W1_CPU, t0(t, K) + 500, 3000, TC_OFFCPU_PREEMPTED, "hog");
		a = run(t);
		assert_string_equal(primary(a), irq_since ? "unattributed" : "preemption:hog");
		if (!irq_since)
			assert_non_null(contrib_of(t, a, TC_EV_WAKEUP, PROBE_TID));
		analysis__free(a);
		trace__free(t);
	}
}

/* Only the waker's delay while the probe thread waited counts: here 500 ns of hog's 2 us. */
static void test_wait_chain_clipped_to_the_wait(void **state)
{
	struct tc_trace *t = new_trace();
	const struct tc_contrib *k;
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, K, 5000);
	add_off(t, PROBE_TID, PROBE_CPU, t0(t, K) + 1500, 2500, 0, "swapper/2");
	add_wake(t, PROBE_TID, t0(t, K) + 4000, W1, W1_CPU, 0);
	add_off(t, W1, W1_CPU, t0(t, K), 2000, TC_OFFCPU_PREEMPTED, "hog");
	a = run(t);
	k = contrib_of(t, a, TC_EV_OFFCPU, W1);
	assert_non_null(k);
	assert_int_equal(k->overlap_ns, 500);
	assert_true(k->attributed_ns <= 500);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/* An IRQ on the waker's CPU delays it while it could run, not while it slept. */
static void test_wait_chain_irq_on_the_wakers_cpu(void **state)
{
	for (int asleep = 0; asleep < 2; asleep++) {
		struct tc_trace *t = waiting_probe();
		const struct tc_contrib *k = NULL;
		const struct tc_spike *sp;
		struct tc_analysis *a;

		(void)state;
		if (asleep)
			add_off(t, W1, W1_CPU, t0(t, K) + 200, 3700, 0, "swapper/5");
		add_irq(t, TC_EV_HARDIRQ, W1_CPU, t0(t, K) + 1000, 2500, 30);
		a = run(t);
		sp = &a->spikes[0];
		for (size_t i = 0; i < sp->n_contrib; i++)
			if (t->events[contrib(a, sp, i)->event].kind == TC_EV_HARDIRQ)
				k = contrib(a, sp, i);
		if (asleep) {
			assert_null(k);
		} else {
			assert_non_null(k);
			assert_int_equal(k->chain, 1);
			assert_string_equal(primary(a), "hardirq:eth0");
		}
		analysis__free(a);
		trace__free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wait_chain_two),
		cmocka_unit_test(test_wait_chain_needs_a_task_waking),
		cmocka_unit_test(test_wait_chain_three),
		cmocka_unit_test(test_wait_chain_depth_bound),
		cmocka_unit_test(test_wait_chain_waker_untraced_or_undisturbed),
		cmocka_unit_test(test_wait_chain_wakers_cpu_wait_beats_its_work),
		cmocka_unit_test(test_wait_chain_waker_recorded_once),
		cmocka_unit_test(test_wait_chain_clipped_to_the_wait),
		cmocka_unit_test(test_wait_chain_irq_on_the_wakers_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
