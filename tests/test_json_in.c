// SPDX-License-Identifier: BSD-2-Clause
/* test_json_in.c - the JSON reader (core/compare/json_in.c): what it takes, what it refuses. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/compare/json_in.h"

static struct jv *parse_ok(const char *text)
{
	struct jv *v = NULL;

	assert_int_equal(jv_parse(text, strlen(text), &v, NULL), 0);
	assert_non_null(v);
	return v;
}

static void test_json_in_values_and_paths(void **state)
{
	struct jv *v = parse_ok(" {\"a\": {\"b\": [1, -2.5e3, true, null, \"x\"]}, \"n\": 0.125,"
				"\"s\": \"caf\\u00e9 \\ud83d\\ude00\\n\"} ");
	const struct jv *arr = jv_path(v, "a.b");

	(void)state;
	assert_int_equal(v->type, JV_OBJ);
	assert_non_null(arr);
	assert_int_equal(arr->type, JV_ARR);
	assert_int_equal(arr->n, 5);
	assert_true(arr->items[0].num == 1);
	assert_true(arr->items[1].num == -2500);
	assert_int_equal(arr->items[2].type, JV_BOOL);
	assert_true(arr->items[2].b);
	assert_int_equal(arr->items[3].type, JV_NULL);
	assert_string_equal(arr->items[4].str, "x");
	assert_true(jv_num_or(jv_get(v, "n"), 0) == 0.125);
	assert_string_equal(jv_str_or(jv_get(v, "s"), ""), "caf\xc3\xa9 \xf0\x9f\x98\x80\n");
	assert_null(jv_get(v, "missing"));
	assert_null(jv_path(v, "a.b.c"));
	assert_true(jv_num_or(jv_get(v, "s"), 7) == 7);
	jv__free(v);
}

static void test_json_in_refuses_what_is_not_json(void **state)
{
	static const char *const bad[] = {
		"",
		"{",
		"{\"a\" 1}",
		"{\"a\": 1,}",
		"[1, 2,]",
		"[01]",
		"[1.]",
		"[.5]",
		"[1e]",
		"\"abc",
		"\"\\x\"",
		"\"\\ud800\"",
		"\"\\udc00\"",
		"\"a\tb\"",
		"nul",
		"tru",
		"{} {}",
		"[1] x",
		"{1: 2}",
		"[-]",
		"\"\\u12G4\"",
	};
	char deep[200];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct jv *v = NULL;
		struct jv_error e = {0};

		assert_int_equal(jv_parse(bad[i], strlen(bad[i]), &v, &e), -EINVAL);
		assert_null(v);
		assert_non_null(e.msg);
	}
	memset(deep, '[', sizeof(deep));
	{
		struct jv *v = NULL;
		struct jv_error e = {0};

		assert_int_equal(jv_parse(deep, sizeof(deep), &v, &e), -EINVAL);
		assert_string_equal(e.msg, "nested too deep");
	}
}

/* A report cut short anywhere is refused, never read past its end. */
static void test_json_in_truncated_input(void **state)
{
	const char *text =
		"{\"schema\": \"tailcause-report\", \"x\": [1, 2, {\"y\": \"\\u00e9\"}]}";
	size_t len = strlen(text);

	(void)state;
	for (size_t n = 0; n < len; n++) {
		struct jv *v = NULL;

		assert_int_equal(jv_parse(text, n, &v, NULL), -EINVAL);
	}
	jv__free(parse_ok(text));
}

/* Every array and object of v holds room for at most twice its elements. */
static void assert_tight(const struct jv *v)
{
	size_t sz = v->type == JV_ARR ? sizeof(*v->items) : sizeof(*v->members);
	void *room = v->type == JV_ARR ? (void *)v->items : (void *)v->members;

	if (v->type != JV_ARR && v->type != JV_OBJ)
		return;
	/* malloc rounds up to its granule: a few words at most */
	if (room && malloc_usable_size(room) > 2 * v->n * sz + 4 * sizeof(void *))
		fail_msg("%zu elements in %zu bytes", v->n, malloc_usable_size(room));
	for (size_t i = 0; i < v->n; i++)
		assert_tight(v->type == JV_ARR ? &v->items[i] : &v->members[i].val);
}

/* What text makes the reader allocate follows from what it holds: a list of one-member
 * objects costs a member's room each, not sixteen; nesting past JSON_IN_MAX_DEPTH is
 * refused where it starts, however deep it goes. */
static void test_json_in_room_follows_the_text(void **state)
{
	size_t n = 1000, len = 0;
	char *text = malloc(16 * n + 16);
	struct jv *v;

	(void)state;
	assert_non_null(text);
	len += (size_t)sprintf(text, "[");
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "%s{\"k\":[%zu]}", i ? "," : "", i);
	len += (size_t)sprintf(text + len, "]");
	v = parse_ok(text);
	assert_int_equal(v->n, n);
	assert_tight(v);
	jv__free(v);
	free(text);
	text = malloc(1 << 20);
	assert_non_null(text);
	memset(text, '[', 1 << 20);
	{
		struct jv_error e = {0};

		v = NULL;
		assert_int_equal(jv_parse(text, 1 << 20, &v, &e), -EINVAL);
		assert_string_equal(e.msg, "nested too deep");
		assert_int_equal(e.offset, JSON_IN_MAX_DEPTH);
	}
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_in_values_and_paths),
		cmocka_unit_test(test_json_in_refuses_what_is_not_json),
		cmocka_unit_test(test_json_in_truncated_input),
		cmocka_unit_test(test_json_in_room_follows_the_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
