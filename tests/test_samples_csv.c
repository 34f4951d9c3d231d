// SPDX-License-Identifier: BSD-2-Clause
/* test_samples_csv.c - the --samples CSV: rows, header, comments, errors with line numbers. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "core/iter/samples_csv.h"

static int parse(const char *text, struct samples_csv *c, struct samples_csv_error *e)
{
	return samples_csv_parse(text, strlen(text), c, e);
}

static void test_csv_two_columns_with_header_and_comments(void **state)
{
	const char *text = "# my benchmark\n"
			   "start_ns,end_ns\n"
			   "\n"
			   "100,250\n"
			   "  300 , 420  \r\n"
			   "# done\n";
	struct samples_csv c;
	struct samples_csv_error e;

	(void)state;
	assert_int_equal(parse(text, &c, &e), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.columns, 2);
	assert_int_equal(c.samples[0].t_start, 100);
	assert_int_equal(c.samples[0].t_end, 250);
	assert_int_equal(c.samples[1].t_start, 300);
	assert_int_equal(c.samples[1].t_end, 420);
	assert_int_equal(c.samples[1].cpu, UINT32_MAX); /* absent */
	assert_int_equal(c.samples[1].tid, 0);
	samples_csv__free(&c);
}

static void test_csv_four_columns_no_header_no_final_newline(void **state)
{
	struct samples_csv c;
	struct samples_csv_error e;

	(void)state;
	assert_int_equal(parse("18446744073709551614,18446744073709551615,3,4242", &c, &e), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.columns, 4);
	assert_true(c.samples[0].t_end == UINT64_MAX);
	assert_int_equal(c.samples[0].cpu, 3);
	assert_int_equal(c.samples[0].tid, 4242);
	samples_csv__free(&c);
}

static void expect_error(const char *text, size_t line, const char *needle)
{
	struct samples_csv c;
	struct samples_csv_error e;

	assert_int_equal(parse(text, &c, &e), -EINVAL);
	assert_int_equal(e.line, line);
	if (!strstr(e.msg, needle))
		fail_msg("message '%s' lacks '%s'", e.msg, needle);
	assert_null(c.samples);
}

static void test_csv_bad_number_names_line(void **state)
{
	(void)state;
	expect_error("1,2\n3,4\n5,x7\n", 3, "end_ns 'x7' is not an unsigned decimal integer");
	expect_error("# c\n-1,2\n", 2, "start_ns '-1'");
	expect_error("1,2,,4\n", 1, "cpu ''");
	expect_error("1,99999999999999999999\n", 1, "end_ns '99999999999999999999' is too large");
	expect_error("1,2,4294967295\n", 1, "cpu '4294967295' is too large");
}

static void test_csv_end_before_start(void **state)
{
	(void)state;
	expect_error("10,20\n30,29\n", 2, "end_ns 29 is before start_ns 30");
}

static void test_csv_column_count_must_not_change(void **state)
{
	(void)state;
	expect_error("1,2,0,7\n3,4\n", 2, "2 columns where the first row has 4");
	expect_error("start_ns,end_ns,cpu\n3,4\n", 2, "where the header has 3");
	expect_error("1\n", 1, "fewer than 2");
	expect_error("1,2,3,4,5\n", 1, "more than 4");
}

static void test_csv_bad_header(void **state)
{
	(void)state;
	expect_error("start,end\n1,2\n", 1, "header column 1 is 'start', expected 'start_ns'");
	expect_error("1,2\nstart_ns,end_ns\n", 2, "start_ns 'start_ns'"); /* header only first */
}

static void test_csv_empty_file_is_an_error(void **state)
{
	(void)state;
	expect_error("", 0, "no rows");
	expect_error("# nothing\n\nstart_ns,end_ns\n", 0, "no rows");
}

static void test_csv_nul_byte(void **state)
{
	struct samples_csv c;
	struct samples_csv_error e;
	const char bin[] = "1,2\n3\0,4\n";

	(void)state;
	assert_int_equal(samples_csv_parse(bin, sizeof(bin) - 1, &c, &e), -EINVAL);
	assert_int_equal(e.line, 2);
}

static void test_csv_outside_counts_rows_off_the_span(void **state)
{
	struct tc_sample s[] = {{5, 9, 0, 0}, {9, 12, 0, 0}, {20, 30, 0, 0}, {31, 40, 0, 0}};

	(void)state;
	assert_int_equal(samples_csv_outside(s, 4, 10, 30), 2); /* the first and the last */
}

static void test_csv_adopt_registers_sample_threads(void **state)
{
	struct tc_trace *t = trace__new();
	struct tc_sample s[] = {{100, 200, 1, 77}, {300, 400, 1, 77}, {500, 600, 0, 78}};

	(void)state;
	trace__add_thread(t, 9, TC_THREAD_SELF, UINT32_MAX);
	trace__add_thread(t, 77, TC_THREAD_TARGET, UINT32_MAX);
	trace__add_samples(t, s, 1); /* replaced */
	assert_int_equal(samples_csv_adopt(t, s, 3), 0);
	assert_int_equal(t->n_samples, 3);
	assert_int_equal(t->samples[2].tid, 78);
	assert_int_equal(t->n_threads, 4); /* 77 and 78 added as probe threads */
	for (size_t i = 2; i < 4; i++) {
		assert_int_equal(t->threads[i].role, TC_THREAD_PROBE);
		assert_int_equal(t->threads[i].cpu, UINT32_MAX);
	}
	assert_int_equal(t->threads[2].tid, 77);
	assert_int_equal(t->threads[3].tid, 78);
	trace__free(t);
}

static void test_csv_adopt_without_tids_takes_command_threads(void **state)
{
	struct tc_trace *t = trace__new();
	struct tc_sample s[] = {{100, 200, UINT32_MAX, 0}};
	struct tc_event ev[3] = {
		{.start_ns = 10, .dur_ns = 5, .tid = 51, .kind = TC_EV_OFFCPU},
		{.start_ns = 20, .dur_ns = 5, .tid = 0, .kind = TC_EV_HARDIRQ},
		{.start_ns = 30, .dur_ns = 5, .tid = 9, .kind = TC_EV_OFFCPU}, /* self: never */
	};

	(void)state;
	trace__add_thread(t, 9, TC_THREAD_SELF, UINT32_MAX);
	trace__add_thread(t, 50, TC_THREAD_TARGET, UINT32_MAX);
	trace__add_events(t, ev, 3);
	assert_int_equal(samples_csv_adopt(t, s, 1), 0);
	assert_int_equal(t->n_threads, 4);
	assert_int_equal(t->threads[2].tid, 50);
	assert_int_equal(t->threads[2].role, TC_THREAD_PROBE);
	assert_int_equal(t->threads[3].tid, 51);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_two_columns_with_header_and_comments),
		cmocka_unit_test(test_csv_four_columns_no_header_no_final_newline),
		cmocka_unit_test(test_csv_bad_number_names_line),
		cmocka_unit_test(test_csv_end_before_start),
		cmocka_unit_test(test_csv_column_count_must_not_change),
		cmocka_unit_test(test_csv_bad_header),
		cmocka_unit_test(test_csv_empty_file_is_an_error),
		cmocka_unit_test(test_csv_nul_byte),
		cmocka_unit_test(test_csv_outside_counts_rows_off_the_span),
		cmocka_unit_test(test_csv_adopt_registers_sample_threads),
		cmocka_unit_test(test_csv_adopt_without_tids_takes_command_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
