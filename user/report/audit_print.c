// SPDX-License-Identifier: BSD-2-Clause
/* audit_print.c - the audit as a text table with details, or as JSON (docs/audit-schema.md). */
#include <string.h>

#include "audit_print.h"

#define WIDTH  100
#define INDENT 14

/* Prints prefix, then text wrapped at WIDTH with continuation lines indented by INDENT. */
static void wrapped(FILE *out, const char *prefix, const char *text, size_t n)
{
	size_t col = (size_t)fprintf(out, "%s", prefix);
	const char *p = text, *end = text + n;
	int first = 1;

	while (p < end) {
		const char *sp = p;
		size_t w;

		while (sp < end && *sp != ' ')
			sp++;
		w = (size_t)(sp - p);
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
		p = sp;
		while (p < end && *p == ' ')
			p++;
	}
	fputc('\n', out);
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

/* Length of a valid UTF-8 sequence at p (at most n bytes), 0 when invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;

	if (p[0] >= 0xf5 || !len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* A JSON string of s[0..n): escapes quotes, backslashes and control bytes, and replaces
 * bytes that are not UTF-8 (sysfs and comm names are arbitrary bytes) with U+FFFD. */
static void json_str(FILE *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	fputc('"', out);
	while (p < end) {
		size_t len;

		if (*p == '"' || *p == '\\') {
			fprintf(out, "\\%c", *p++);
		} else if (*p < 0x20) {
			fprintf(out, "\\u%04x", *p++);
		} else if (*p < 0x80) {
			fputc(*p++, out);
		} else if ((len = utf8_len(p, (size_t)(end - p)))) {
			fwrite(p, 1, len, out);
			p += len;
		} else {
			fputs("\\ufffd", out);
			p++;
		}
	}
	fputc('"', out);
}

static void json_evidence(FILE *out, const char *p)
{
	int first = 1;

	fputc('[', out);
	while (*p) {
		const char *sep = strstr(p, "; ");
		size_t n = sep ? (size_t)(sep - p) : strlen(p);

		fputs(first ? "" : ", ", out);
		json_str(out, p, n);
		first = 0;
		p += n + (sep ? 2 : 0);
	}
	fputc(']', out);
}

static void json_check(FILE *out, enum tc_audit_check id, const struct tc_audit_result *r, int last)
{
	const struct tc_audit_info *info = audit_info(id);

	fprintf(out, "    {\n      \"id\": ");
	json_str(out, info->name, strlen(info->name));
	fprintf(out, ",\n      \"title\": ");
	json_str(out, info->title, strlen(info->title));
	fprintf(out,
		",\n      \"status\": \"%s\",\n      \"summary\": ", audit_status_name(r->status));
	json_str(out, r->summary, strlen(r->summary));
	fprintf(out, ",\n      \"evidence\": ");
	json_evidence(out, r->evidence);
	fprintf(out, ",\n      \"why\": ");
	json_str(out, info->why, strlen(info->why));
	fprintf(out, ",\n      \"fix\": ");
	json_str(out, r->status == TC_AUDIT_OK ? "" : r->fix,
		 r->status == TC_AUDIT_OK ? 0 : strlen(r->fix));
	fprintf(out, "\n    }%s\n", last ? "" : ",");
}

void audit_print_json(FILE *out, const struct tc_audit *a, const struct audit_print_opts *o)
{
	size_t n[TC_AUDIT_STATUS_COUNT];
	int last = -1;

	audit_count(a, n);
	for (int i = 0; i < TC_AUDIT_CHECK_COUNT; i++)
		if (a->r[i].present)
			last = i;
	fprintf(out, "{\n  \"schema\": \"tailcause-audit/1\",\n  \"root\": ");
	json_str(out, o->root, strlen(o->root));
	fprintf(out, ",\n  \"probe_cpus\": ");
	json_str(out, a->cpus, strlen(a->cpus));
	fprintf(out, ",\n  \"probe_cpus_default\": %s,\n", o->cpus_default ? "true" : "false");
	fprintf(out,
		"  \"counts\": {\"ok\": %zu, \"warn\": %zu, \"fail\": %zu, \"unknown\": %zu},\n",
		n[TC_AUDIT_OK], n[TC_AUDIT_WARN], n[TC_AUDIT_FAIL], n[TC_AUDIT_UNKNOWN]);
	fprintf(out, "  \"exit_code\": %d,\n  \"checks\": [\n", o->exit_code);
	for (int i = 0; i < TC_AUDIT_CHECK_COUNT; i++)
		if (a->r[i].present)
			json_check(out, (enum tc_audit_check)i, &a->r[i], i == last);
	fprintf(out, "  ]\n}\n");
}
