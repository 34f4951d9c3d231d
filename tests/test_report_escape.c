// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_report_escape.c - a hostile trace through every renderer (user/report): a task
 * named with an ESC sequence preempts the probe, an IRQ name and the host name hold
 * control bytes and invalid UTF-8. Each format shows them as the one rule writes them
 * (lib/str.h: \xNN), never a raw control byte, and stays valid in its own syntax.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_fixture.h"
#include "core/compare/json_in.h"
#include "core/model/plot.h"
#include "lib/str.h"
#include "report/report.h"
#include "report/report_html.h"

#define HOSTILE_IRQ 31

static struct tc_trace *hostile_trace(void)
{
	struct tc_trace *t = new_trace();

	assert_int_equal(trace__set_meta(t, "host.name", "n\x1b]0;pwned\x07"), 0);
	assert_int_equal(trace__set_meta(t, "host.kernel", "6.1\xff"), 0);
	assert_int_equal(trace__add_irq_name(t, HOSTILE_IRQ, "eth\x1b[2J\xc2\x9b"), 0);
	set_rtt(t, K, 5000);
	add_preempt(t, t0(t, K) + 100, 3500, "hx\x1b[2J");
	set_rtt(t, K + 100, 5000);
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K + 100) + 100, 3500, HOSTILE_IRQ);
	add_offcpu(t, t0(t, K + 200) + 100, 500, 0, 556, "b\x1b[2J");
	return t;
}

/*
 * What renderer f writes for the hostile trace (free() it). raw: its host name put back
 * raw, past the model's escaping, for the formats' own escaping to meet.
 */
static char *render_trace(enum report_format f, int raw)
{
	struct report_opts o = {.format = f, .top = 3, .trace_kept = 1};
	struct tc_trace *t = hostile_trace();
	struct tc_analysis *a = run(t);
	struct hist *h = plot_rtt_hist(t->samples, t->n_samples);
	struct report_result r;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	assert_non_null(h);
	for (size_t i = 0; raw && i < t->n_meta; i++) {
		if (strcmp(t->meta[i].key, "host.name"))
			continue;
		free(t->meta[i].val);
		t->meta[i].val = strdup("n\x1b]0;pwned\x07\n\"\\\xff");
		assert_non_null(t->meta[i].val);
	}
	r = (struct report_result){.t = t, .a = a, .h = h};
	assert_int_equal(report_render("t.tct", &o, &r, out), 0);
	fclose(out);
	hist__free(h);
	analysis__free(a);
	trace__free(t);
	return buf;
}

static char *render(enum report_format f)
{
	return render_trace(f, 0);
}

/* Lines of valid UTF-8 without a control character: safe on a terminal. */
static void assert_safe(const char *s)
{
	size_t left = strlen(s);

	while (left) {
		size_t n = *s == '\n' ? 1 : str_char_len(s, left);

		if (!n)
			fail_msg("unsafe byte 0x%02x at ...%.40s", (unsigned char)*s, s);
		s += n;
		left -= n;
	}
}

static void test_report_text_escapes(void **state)
{
	char *s = render(REPORT_TEXT);

	(void)state;
	assert_safe(s);
	assert_non_null(strstr(s, "preemption:hx\\x1b[2J"));
	assert_non_null(strstr(s, "hardirq:eth\\x1b[2J\\xc2\\x9b"));
	assert_non_null(strstr(s, "n\\x1b]0;pwned\\x07"));
	free(s);
}

/* JSON: the same names as the text shows them, and a document json_in reads. */
static void test_report_json_escapes(void **state)
{
	char *s = render(REPORT_JSON), *p = s;
	struct jv_error je = {0};
	struct jv *root;

	(void)state;
	assert_safe(s);
	assert_int_equal(jv_parse(s, strlen(s), &root, &je), 0);
	assert_string_equal(jv_str_or(jv_path(root, "host.name"), ""), "n\\x1b]0;pwned\\x07");
	jv__free(root);
	assert_non_null(strstr(s, "\"preemption:hx\\\\x1b[2J\""));
	while ((p = strstr(p, "\\u00")))
		fail_msg("a control character reached the JSON: ...%.40s", p);
	free(s);
}

static void test_report_perfetto_escapes(void **state)
{
	char *s = render(REPORT_PERFETTO), *p = s;
	struct jv_error je = {0};
	struct jv *root;

	(void)state;
	assert_safe(s);
	assert_int_equal(jv_parse(s, strlen(s), &root, &je), 0);
	jv__free(root);
	assert_non_null(strstr(s, "preemption:hx\\\\x1b[2J"));
	assert_non_null(strstr(s, "blocked (b\\\\x1b[2J ran)"));
	while ((p = strstr(p, "\\u00")))
		fail_msg("a control character reached the JSON: ...%.40s", p);
	free(s);
}

static void test_report_html_escapes(void **state)
{
	char *s = render(REPORT_HTML);

	(void)state;
	assert_safe(s);
	assert_non_null(strstr(s, "preemption:hx\\x1b[2J"));
	assert_non_null(strstr(s, "n\\x1b]0;pwned\\x07"));
	free(s);
}

/* OpenMetrics: a label's \xNN has its backslash escaped, so a parser reads \xNN back. */
static void test_report_openmetrics_escapes(void **state)
{
	char *s = render(REPORT_OPENMETRICS);

	(void)state;
	assert_safe(s);
	assert_non_null(strstr(s, "cause=\"preemption:hx\\\\x1b[2J\""));
	assert_non_null(strstr(s, "host=\"n\\\\x1b]0;pwned\\\\x07\""));
	free(s);
}

/* A raw string that reached a renderer: JSON, HTML and OpenMetrics escape it themselves. */
static void test_report_formats_escape_raw_text(void **state)
{
	char *s = render_trace(REPORT_JSON, 1);
	struct jv_error je = {0};
	struct jv *root;

	(void)state;
	assert_safe(s);
	assert_int_equal(jv_parse(s, strlen(s), &root, &je), 0);
	assert_string_equal(jv_str_or(jv_path(root, "host.name"), ""),
			    "n\x1b]0;pwned\x07\n\"\\\xef\xbf\xbd"); /* U+FFFD */
	jv__free(root);
	free(s);
	s = render_trace(REPORT_HTML, 1);
	assert_safe(s);
	assert_non_null(strstr(s, "n\\x1b]0;pwned\\x07\\x0a&quot;\\\\xff"));
	free(s);
	s = render_trace(REPORT_OPENMETRICS, 1);
	assert_safe(s);
	assert_non_null(strstr(s, "host=\"n\\\\x1b]0;pwned\\\\x07\\\\x0a\\\"\\\\\\\\xff\""));
	free(s);
}

/* html_esc() on its own: markup as entities, what the rule escapes as \xNN text. */
static void test_html_esc_hostile_strings(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(out);
	html_esc(out, "<b a='1'>&\"\x1b[2J\x7f\xc2\x9b\xff caf\xc3\xa9");
	html_esc(out, NULL);
	fclose(out);
	assert_string_equal(buf, "&lt;b a=&#39;1&#39;&gt;&amp;&quot;\\x1b[2J\\x7f\\xc2\\x9b\\xff "
				 "caf\xc3\xa9");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_text_escapes),
		cmocka_unit_test(test_report_json_escapes),
		cmocka_unit_test(test_report_perfetto_escapes),
		cmocka_unit_test(test_report_html_escapes),
		cmocka_unit_test(test_report_openmetrics_escapes),
		cmocka_unit_test(test_report_formats_escape_raw_text),
		cmocka_unit_test(test_html_esc_hostile_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
