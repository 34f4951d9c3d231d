// SPDX-License-Identifier: BSD-2-Clause
/* compare_out.c - what the diff and rank renderers share: the JSON head, the mismatch warning. */
#include "compare.h"
#include "lib/version.h"
#include "report_html.h"

void compare_json_head(struct json *j, const char *schema, unsigned version)
{
	json_str(j, "schema", schema);
	json_u64(j, "schema_version", version);
	json_obj_compact(j, "tool");
	json_str(j, "name", "tailcause");
	json_str(j, "version", TAILCAUSE_VERSION);
	json_end(j);
}

void compare_html_mismatch(FILE *out, const char *why)
{
	fputs("<p class=\"warn\">", out);
	html_esc(out, why);
	fputs(": the figures may not be comparable.</p>\n", out);
}
