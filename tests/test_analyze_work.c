// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_analyze_work.c - work items (TC_EV_WORK) through analysis__run(): a
 * kworker's preemption of a probe thread is named by the work function with the
 * most time inside it, summed over the stretches workqueue.bpf.c cuts an item
 * into where its kworker was switched out; a work record with no kworker
 * preemption around it is a cause by itself.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyze_fixture.h"

#define FN_REFRESH 0xffffffff815d6150ull
#define FN_BARRIER 0xffffffff81387580ull

static void add_work(struct tc_trace *t, uint32_t cpu, uint64_t start, uint64_t dur, uint64_t fn)
{
	struct tc_event e = {.start_ns = start,
			     .dur_ns = dur,
			     .func = fn,
			     .cpu = cpu,
			     .other_pid = 4242,
			     .kind = TC_EV_WORK};

	memcpy(e.other_comm, "kworker/2:1", sizeof("kworker/2:1"));
	assert_int_equal(trace__add_events(t, &e, 1), 0);
}

static struct tc_trace *trace_with_names(void)
{
	struct tc_trace *t = new_trace();

	assert_int_equal(trace__set_meta(t, "ksym.ffffffff815d6150", "refresh_vm_stats"), 0);
	assert_int_equal(trace__set_meta(t, "ksym.ffffffff81387580", "wq_barrier_func"), 0);
	return t;
}

static void test_work_kworker_named_by_summed_stretches(void **state)
{
	struct tc_trace *t = trace_with_names();
	struct tc_analysis *a;
	const struct tc_spike *sp;
	uint64_t s;

	(void)state;
	set_rtt(t, K, 5000);
	s = t0(t, K);
	add_preempt(t, s + 1000, 3000, "kworker/2:1");
	/* refresh_vm_stats in two stretches (800 + 700 ns) beats one barrier of 1000 ns */
	add_work(t, PROBE_CPU, s + 1100, 800, FN_REFRESH);
	add_work(t, PROBE_CPU, s + 2000, 1000, FN_BARRIER);
	add_work(t, PROBE_CPU, s + 3100, 700, FN_REFRESH);

	a = run(t);

	sp = &a->spikes[0];
	assert_string_equal(cause_name(a, sp->primary), "workqueue:refresh_vm_stats");
	assert_int_equal(a->causes[sp->primary].cls, TC_CAUSE_WORKQUEUE);
	for (uint32_t i = 0; i < a->n_causes; i++)
		assert_false(!strncmp(a->causes[i].name, "preemption:kworker", 18));
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

static void test_work_without_a_kworker_preemption_is_its_own_cause(void **state)
{
	struct tc_trace *t = trace_with_names();
	struct tc_analysis *a;

	(void)state;
	/* The kworker's switch-in was not traced: only the work record is there. */
	set_rtt(t, K, 5000);
	add_work(t, PROBE_CPU, t0(t, K) + 1000, 3000, FN_BARRIER);
	/* A function the trace cannot name is named by its address. */
	set_rtt(t, K + 10, 5000);
	add_work(t, PROBE_CPU, t0(t, K + 10) + 1000, 3000, 0xffffffffa0001230ull);
	/* Work on a CPU no probe thread or sample is on matters to no spike. */
	set_rtt(t, K + 20, 5000);
	add_work(t, OTHER_CPU, t0(t, K + 20) + 1000, 3000, FN_REFRESH);

	a = run(t);

	assert_string_equal(cause_name(a, a->spikes[0].primary), "workqueue:wq_barrier_func");
	assert_int_equal(contrib(a, &a->spikes[0], 0)->attributed_ns, 3000);
	assert_string_equal(cause_name(a, a->spikes[1].primary), "workqueue:0xffffffffa0001230");
	assert_int_equal(a->spikes[2].n_contrib, 0);
	analysis__free(a);
	trace__free(t);
}

static void test_work_nested_in_its_kworker_counts_once(void **state)
{
	struct tc_trace *t = trace_with_names();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 5000);
	add_preempt(t, t0(t, K) + 1000, 3000, "kworker/2:1");
	add_work(t, PROBE_CPU, t0(t, K) + 1500, 2000, FN_REFRESH);

	a = run(t);

	sp = &a->spikes[0];
	assert_int_equal(sp->n_contrib, 2);
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 3000); /* the preemption */
	assert_int_equal(contrib(a, sp, 1)->nested, 1);
	assert_int_equal(contrib(a, sp, 1)->attributed_ns, 0);
	assert_int_equal(contrib(a, sp, 0)->cause, contrib(a, sp, 1)->cause);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_work_kworker_named_by_summed_stretches),
		cmocka_unit_test(test_work_without_a_kworker_preemption_is_its_own_cause),
		cmocka_unit_test(test_work_nested_in_its_kworker_counts_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
