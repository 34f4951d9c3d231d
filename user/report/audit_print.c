// SPDX-License-Identifier: BSD-2-Clause
/* audit_print.c - the audit as a text table with details, or as JSON (docs/audit-schema.md). */
#include <string.h>

#include "audit_print.h"
#include "lib/json_out.h"
#include "report_common.h"

#define WIDTH  100
#define INDENT 14

static void wrapped(FILE *out, const char *prefix, const char *text, size_t n)
{
	report_wrap(out, prefix, text, n, WIDTH, INDENT);
}

static void labelled(FILE *out, const char *label, const char *text, size_t n)
{
	char prefix[INDENT + 1];

	snprintf(prefix, sizeof(prefix), "  %-*s", INDENT - 2, label);
	wrapped(out, prefix, text, n);
}

/* "thp-enabled (warn): <finding>", then what is expected, the evidence, why, the fix. */
static void print_details(FILE *out, enum tc_audit_check id, const struct tc_audit_result *r)
{
	const struct tc_audit_info *info = audit_info(id);
	const char *p = r->evidence, *label = "evidence";
	char head[64];

	snprintf(head, sizeof(head), "\n%s (%s): ", info->name, audit_status_name(r->status));
	wrapped(out, head, r->summary, strlen(r->summary));
	labelled(out, "expected", info->title, strlen(info->title));
	while (*p) {
		const char *sep = strstr(p, "; ");
		size_t n = sep ? (size_t)(sep - p) : strlen(p);

		labelled(out, label, p, n);
		label = "";
		p += n + (sep ? 2 : 0);
	}
	labelled(out, "why", info->why, strlen(info->why));
	if (r->fix[0] && r->status != TC_AUDIT_OK)
		labelled(out, "fix", r->fix, strlen(r->fix));
}

void audit_print_text(FILE *out, const struct tc_audit *a, const struct audit_print_opts *o)
{
	size_t n[TC_AUDIT_STATUS_COUNT], total = audit_count(a, n);

	fprintf(out, "tailcause audit  probe CPUs %s%s%s%s\n", a->cpus[0] ? a->cpus : "?",
		o->cpus_default ? " (the last two online; --cpu to choose)" : "",
		strcmp(o->root, "/") ? "  root " : "", strcmp(o->root, "/") ? o->root : "");
	fprintf(out, "\n  %-20s %-8s %s\n", "check", "status", "finding");
	for (int i = 0; i < TC_AUDIT_CHECK_COUNT; i++) {
		const struct tc_audit_result *r = &a->r[i];

		if (r->present)
			fprintf(out, "  %-20s %-8s %.72s%s\n", audit_info(i)->name,
				audit_status_name(r->status), r->summary,
				strlen(r->summary) > 72 ? "..." : "");
	}
	for (int i = 0; i < TC_AUDIT_CHECK_COUNT; i++)
		if (a->r[i].present)
			print_details(out, (enum tc_audit_check)i, &a->r[i]);
	fprintf(out, "\n%zu checks: %zu ok, %zu warn, %zu fail, %zu unknown; exit code %d%s\n",
		total, n[TC_AUDIT_OK], n[TC_AUDIT_WARN], n[TC_AUDIT_FAIL], n[TC_AUDIT_UNKNOWN],
		o->exit_code, n[TC_AUDIT_FAIL] ? " (a check fails)" : "");
}

/* The evidence, "; "-separated in the result, as an array of strings. */
static void json_evidence(struct json *j, const char *p)
{
	json_arr_compact(j, "evidence");
	while (*p) {
		const char *sep = strstr(p, "; ");
		size_t n = sep ? (size_t)(sep - p) : strlen(p);

		json_strn(j, NULL, p, n);
		p += n + (sep ? 2 : 0);
	}
	json_end(j);
}

static void json_check(struct json *j, enum tc_audit_check id, const struct tc_audit_result *r)
{
	const struct tc_audit_info *info = audit_info(id);

	json_obj(j, NULL);
	json_str(j, "id", info->name);
	json_str(j, "title", info->title);
	json_str(j, "status", audit_status_name(r->status));
	json_str(j, "summary", r->summary);
	json_evidence(j, r->evidence);
	json_str(j, "why", info->why);
	json_str(j, "fix", r->status == TC_AUDIT_OK ? "" : r->fix);
	json_end(j);
}

void audit_print_json(FILE *out, const struct tc_audit *a, const struct audit_print_opts *o)
{
	size_t n[TC_AUDIT_STATUS_COUNT];
	struct json j;

	audit_count(a, n);
	json_init(&j, out);
	json_obj(&j, NULL);
	json_str(&j, "schema", "tailcause-audit/1");
	json_str(&j, "root", o->root);
	json_str(&j, "probe_cpus", a->cpus);
	json_bool(&j, "probe_cpus_default", o->cpus_default);
	json_obj_compact(&j, "counts");
	json_u64(&j, "ok", n[TC_AUDIT_OK]);
	json_u64(&j, "warn", n[TC_AUDIT_WARN]);
	json_u64(&j, "fail", n[TC_AUDIT_FAIL]);
	json_u64(&j, "unknown", n[TC_AUDIT_UNKNOWN]);
	json_end(&j);
	json_i64(&j, "exit_code", o->exit_code);
	json_arr(&j, "checks");
	for (int i = 0; i < TC_AUDIT_CHECK_COUNT; i++)
		if (a->r[i].present)
			json_check(&j, (enum tc_audit_check)i, &a->r[i]);
	json_end(&j);
	json_end(&j);
}
