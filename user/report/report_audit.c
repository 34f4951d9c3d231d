// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_audit.c - the report's "host audit vs measured causes" section: the
 * audit snapshot the recorder stored in the trace, joined to the causes the
 * analysis measured (core/model/audit_join.c). Formatting only.
 */
#include <string.h>

#include "report.h"
#include "report_common.h"

#define WIDTH  100
#define INDENT 4

/* "  - " + text wrapped at WIDTH, continuation lines indented by INDENT. */
static void item(FILE *out, const char *text)
{
	report_wrap(out, "  - ", text, strlen(text), WIDTH, INDENT);
}

static void print_unjoined(FILE *out, const struct rm_audit *ra)
{
	if (!ra->n_unused)
		return;
	fprintf(out, "  %s:\n",
		ra->n_join ? "other findings, not tied to a measured cause"
			   : "findings (no spike to tie them to)");
	for (size_t i = 0; i < ra->n_unused; i++) {
		const struct tc_audit_result *r = &ra->au.r[ra->unused[i]];
		char text[TC_AUDIT_SUMMARY_LEN + TC_AUDIT_FIX_LEN + 64];

		snprintf(text, sizeof(text), "%s %s: %s%s%s", audit_info(ra->unused[i])->name,
			 audit_status_name(r->status), r->summary, r->fix[0] ? " \u2014 " : "",
			 r->fix);
		item(out, text);
	}
}

void report_audit(FILE *out, const struct report_model *m)
{
	const struct rm_audit *ra = &m->audit;

	fprintf(out, "\nhost audit vs measured causes\n");
	if (!ra->present) {
		fprintf(out,
			"  this trace carries no audit snapshot (recorded by an older tailcause):"
			" run 'tailcause audit' on the host\n");
		return;
	}
	fprintf(out,
		"  audit at record time (probe CPUs %s): %zu ok, %zu warn, %zu fail, %zu unknown\n"
		"  ('tailcause audit' prints the evidence of each check)\n",
		ra->au.cpus[0] ? ra->au.cpus : "none", ra->counts[TC_AUDIT_OK],
		ra->counts[TC_AUDIT_WARN], ra->counts[TC_AUDIT_FAIL], ra->counts[TC_AUDIT_UNKNOWN]);
	if (ra->join_failed) {
		fprintf(out, "  (cannot join: out of memory)\n");
		return;
	}
	for (size_t i = 0; i < ra->n_join; i++)
		item(out, ra->join[i].text);
	print_unjoined(out, ra);
}
