/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * samples_csv.h - iterations timed by the user's own benchmark, as CSV, put in
 * place of a trace's samples (`tailcause report TRACE --samples FILE`).
 *
 * One iteration per line: start_ns,end_ns[,cpu[,tid]], unsigned decimal
 * CLOCK_MONOTONIC nanoseconds (docs/samples-csv.md). Blank lines and lines
 * starting with '#' are skipped; the first other line may be the header
 * "start_ns,end_ns[,cpu[,tid]]". Every row has the same number of columns.
 */
#ifndef TAILCAUSE_CORE_SAMPLES_CSV_H
#define TAILCAUSE_CORE_SAMPLES_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

struct samples_csv_error {
	size_t line; /* 1-based; 0 when the problem is the file as a whole */
	char msg[160];
};

/* Fills err (line 0: the file as a whole) and returns -EINVAL: for the readers of logs too. */
int samples_csv_fail(struct samples_csv_error *err, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct samples_csv {
	struct tc_sample *samples; /* in file order; cpu UINT32_MAX and tid 0 when absent */
	size_t n;
	unsigned int columns; /* 2, 3 or 4 */
};

/*
 * Parses buf[0..len). Returns 0 and fills *out (free with samples_csv__free),
 * -EINVAL with err filled on a malformed line or a file without rows, or
 * -ENOMEM.
 */
int samples_csv_parse(const char *buf, size_t len, struct samples_csv *out,
		      struct samples_csv_error *err);
void samples_csv__free(struct samples_csv *c);

/* The time the trace covers: from its start (or first event) to its last event's end. */
void samples_csv_trace_span(const struct tc_trace *t, uint64_t *lo, uint64_t *hi);

/* How many of s[0..n) lie entirely outside [lo, hi]. */
size_t samples_csv_outside(const struct tc_sample *s, size_t n, uint64_t lo, uint64_t hi);

/*
 * Replaces t's samples by s[0..n) and registers the threads that timed them as
 * probe threads (TC_THREAD_PROBE, not pinned), so the analyzer weighs their
 * off-CPU time, page faults and CPUs as it does the built-in probe's. When the
 * rows name no thread (tid 0), every thread of the traced command is
 * registered: the tids of its off-CPU intervals and TC_THREAD_TARGET threads.
 * Returns 0 or -ENOMEM.
 */
int samples_csv_adopt(struct tc_trace *t, const struct tc_sample *s, size_t n);

#endif /* TAILCAUSE_CORE_SAMPLES_CSV_H */
