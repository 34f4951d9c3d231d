// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_analyze_smt.c - what ran on a probe CPU's SMT sibling (TC_EV_SIBLING) is
 * the cause only of what nothing on the probe CPU explains. Synthetic traces:
 * this machine has no SMT, so the recorder never emits these here; the shapes
 * are those of bpf/sched.bpf.c's records (cpu = the sibling, arg = the probe
 * CPU beside it).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyze_fixture.h"

#define SIBLING_CPU 6

static void add_sibling(struct tc_trace *t, uint32_t probe_cpu, uint64_t start, uint64_t dur,
			const char *comm)
{
	struct tc_event e = {.start_ns = start,
			     .dur_ns = dur,
			     .cpu = SIBLING_CPU,
			     .arg = probe_cpu,
			     .other_pid = 4321,
			     .kind = TC_EV_SIBLING};

	memcpy(e.other_comm, comm, strlen(comm));
	assert_int_equal(trace__add_events(t, &e, 1), 0);
}

static uint64_t credit_of(const struct tc_analysis *a, const struct tc_spike *sp, const char *name)
{
	uint64_t n = 0;

	for (size_t i = 0; i < sp->n_contrib; i++)
		if (!strcmp(cause_name(a, contrib(a, sp, i)->cause), name))
			n += contrib(a, sp, i)->attributed_ns;
	return n;
}

/* Nothing on the probe CPU, a task on its sibling throughout: the sibling is the cause. */
static void test_sibling_alone_is_the_cause(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, K, 9000);
	add_sibling(t, PROBE_CPU, t0(t, K) - 5000, 20000, "ffmpeg");
	trace__sort(t);
	a = run(t);
	assert_string_equal(cause_name(a, a->spikes[0].primary), "smt-sibling:ffmpeg");
	assert_int_equal(credit_of(a, &a->spikes[0], "smt-sibling:ffmpeg"), 8000);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/*
 * A preemption on the probe CPU is served first; the sibling takes only the rest of the
 * window (3 of 9 us), and both shrink by the same factor to the excess (8 of 9 us).
 */
static void test_probe_cpu_events_come_first(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, K, 9000); /* excess 8000 */
	add_preempt(t, t0(t, K) + 1000, 6000, "hog");
	add_sibling(t, PROBE_CPU, t0(t, K), 9000, "ffmpeg");
	trace__sort(t);
	a = run(t);
	assert_string_equal(cause_name(a, a->spikes[0].primary), "preemption:hog");
	assert_int_equal(credit_of(a, &a->spikes[0], "preemption:hog"), 6000 * 8 / 9);
	assert_int_equal(credit_of(a, &a->spikes[0], "smt-sibling:ffmpeg"), 3000 * 8 / 9);
	assert_true(a->spikes[0].explained > 0.999);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

/* The sibling of a CPU no probe uses does not matter. */
static void test_sibling_of_another_cpu_ignored(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, K, 9000);
	add_sibling(t, OTHER_CPU, t0(t, K), 9000, "ffmpeg");
	trace__sort(t);
	a = run(t);
	assert_int_equal(a->spikes[0].primary, 0);
	assert_int_equal(a->spikes[0].n_contrib, 0);
	analysis__free(a);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sibling_alone_is_the_cause),
		cmocka_unit_test(test_probe_cpu_events_come_first),
		cmocka_unit_test(test_sibling_of_another_cpu_ignored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
