/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * iter_log.h - a benchmark's own per-iteration log, placed on the tracers' clock by
 * the iterations it marked (record --iter perftest --iter-first K, then
 * report --iter-log FILE).
 *
 * Marking every iteration costs every iteration a uprobe trap (~10 us on the project's
 * VM, as bpftrace's: bench/history/parity-and-iterations.md). With --iter-first K only
 * the first K are marked; perftest's -U list then gives every iteration's round trip, measured
 * on its own clock (cycles over its idea of the CPU's MHz). The K marked ones say
 * where the list starts and how fast its clock runs against CLOCK_MONOTONIC: the
 * line through (listed time before iteration i, where i was marked), by least
 * squares, twice (a mark that an odd delay displaced, like a process's first
 * uprobe hit, is left out of the second). Iteration i then starts on that line at
 * the listed time before it. The error is the marks' scatter around the line, and
 * the rate's error grows with the distance from the anchors: both are stated
 * (struct iter_log_fit).
 */
#ifndef TAILCAUSE_CORE_ITER_LOG_H
#define TAILCAUSE_CORE_ITER_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "samples_csv.h"
#include "core/trace/trace.h"

/*
 * perftest's -U list: after the line "#, usec", one "N, value" line per iteration
 * (value: one way, usec). Fills *us (a new array) and *n. 0, -EINVAL with err filled
 * (no list, a malformed or out-of-order row), or -ENOMEM.
 */
int iter_log_parse_perftest(const char *buf, size_t len, double **us, size_t *n,
			    struct samples_csv_error *err);

struct iter_log_fit {
	size_t anchors;	 /* marked iterations the line was fitted on */
	double rate;	 /* CLOCK_MONOTONIC ns per ns of the log's clock */
	double resid_ns; /* largest distance of a marked start from the line */
	double drift_ns; /* what the rate's own error adds by the last iteration */
};

/*
 * The iterations of the log (us[0..n), one way; a round trip is div times it) on
 * the tracers' clock, from the marked ones marked[0..k) (mark to mark, in order,
 * the first iterations of the same run). *out gets n samples (a new array), on the
 * CPU and thread of the last marked one. 0, -EINVAL (k < 2 or k > n, or the marks do
 * not look like the log's first iterations: err says why), or -ENOMEM.
 */
int iter_log_place(const struct tc_sample *marked, size_t k, const double *us, size_t n,
		   unsigned int div, struct tc_sample **out, struct iter_log_fit *fit,
		   struct samples_csv_error *err);

#endif /* TAILCAUSE_CORE_ITER_LOG_H */
