/* SPDX-License-Identifier: BSD-2-Clause */
/* audit_print.h - `tailcause audit` output: a text table with details, or JSON. */
#ifndef TAILCAUSE_REPORT_AUDIT_PRINT_H
#define TAILCAUSE_REPORT_AUDIT_PRINT_H

#include <stdio.h>

#include "core/model/audit.h"

struct audit_print_opts {
	const char *root; /* "/" or the --root directory */
	int cpus_default; /* the probe CPUs were not given (--cpu) */
	int exit_code;	  /* what the command will return */
};

/* The table (one line per check), then each check's evidence, why and fix. */
void audit_print_text(FILE *out, const struct tc_audit *a, const struct audit_print_opts *o);
/* The JSON document of docs/audit-schema.md. */
void audit_print_json(FILE *out, const struct tc_audit *a, const struct audit_print_opts *o);

#endif /* TAILCAUSE_REPORT_AUDIT_PRINT_H */
