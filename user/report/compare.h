/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * compare.h - `tailcause diff` and `rank`: runs loaded from traces or JSON reports,
 * and the comparisons (core/compare/diff.c, core/compare/rank.c) written as text, JSON or HTML.
 */
#ifndef TAILCAUSE_REPORT_COMPARE_H
#define TAILCAUSE_REPORT_COMPARE_H

#include <stdio.h>

#include "core/compare/diff.h"
#include "core/compare/rank.h"
#include "core/compare/summary.h"
#include "lib/json_out.h"

struct compare_opts {
	struct tc_spike_rule spike;  /* how a trace's spikes are found */
	const char *nic_irq_pattern; /* and its NIC's IRQs named */
};

/*
 * A trace (.tct) or a JSON report (tailcause report --format json) into s, which
 * names path as its source. 0; -TC_ERRNO__INPUT (a file that is neither, a noise
 * report, another schema version); -ENOMEM. Reported.
 */
int compare_load(const char *path, const struct compare_opts *o, struct summary *s);

/* The diff in words, as JSON (docs/diff-schema.md), as an HTML page; 0 or -ENOMEM. */
int diff_text(FILE *out, const struct diff *d);
int diff_json(FILE *out, const struct diff *d);
int diff_html(FILE *out, const struct diff *d);

/* The same for a rank (docs/rank-schema.md). */
int rank_text(FILE *out, const struct rank *r);
int rank_json(FILE *out, const struct rank *r);
int rank_html(FILE *out, const struct rank *r);

/* What the renderers share: the JSON head (schema, its version, the tool), and the HTML
 * warning of runs that may not compare (why: "the probes differ ..."). */
void compare_json_head(struct json *j, const char *schema, unsigned version);
void compare_html_mismatch(FILE *out, const char *why);

#endif /* TAILCAUSE_REPORT_COMPARE_H */
