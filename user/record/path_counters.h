/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * path_counters.h - the path's own evidence: the counters the NICs and the
 * fabric keep, sampled during the run and placed in time.
 *
 * Found at start: every RDMA port's counters/ and hw_counters/ files whose name
 * says a packet was sent again, a receiver was not ready, congestion was
 * signalled (ECN, CNPs) or the link paused (IB port_xmit_wait), and every
 * network interface's pause-frame statistics (ethtool -S: rx_prio3_pause,
 * tx_pause_ctrl_phy...; read with the ethtool ioctl). A thread reads them
 * every period (off the probe CPUs where a CPU is free) and turns each rise
 * into a TC_EV_COUNTER event [previous reading, this reading] with the delta;
 * the counters' names go into the trace's meta (counter.<N>).
 */
#ifndef TAILCAUSE_RECORD_PATH_COUNTERS_H
#define TAILCAUSE_RECORD_PATH_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

struct path_counters;

/*
 * Finds the counters (sysfs under root, "" for the host's) and names them in t's
 * meta (counter.<N>, from first). NULL with errno on failure; with no counter
 * found, a set that samples nothing.
 */
struct path_counters *path_counters__open(const char *root, struct tc_trace *t, uint32_t first);
/* How many counters it reads. */
size_t path_counters__n(const struct path_counters *pc);
/* Starts the sampling thread, pinned to cpu (-1: not pinned). 0 or -errno (reported). */
int path_counters__start(struct path_counters *pc, unsigned int period_ms, int cpu);
/* The sampling thread's tid (0 before start). */
uint32_t path_counters__tid(const struct path_counters *pc);
/* Hands the events made so far to emit, in time order, and forgets them. */
void path_counters__take(struct path_counters *pc,
			 void (*emit)(void *ctx, const struct tc_event *e), void *ctx);
/* One last reading, then the thread ends. */
void path_counters__stop(struct path_counters *pc);
void path_counters__free(struct path_counters *pc);

/*
 * What a counter called name evidences (TC_PATH_*), or 0 when it is not one the
 * path is judged by: the classification the sampler applies, for the tests.
 */
uint16_t path_counters_classify(const char *name);

#endif /* TAILCAUSE_RECORD_PATH_COUNTERS_H */
