// SPDX-License-Identifier: BSD-2-Clause
/* test_str.c - lib/str.h: the escaping rule for untrusted text. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "lib/str.h"

static const char *esc(const char *s)
{
	static char buf[256];

	return str_escape(buf, sizeof(buf), s);
}

static void test_str_escape_passes_printable_text(void **state)
{
	(void)state;
	assert_string_equal(esc("kworker/0:1H"), "kworker/0:1H");
	assert_string_equal(esc("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
			    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	assert_int_equal(str_needs_escape("swapper/1"), 0);
}

static void test_str_escape_control_bytes(void **state)
{
	(void)state;
	assert_string_equal(esc("hx\x1b[2J"), "hx\\x1b[2J");
	assert_string_equal(esc("a\tb\nc\x7f"), "a\\x09b\\x0ac\\x7f");
	/* U+009B, the 8-bit CSI, as UTF-8: a C1 control */
	assert_string_equal(esc("\xc2\x9b"
				"2J"),
			    "\\xc2\\x9b2J");
	assert_int_equal(str_needs_escape("x\x1b"), 1);
}

static void test_str_escape_invalid_utf8(void **state)
{
	(void)state;
	assert_string_equal(esc("\xff"), "\\xff");
	assert_string_equal(esc("\xc0\xaf"), "\\xc0\\xaf");		      /* overlong '/' */
	assert_string_equal(esc("\xed\xa0\x80"), "\\xed\\xa0\\x80");	      /* a surrogate */
	assert_string_equal(esc("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80"); /* > U+10FFFF */
	assert_string_equal(esc("\xe2\x82"), "\\xe2\\x82");		      /* cut short */
	assert_int_equal(str_needs_escape("\xe2\x82"), 1);
}

static void test_str_escape_cut_whole(void **state)
{
	char buf[8];

	(void)state;
	/* "ab" + "\x1b" = 6 bytes; the next escape does not fit in 7 */
	assert_string_equal(str_escape(buf, sizeof(buf), "ab\x1b\x1b"), "ab\\x1b");
	assert_string_equal(str_escape(buf, 3, "\xe2\x82\xac"), "");
	/* n bounds a field that may have no NUL */
	assert_string_equal(str_escape_n(buf, sizeof(buf), "abcdef", 3), "abc");
	assert_string_equal(str_escape(buf, 1, "abc"), "");
}

/* The rule one character at a time, for the writers with escapes of their own (JSON, HTML). */
static void test_str_char_len_matches_escape(void **state)
{
	(void)state;
	assert_int_equal(str_char_len("a", 1), 1);
	assert_int_equal(str_char_len("\xe2\x82\xac", 3), 3);
	assert_int_equal(str_char_len("\xe2\x82\xac", 2), 0); /* cut short */
	assert_int_equal(str_char_len("\x1b", 1), 0);
	assert_int_equal(str_char_len("\x7f", 1), 0);
	assert_int_equal(str_char_len("\xc2\x9b", 2), 0);     /* a C1 control */
	assert_int_equal(str_char_len("\xed\xa0\x80", 3), 0); /* a surrogate */
	assert_int_equal(str_char_len("a", 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_str_escape_passes_printable_text),
		cmocka_unit_test(test_str_escape_control_bytes),
		cmocka_unit_test(test_str_escape_invalid_utf8),
		cmocka_unit_test(test_str_escape_cut_whole),
		cmocka_unit_test(test_str_char_len_matches_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
