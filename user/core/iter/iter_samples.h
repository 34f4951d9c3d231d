/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * iter_samples.h - a traced command's iterations, made from the marks its
 * threads left (TC_EV_MARK, `record --iter`), so that an unmodified benchmark's
 * iterations are reported like the built-in probe's round trips.
 *
 * Per thread, in time order:
 *   - a thread with END marks (a start and an end point, e.g. sockperf's send
 *     and the receive's return): each BEGIN opens an iteration, the next END
 *     closes it. A BEGIN that another BEGIN follows before any END is unended
 *     (dropped, counted); an END with nothing open is stray (counted);
 *   - a thread with BEGIN marks only (one point, e.g. perftest's post of each
 *     send): successive marks make an iteration, [mark i, mark i+1), which is
 *     what a benchmark that times the gap between its posts measures; the last
 *     mark opens nothing that ends.
 * An iteration's CPU is its BEGIN mark's (where it started: a thread that moved
 * meanwhile is followed by its own events, wherever it ran).
 *
 * A marker fires inside the kernel; the benchmark stamps its clock outside. Where
 * the recorder measured the difference (record/mark_calib.h: iter.pre_ns and
 * iter.post_ns), a BEGIN..END iteration's bounds move out by it, so it is the
 * iteration the benchmark timed. Mark to mark, both bounds sit at the same point
 * and the difference cancels.
 */
#ifndef TAILCAUSE_CORE_ITER_SAMPLES_H
#define TAILCAUSE_CORE_ITER_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

struct iter_stats {
	size_t marks;	   /* TC_EV_MARK events read */
	size_t iterations; /* samples made */
	size_t threads;	   /* threads that left marks */
	size_t unended;	   /* BEGINs no END closed (paired threads) */
	size_t stray_ends; /* ENDs with no BEGIN open */
	size_t paired;	   /* threads with BEGIN and END marks */
};

/*
 * How a trace's latencies are shown: 2 (one way, RTT/2) for the probe's round trips
 * and the ping-pong presets that print them so (iter.div), 1 (as timed) for other
 * marked iterations.
 */
unsigned int iter_div_of(const struct tc_trace *t);

/* How far a BEGIN..END iteration's bounds move out (0: not measured). */
struct iter_adjust {
	uint64_t pre_ns;  /* its start, earlier */
	uint64_t post_ns; /* its end, later */
};

/* The adjustment the recorder stored in t's meta (iter.pre_ns, iter.post_ns), or zeros. */
void iter_adjust_of(const struct tc_trace *t, struct iter_adjust *a);

/*
 * Makes the iterations of the marks among ev[0..n) (any order; other kinds are
 * skipped) into a new array *out of *n_out samples in time order (NULL and 0 when
 * there are none), BEGIN..END ones adjusted by adj (NULL: not), and fills *st.
 * Returns 0 or -ENOMEM.
 */
int iter_samples_build(const struct tc_event *ev, size_t n, const struct iter_adjust *adj,
		       struct tc_sample **out, size_t *n_out, struct iter_stats *st);

/*
 * A trace recorded with --iter: its marks' iterations become its samples (the
 * threads that left them its probe threads, as samples_csv_adopt does) and the
 * marks leave its events, so nothing downstream counts them as host activity.
 * Returns 0 (st->iterations may be 0: no iteration was marked; the samples are
 * then untouched), or -ENOMEM.
 */
int iter_samples_adopt(struct tc_trace *t, struct iter_stats *st);

#endif /* TAILCAUSE_CORE_ITER_SAMPLES_H */
