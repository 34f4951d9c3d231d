// SPDX-License-Identifier: BSD-2-Clause
/* test_log.c - lib/log.h: one line on stderr, what it quotes escaped. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"

/* Runs a logging call with stderr sent to a temporary file; returns what it wrote. */
static const char *captured(void (*fn)(void))
{
	static char buf[512];
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t n;

	assert_non_null(tmp);
	assert_true(saved >= 0);
	fflush(stderr);
	assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
	fn();
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, sizeof(buf) - 1, tmp);
	buf[n] = 0;
	fclose(tmp);
	return buf;
}

static void peer_line(void)
{
	log_err("the peer sent '%.40s'", "tcv\x1b]0;pwned\x07\n\xff");
}

static void plain(void)
{
	log_warn("%s exited with status %d", "caf\xc3\xa9", 3);
}

/* A quoted peer line with control bytes and invalid UTF-8 stays on one, safe line. */
static void test_log_escapes_what_it_quotes(void **state)
{
	(void)state;
	assert_string_equal(captured(peer_line),
			    "tailcause: the peer sent 'tcv\\x1b]0;pwned\\x07\\x0a\\xff'\n");
}

static void test_log_plain_text_unchanged(void **state)
{
	(void)state;
	assert_string_equal(captured(plain),
			    "tailcause: warning: caf\xc3\xa9 exited with status 3\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_escapes_what_it_quotes),
		cmocka_unit_test(test_log_plain_text_unchanged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
