// SPDX-License-Identifier: BSD-2-Clause
/* report.c - trace file -> analysis -> report, with the exit code of each failure. */
#include <errno.h>
#include <string.h>

#include "exitcode.h"
#include "io/log.h"
#include "io/trace_file.h"
#include "report.h"

int report_file(const char *path, struct report_opts *o, FILE *out)
{
	struct tc_analysis_opts ao = { .spike = o->spike, .nic_irq_pattern = o->nic_irq_pattern };
	struct tc_analysis *a = NULL;
	struct tc_trace *t = NULL;
	int err;

	err = trace_file_read(path, &t);
	if (err)
		return err == -ENOMEM ? TC_EXIT_RUNTIME : TC_EXIT_INPUT;
	trace__sort(t);
	err = analysis__run(t, &ao, &a);
	if (err == -EINVAL) {
		log_err("report %s: the trace holds no round trips to analyze", path);
		trace__free(t);
		return TC_EXIT_INPUT;
	}
	if (err) {
		log_err("analyze %s: %s", path, strerror(-err));
		trace__free(t);
		return TC_EXIT_RUNTIME;
	}
	o->path = path;
	report_text(out, t, a, o);
	analysis__free(a);
	trace__free(t);
	return TC_EXIT_OK;
}
