// SPDX-License-Identifier: BSD-2-Clause
/* test_units.c - durations in words (core/util/units.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/util/units.h"

static const char *fmt(double ns, int digits)
{
	static char buf[32];

	units_duration(ns, digits, buf, sizeof(buf));
	return buf;
}

/* The unit keeps the value under 1000; seconds at most. */
static void test_units_duration_picks_the_unit(void **state)
{
	(void)state;
	assert_string_equal(fmt(850, 0), "850 ns");
	assert_string_equal(fmt(999, 0), "999 ns");
	assert_string_equal(fmt(1000, 0), "1 us");
	assert_string_equal(fmt(20000, 0), "20 us");
	assert_string_equal(fmt(1.5e6, 0), "1.5 ms");
	assert_string_equal(fmt(1e9, 0), "1 s");
	assert_string_equal(fmt(3600e9, 0), "3600 s");
	assert_string_equal(fmt(0, 0), "0 ns");
}

/* With significant digits: whole nanoseconds below 1 us. */
static void test_units_duration_digits(void **state)
{
	(void)state;
	assert_string_equal(fmt(850.4, 3), "850 ns");
	assert_string_equal(fmt(12345, 3), "12.3 us");
	assert_string_equal(fmt(4.5678e6, 3), "4.57 ms");
	assert_string_equal(fmt(1.234e9, 3), "1.23 s");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units_duration_picks_the_unit),
		cmocka_unit_test(test_units_duration_digits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
