// SPDX-License-Identifier: BSD-2-Clause
/* test_iter_samples.c - iterations from --iter marks: mark to mark, BEGIN..END, what is dropped. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "core/iter/iter_samples.h"
#include "core/trace/trace.h"

static struct tc_event mk(uint32_t tid, uint64_t t, uint32_t cpu, uint32_t what)
{
	return (struct tc_event){
		.start_ns = t, .cpu = cpu, .tid = tid, .arg = what, .kind = TC_EV_MARK};
}

#define B TC_MARK_BEGIN
#define E TC_MARK_END

static void test_successive_marks_make_n_minus_one_iterations(void **state)
{
	/* out of order on purpose; another kind in between is not a mark */
	struct tc_event ev[] = {mk(7, 300, 1, B),
				mk(7, 100, 1, B),
				mk(7, 210, 1, B),
				{.start_ns = 150, .kind = TC_EV_HARDIRQ, .cpu = 1}};
	struct tc_sample *s;
	struct iter_stats st;
	size_t n;

	(void)state;
	assert_int_equal(iter_samples_build(ev, 4, NULL, &s, &n, &st), 0);
	assert_int_equal(n, 2); /* the first mark opens, the last closes only */
	assert_int_equal(s[0].t_start, 100);
	assert_int_equal(s[0].t_end, 210);
	assert_int_equal(s[1].t_start, 210);
	assert_int_equal(s[1].t_end, 300);
	assert_int_equal(s[1].tid, 7);
	assert_int_equal(st.marks, 3);
	assert_int_equal(st.threads, 1);
	assert_int_equal(st.paired, 0);
	assert_int_equal(st.unended + st.stray_ends, 0);
	free(s);
}

static void test_begin_end_pairs_unended_and_stray(void **state)
{
	/* END with nothing open; BEGIN, BEGIN (the first unended), END; BEGIN at the end */
	struct tc_event ev[] = {mk(5, 50, 0, E),  mk(5, 100, 0, B), mk(5, 200, 0, B),
				mk(5, 260, 1, E), mk(5, 300, 0, B), mk(5, 340, 0, E),
				mk(5, 400, 0, B)};
	struct tc_sample *s;
	struct iter_stats st;
	size_t n;

	(void)state;
	assert_int_equal(iter_samples_build(ev, 7, NULL, &s, &n, &st), 0);
	assert_int_equal(n, 2);
	assert_int_equal(s[0].t_start, 200);
	assert_int_equal(s[0].t_end, 260);
	assert_int_equal(s[0].cpu, 0); /* it moved to cpu 1 before its end: where it began */
	assert_int_equal(s[1].t_start, 300);
	assert_int_equal(s[1].t_end, 340);
	assert_int_equal(st.stray_ends, 1);
	assert_int_equal(st.unended, 2); /* the BEGIN at 100 and the last one */
	assert_int_equal(st.paired, 1);
	free(s);
}

static void test_adjust_moves_paired_bounds_out_only(void **state)
{
	struct tc_event paired[] = {mk(5, 1000, 0, B), mk(5, 1600, 0, E)};
	struct tc_event chain[] = {mk(6, 1000, 0, B), mk(6, 1600, 0, B)};
	struct iter_adjust adj = {.pre_ns = 40, .post_ns = 70};
	struct tc_sample *s;
	struct iter_stats st;
	size_t n;

	(void)state;
	assert_int_equal(iter_samples_build(paired, 2, &adj, &s, &n, &st), 0);
	assert_int_equal(n, 1);
	assert_int_equal(s[0].t_start, 960);
	assert_int_equal(s[0].t_end, 1670);
	free(s);
	/* mark to mark: both bounds at the same point, nothing to move */
	assert_int_equal(iter_samples_build(chain, 2, &adj, &s, &n, &st), 0);
	assert_int_equal(s[0].t_start, 1000);
	assert_int_equal(s[0].t_end, 1600);
	free(s);
}

