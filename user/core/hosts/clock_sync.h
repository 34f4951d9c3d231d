/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clock_sync.h - the offset and drift between two hosts' CLOCK_MONOTONIC,
 * estimated from the ping-pong's own timestamps, NTP-style.
 *
 * Each round trip i gives the client's send t1, the server's receive t2 and
 * the client's receive t4 (the server answers at once: its send t3 is t2 plus
 * its turnaround, which only widens the bound below). With the server's clock
 * = the client's + offset(t), causality says t1 <= t2 - offset <= t4.
 *
 * 1. Min-delay filtering: the round trips are cut into windows; in each, the
 *    one with the shortest t4 - t1 is the least delayed, and its midpoint
 *    estimate t2 - (t1 + t4) / 2 the best.
 * 2. A line (offset at the first round trip, drift) is fitted to the windows'
 *    estimates by least squares, refitted once without the windows whose
 *    residual is far beyond the others' (a path that was slow both ways).
 * 3. Causality over every round trip bounds the lines the clocks can follow:
 *    t2 - t4 <= offset(t1) <= t2 - t1. With the drift left free, the allowed
 *    lines pass through an interval at the run's first round trip and one at
 *    its last; the line is moved to join their middles and the uncertainty is
 *    the larger half width: the true offset is inside it all along the run,
 *    whatever the delays' asymmetry and however it changes (when the drift is
 *    constant over the run, the model's one assumption).
 */
#ifndef TAILCAUSE_CORE_CLOCK_SYNC_H
#define TAILCAUSE_CORE_CLOCK_SYNC_H

#include <stddef.h>
#include <stdint.h>

/* One round trip: client send, server receive, client receive. */
struct clock_sync_pt {
	uint64_t t1, t2, t4;
};

struct clock_sync {
	uint64_t t_ref;	       /* client clock: the first round trip's t1 */
	double offset_ns;      /* server - client at t_ref */
	double drift;	       /* d(offset)/dt: 1e-6 is 1 ppm */
	double uncertainty_ns; /* the causal bound's larger half width at the ends */
	double min_rtt_ns;     /* the shortest round trip seen */
	size_t n_points;       /* round trips used */
	size_t n_windows;      /* windows fitted (after the outliers went) */
	int consistent;	       /* 0: no line satisfies causality (the clocks jumped or
				* the drift changed): uncertainty is then the
				* windows' median half round trip plus the violation */
};

/*
 * Estimates from p[0..n), sorted by t1 (n >= 2; round trips with t4 < t1 are
 * skipped). 0, or -EINVAL when fewer than 2 usable round trips remain.
 */
int clock_sync_estimate(const struct clock_sync_pt *p, size_t n, struct clock_sync *out);

/* server - client at client time t. */
double clock_sync_offset_at(const struct clock_sync *c, uint64_t t);

/* A server timestamp on the client's clock. */
uint64_t clock_sync_server_to_client(const struct clock_sync *c, uint64_t server_ns);
/* A client timestamp on the server's clock. */
uint64_t clock_sync_client_to_server(const struct clock_sync *c, uint64_t client_ns);

#endif /* TAILCAUSE_CORE_CLOCK_SYNC_H */
