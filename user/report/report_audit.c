// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_audit.c - the report's "host audit vs measured causes" section: the
 * audit snapshot the recorder stored in the trace, joined to the causes the
 * analysis measured (core/audit_join.c). Formatting only.
 */
#include <stdlib.h>
#include <string.h>

#include "core/audit_join.h"
#include "report.h"

#define JOIN_LINES 8
#define WIDTH	   100
#define INDENT	   4

/* "  - " + text wrapped at WIDTH, continuation lines indented by INDENT. */
static void item(FILE *out, const char *text)
{
	size_t col = (size_t)fprintf(out, "  - ");
	const char *p = text;
	int first = 1;

	while (*p) {
		size_t w = strcspn(p, " ");

		if (!first && col + 1 + w > WIDTH) {
			fprintf(out, "\n%*s", INDENT, "");
			col = INDENT;
		} else if (!first) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, w, out);
		col += w;
		first = 0;
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

static void print_unjoined(FILE *out, const struct tc_audit *au, const struct tc_audit_join *j,
			   size_t n, int any_spikes)
{
	enum tc_audit_check ids[TC_AUDIT_CHECK_COUNT];
	size_t k = audit_join_unused(au, j, n, ids);

	if (!k)
		return;
	fprintf(out, "  %s:\n",
		any_spikes ? "other findings, not tied to a measured cause"
			   : "findings (no spike to tie them to)");
	for (size_t i = 0; i < k; i++) {
		const struct tc_audit_result *r = &au->r[ids[i]];
		char text[TC_AUDIT_SUMMARY_LEN + TC_AUDIT_FIX_LEN + 64];

		snprintf(text, sizeof(text), "%s %s: %s%s%s", audit_info(ids[i])->name,
			 audit_status_name(r->status), r->summary, r->fix[0] ? " \u2014 " : "",
			 r->fix);
		item(out, text);
	}
}

void report_audit(FILE *out, const struct tc_trace *t, const struct tc_analysis *a)
{
	struct tc_audit_join j[JOIN_LINES];
	size_t n = 0, counts[TC_AUDIT_STATUS_COUNT];
	struct tc_audit *au = malloc(sizeof(*au));

	fprintf(out, "\nhost audit vs measured causes\n");
	if (!au)
		return;
	if (audit_from_meta(t, au)) {
		fprintf(out,
			"  this trace carries no audit snapshot (recorded by an older tailcause):"
			" run 'tailcause audit' on the host\n");
		free(au);
		return;
	}
	audit_count(au, counts);
	fprintf(out,
		"  audit at record time (probe CPUs %s): %zu ok, %zu warn, %zu fail, %zu unknown\n"
		"  ('tailcause audit' prints the evidence of each check)\n",
		au->cpus[0] ? au->cpus : "none", counts[TC_AUDIT_OK], counts[TC_AUDIT_WARN],
		counts[TC_AUDIT_FAIL], counts[TC_AUDIT_UNKNOWN]);
	if (audit_join(au, t, a, j, JOIN_LINES, &n)) {
		fprintf(out, "  (cannot join: out of memory)\n");
		free(au);
		return;
	}
	for (size_t i = 0; i < n; i++)
		item(out, j[i].text);
	print_unjoined(out, au, j, n, n > 0);
	free(au);
}
