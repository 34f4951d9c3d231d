/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * report_plan.h - how report_file() reads a trace, decided before any of its records is:
 * whole, the --from/--to stretch's blocks alone, or a segment at a time (streamed), from
 * the options and what opening the file told; and what it refuses. Pure (no I/O): the unit
 * test is tests/test_report_plan.c.
 */
#ifndef TAILCAUSE_REPORT_REPORT_PLAN_H
#define TAILCAUSE_REPORT_REPORT_PLAN_H

#include <limits.h>
#include <stdint.h>

#include "report.h"
#include "tracefile/trace_stream.h"

/* What opening the trace told. */
struct report_facts {
	struct trace_stream_info file; /* its size, records and index */
	int marked;		       /* it holds marked iterations (meta iter.spec: --iter) */
	uint64_t mem_avail;	       /* the memory available, in bytes (0: not known) */
};

enum report_read {
	REPORT_READ_WHOLE,    /* every record, then cut to --from/--to where asked */
	REPORT_READ_STRETCH,  /* the --from/--to stretch's blocks alone, as one trace */
	REPORT_READ_STREAMED, /* block by block, analyzed a segment at a time */
};

struct report_plan {
	enum report_read read;
	const char *why;	  /* the decision, in a line */
	char msg[PATH_MAX + 512]; /* a refusal's line */
};

/*
 * The plan for the trace at path (named in a refusal only): 0 with p->read and p->why, or a
 * refusal with p->msg its line: -TC_ERRNO__USAGE (--stream of a report that reads the
 * whole trace), -TC_ERRNO__ENV (a long trace read whole whose records would not fit in the
 * memory available). A trace that did not open intact is read as the options ask, and the
 * read says what is wrong with it.
 */
int report_plan(const char *path, const struct report_opts *o, const struct report_facts *f,
		struct report_plan *p);

/* Whether o asks for a stretch of the run (--from/--to). */
int report_has_stretch(const struct report_opts *o);

#endif /* TAILCAUSE_REPORT_REPORT_PLAN_H */
