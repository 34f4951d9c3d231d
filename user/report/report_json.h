/* SPDX-License-Identifier: BSD-2-Clause */
/* report_json.h - private to the JSON report: the parts report_json*.c share. */
#ifndef TAILCAUSE_REPORT_REPORT_JSON_H
#define TAILCAUSE_REPORT_REPORT_JSON_H

#include "lib/json_out.h"
#include "report.h"

/* The "noise" member of a noise report (report_json_noise.c); 0 or -ENOMEM. */
int report_json_noise(struct json *j, const struct report_model *m);
/* record --iter mpi: the collectives object (nothing without collectives). */
void report_json_coll(struct json *j, const struct report_model *m);

#endif /* TAILCAUSE_REPORT_REPORT_JSON_H */
