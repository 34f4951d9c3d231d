// SPDX-License-Identifier: BSD-2-Clause
/* event_span.c - the span an event is weighed by, and the C-states' exit latencies it
 * needs (event_span.h). */
#include <stdlib.h>
#include <string.h>

#include "causes.h"
#include "core/util/grow.h"
#include "event_span.h"

#define LAT_PREFIX "host.cpuidle.state"
#define LAT_SUFFIX ".latency_us"
#define MAX_STATES 1024 /* cpuidle has under ten; a larger index is a corrupt key */

/* The N of "host.cpuidle.state<N>.latency_us", or -1. */
static long state_of(const char *key)
{
	size_t np = strlen(LAT_PREFIX);
	const char *p = key + np;
	long n = 0;

	if (strncmp(key, LAT_PREFIX, np) || *p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		n = n * 10 + (*p - '0');
		if (n >= MAX_STATES)
			return -1;
	}
	return strcmp(p, LAT_SUFFIX) ? -1 : n;
}

/* Microseconds "123" into ns, saturating; 0 when not a plain decimal integer. */
static uint64_t parse_us(const char *v)
{
	uint64_t us = 0;

	if (!v || !*v)
		return 0;
	for (; *v; v++) {
		if (*v < '0' || *v > '9')
			return 0;
		if (us > (UINT64_MAX - 9) / 10)
			return UINT64_MAX;
		us = us * 10 + (uint64_t)(*v - '0');
	}
	return us > UINT64_MAX / 1000 ? UINT64_MAX : us * 1000;
}

int idle_latency__load(struct idle_latency *l, const struct tc_trace *t)
{
	size_t n = 0;

	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < t->n_meta; i++) {
		long s = state_of(t->meta[i].key);

		if (s >= 0 && (size_t)s >= n)
			n = (size_t)s + 1;
	}
	if (!n)
		return 0;
	l->ns = calloc(n, sizeof(*l->ns));
	if (!l->ns)
		return -ENOMEM;
	l->n = n;
	for (size_t i = 0; i < t->n_meta; i++) {
		long s = state_of(t->meta[i].key);

		if (s >= 0)
			l->ns[s] = parse_us(t->meta[i].val);
	}
	return 0;
}

void idle_latency__free(struct idle_latency *l)
{
	free(l->ns);
	memset(l, 0, sizeof(*l));
}

void event_span(const struct idle_latency *l, const struct tc_event *e, uint64_t *s, uint64_t *end)
{
	uint64_t start = e->start_ns, stop = sat_add(start, e->dur_ns), lat;

	if (e->kind == TC_EV_COUNTER) {
		/* it moved somewhere between its two readings: evidence for what overlaps them */
		*s = start;
		*end = stop;
		return;
	}
	if (!e->dur_ns || causes_evidence_only(e->kind)) {
		*s = *end = start;
		return;
	}
	if (e->kind == TC_EV_IPI && e->sent_ns && e->sent_ns < start) {
		/* From the send: a vCPU stops while the hypervisor delivers the IPI. */
		*s = e->sent_ns;
		*end = stop;
		return;
	}
	if (e->kind == TC_EV_IDLE) {
		/* The CPU was idle anyway; what the probe waits for is the way out. */
		lat = l && e->arg < l->n ? l->ns[e->arg] : 0;
		if (lat > stop - start)
			lat = stop - start;
		*s = stop - lat;
		*end = stop;
		return;
	}
	*s = start;
	*end = stop;
}
