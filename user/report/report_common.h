/* SPDX-License-Identifier: BSD-2-Clause */
/* report_common.h - what the report formats share: meta look-ups and event descriptions. */
#ifndef TAILCAUSE_REPORT_REPORT_COMMON_H
#define TAILCAUSE_REPORT_REPORT_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace.h"

#define NS_US(ns) ((double)(ns) / 1000.0)
/* The latency a report prints for a sample duration: one way for round trips, else whole. */
#define LAT_US(d, ns) ((double)(ns) / (1000.0 * (d)->div))
#define LAT_NS(d, ns) ((double)(ns) / (double)(d)->div)
/* "one way" or "per iteration", after a latency. */
#define LAT_WHAT(d) ((d)->div == 2 ? "one way" : "per iteration")

/* The meta value for key, or dflt. */
const char *report_meta_or(const struct tc_trace *t, const char *key, const char *dflt);

/* "offcpu", "hardirq", ... as `tailcause dump` names the kinds; "unknown" otherwise. */
const char *report_kind_name(uint16_t kind);

/* One line on what e is ("tid 12 left cpu 3, preempted; cc1 (pid 9) ran next"), into buf. */
void report_event_detail(const struct tc_trace *t, const struct tc_event *e, char *buf, size_t len);

/* A tracer program's state from the trace's "tracer.<concern>.<program>" meta. */
struct report_tracer {
	char concern[32];
	const char *program;
	int attached;
	const char *detail; /* the tracepoint it attached to, or why it did not */
};

/* The i-th tracer entry of t's meta, from *pos on; 1 found (pos advanced), 0 no more. */
int report_next_tracer(const struct tc_trace *t, size_t *pos, struct report_tracer *out);

/* CPUs the probe was pinned to or timed on: sets mark[cpu] = 1 for cpu < n. */
void report_probe_cpus(const struct tc_trace *t, unsigned char *mark, size_t n);

#endif /* TAILCAUSE_REPORT_REPORT_COMMON_H */
