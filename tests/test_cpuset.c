// SPDX-License-Identifier: BSD-2-Clause
/* test_cpuset.c - cpulist parsing and formatting, as sysfs and the kernel command line write it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "core/util/cpuset.h"

static const char *fmt(const struct tc_cpuset *s)
{
	static char buf[256];

	cpuset_format(s, buf, sizeof(buf));
	return buf;
}

static void test_cpuset_parse_ranges_and_singles(void **state)
{
	struct tc_cpuset s;

	(void)state;
	assert_int_equal(cpuset_parse("0-3,8,10-11\n", &s), 0);
	assert_int_equal(cpuset_count(&s), 7);
	assert_true(cpuset_has(&s, 3));
	assert_false(cpuset_has(&s, 4));
	assert_string_equal(fmt(&s), "0-3,8,10-11");
	assert_int_equal(cpuset_next(&s, 3), 8);
	assert_int_equal(cpuset_last(&s), 11);
}

static void test_cpuset_parse_group_syntax(void **state)
{
	struct tc_cpuset s;

	(void)state;
	assert_int_equal(cpuset_parse("0-15:2/4", &s), 0);
	assert_string_equal(fmt(&s), "0-1,4-5,8-9,12-13");
}

static void test_cpuset_parse_empty_and_errors(void **state)
{
	struct tc_cpuset s;

	(void)state;
	assert_int_equal(cpuset_parse("", &s), 0);
	assert_true(cpuset_empty(&s));
	assert_string_equal(fmt(&s), "");
	assert_int_equal(cpuset_last(&s), -1);
	assert_int_equal(cpuset_parse("\n", &s), 0);
	assert_int_equal(cpuset_parse("3-1", &s), -EINVAL);
	assert_int_equal(cpuset_parse("1,,2", &s), -EINVAL);
	assert_int_equal(cpuset_parse("a", &s), -EINVAL);
	assert_int_equal(cpuset_parse("2,", &s), -EINVAL);
	assert_int_equal(cpuset_parse("0-7:3/2", &s), -EINVAL);
	assert_int_equal(cpuset_parse("4096", &s), -ERANGE);
	assert_int_equal(cpuset_parse("4095", &s), 0);
	assert_int_equal(cpuset_last(&s), 4095);
}

static void test_cpuset_ops(void **state)
{
	struct tc_cpuset a, b, out;

	(void)state;
	assert_int_equal(cpuset_parse("0-7", &a), 0);
	assert_int_equal(cpuset_parse("2-3,64", &b), 0);
	cpuset_andnot(&out, &a, &b);
	assert_string_equal(fmt(&out), "0-1,4-7");
	cpuset_and(&out, &a, &b);
	assert_string_equal(fmt(&out), "2-3");
	cpuset_or(&out, &a, &b);
	assert_string_equal(fmt(&out), "0-7,64");
	assert_int_equal(cpuset_next(&out, 7), 64);
	assert_int_equal(cpuset_next(&out, 64), -1);
}

static void test_cpuset_format_truncates_safely(void **state)
{
	struct tc_cpuset s;
	char buf[6];

	(void)state;
	assert_int_equal(cpuset_parse("0-3,8,10", &s), 0);
	assert_int_equal(cpuset_format(&s, buf, sizeof(buf)), strlen("0-3,8,10"));
	assert_string_equal(buf, "0-3,8");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpuset_parse_ranges_and_singles),
		cmocka_unit_test(test_cpuset_parse_group_syntax),
		cmocka_unit_test(test_cpuset_parse_empty_and_errors),
		cmocka_unit_test(test_cpuset_ops),
		cmocka_unit_test(test_cpuset_format_truncates_safely),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