static void test_threads_apart_and_merged_in_time_order(void **state)
{
	/* two threads interleaved: each makes its own, the result is in time order */
	struct tc_event ev[] = {mk(2, 10, 0, B), mk(3, 15, 1, B), mk(2, 30, 0, B),
				mk(3, 35, 1, B), mk(2, 50, 0, B), mk(9, 60, 1, B)};
	struct tc_sample *s;
	struct iter_stats st;
	size_t n;

	(void)state;
	assert_int_equal(iter_samples_build(ev, 6, NULL, &s, &n, &st), 0);
	assert_int_equal(n, 3);
	assert_int_equal(st.threads, 3); /* tid 9's lone mark makes nothing */
	assert_int_equal(s[0].tid, 2);
	assert_int_equal(s[0].t_end, 30);
	assert_int_equal(s[1].tid, 3);
	assert_int_equal(s[1].t_start, 15);
	assert_int_equal(s[1].t_end, 35);
	assert_int_equal(s[1].cpu, 1);
	assert_int_equal(s[2].tid, 2);
	assert_int_equal(s[2].t_start, 30);
	free(s);
}

static void test_no_marks(void **state)
{
	struct tc_event ev[] = {{.start_ns = 1, .kind = TC_EV_OFFCPU, .tid = 4}};
	struct tc_sample *s = (void *)1;
	struct iter_stats st;
	size_t n = 9;

	(void)state;
	assert_int_equal(iter_samples_build(ev, 1, NULL, &s, &n, &st), 0);
	assert_null(s);
	assert_int_equal(n, 0);
	assert_int_equal(st.marks, 0);
}

static void test_adopt_replaces_samples_and_drops_marks(void **state)
{
	struct tc_trace *t = trace__new();
	struct tc_event ev[] = {mk(11, 100, 2, B),
				{.start_ns = 120, .kind = TC_EV_SOFTIRQ, .cpu = 2},
				mk(11, 200, 2, B),
				mk(11, 290, 3, B)};
	struct iter_stats st;

	(void)state;
	assert_non_null(t);
	assert_int_equal(trace__add_events(t, ev, 4), 0);
	assert_int_equal(iter_samples_adopt(t, &st), 0);
	assert_int_equal(st.iterations, 2);
	assert_int_equal(t->n_samples, 2);
	assert_int_equal(t->n_events, 1); /* the marks are gone, the softirq stays */
	assert_int_equal(t->events[0].kind, TC_EV_SOFTIRQ);
	assert_int_equal(trace__thread_role(t, 11), TC_THREAD_PROBE);
	trace__free(t);
}

static void test_adjust_read_from_meta(void **state)
{
	struct tc_trace *t = trace__new();
	struct iter_adjust a;

	(void)state;
	iter_adjust_of(t, &a);
	assert_int_equal(a.pre_ns + a.post_ns, 0);
	assert_int_equal(trace__set_meta(t, "iter.pre_ns", "123"), 0);
	assert_int_equal(trace__set_meta(t, "iter.post_ns", "45"), 0);
	iter_adjust_of(t, &a);
	assert_int_equal(a.pre_ns, 123);
	assert_int_equal(a.post_ns, 45);
	trace__free(t);
}

static void test_adopt_without_iterations_leaves_the_trace(void **state)
{
	struct tc_trace *t = trace__new();
	struct tc_event ev[] = {mk(11, 100, 2, B)};
	struct iter_stats st;

	(void)state;
	assert_int_equal(trace__add_events(t, ev, 1), 0);
	assert_int_equal(iter_samples_adopt(t, &st), 0);
	assert_int_equal(st.marks, 1);
	assert_int_equal(st.iterations, 0);
	assert_int_equal(t->n_samples, 0);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_successive_marks_make_n_minus_one_iterations),
		cmocka_unit_test(test_begin_end_pairs_unended_and_stray),
		cmocka_unit_test(test_adjust_moves_paired_bounds_out_only),
		cmocka_unit_test(test_threads_apart_and_merged_in_time_order),
		cmocka_unit_test(test_no_marks),
		cmocka_unit_test(test_adopt_replaces_samples_and_drops_marks),
		cmocka_unit_test(test_adjust_read_from_meta),
		cmocka_unit_test(test_adopt_without_iterations_leaves_the_trace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
