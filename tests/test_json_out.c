// SPDX-License-Identifier: BSD-2-Clause
/* test_json_out.c - the JSON writer the reports use: nesting, separators, escaping. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_out.h"

/* Runs fn on a memory stream and returns what it wrote (static buffer). */
static const char *capture(void (*fn)(struct json *j))
{
	static char buf[1024];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct json j;

	assert_non_null(f);
	json_init(&j, f);
	fn(&j);
	fclose(f);
	return buf;
}

static void nested(struct json *j)
{
	json_obj(j, NULL);
	json_str(j, "a", "x");
	json_arr_compact(j, "b");
	json_u64(j, NULL, 1);
	json_i64(j, NULL, -2);
	json_end(j);
	json_obj(j, "c");
	json_end(j);
	json_arr(j, "d");
	json_end(j);
	json_obj_compact(j, "e");
	json_num(j, "f", 1.23456, 3);
	json_bool(j, "g", 1);
	json_null(j, "h");
	json_end(j);
	json_end(j);
}

static void test_json_nesting_and_separators(void **state)
{
	(void)state;
	assert_string_equal(capture(nested), "{\n"
					     "  \"a\": \"x\",\n"
					     "  \"b\": [ 1, -2 ],\n"
					     "  \"c\": {},\n"
					     "  \"d\": [],\n"
					     "  \"e\": { \"f\": 1.235, \"g\": true, \"h\": null }\n"
					     "}\n");
}

static void escapes(struct json *j)
{
	json_arr_compact(j, NULL);
	json_str(j, NULL, "q\"b\\s\n\t\x01");
	json_str(j, NULL, "caf\xc3\xa9"); /* valid UTF-8 passes */
	json_str(j, NULL, "bad\xff\xc3"); /* invalid bytes become U+FFFD */
	json_str(j, NULL, NULL);
	json_num(j, NULL, NAN, 3);
	json_num(j, NULL, -0.0, 1);
	json_end(j);
}

static void test_json_escapes_strings_and_numbers(void **state)
{
	(void)state;
	assert_string_equal(capture(escapes),
			    "[ \"q\\\"b\\\\s\\u000a\\u0009\\u0001\", "
			    "\"caf\xc3\xa9\", \"bad\\ufffd\\ufffd\", null, null, 0.0 ]\n");
}

/* ESC and DEL; U+009B (the 8-bit CSI); an overlong '/', a surrogate, U+110000; a NUL inside. */
static void hostile(struct json *j)
{
	json_arr_compact(j, NULL);
	json_str(j, NULL, "hx\x1b[2J\x7f");
	json_str(j, NULL,
		 "\xc2\x9b"
		 "2J");
	json_str(j, NULL, "\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80");
	json_strn(j, NULL, "a\0b", 3);
	json_end(j);
}

/* A hostile string comes out as ASCII-safe, valid UTF-8 JSON: no raw control byte. */
static void test_json_escapes_hostile_strings(void **state)
{
	(void)state;
	assert_string_equal(capture(hostile), "[ \"hx\\u001b[2J\\u007f\", \"\\u009b2J\", "
					      "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd"
					      "\\ufffd\\ufffd\", \"a\\u0000b\" ]\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_nesting_and_separators),
		cmocka_unit_test(test_json_escapes_strings_and_numbers),
		cmocka_unit_test(test_json_escapes_hostile_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
