/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * event_span.h - private to core: the span an event is weighed by (a C-state exit costs
 * its exit latency, not the idle time; evidence-only kinds weigh nothing), and the
 * C-states' exit latencies it reads from the trace.
 */
#ifndef TAILCAUSE_CORE_EVENT_SPAN_H
#define TAILCAUSE_CORE_EVENT_SPAN_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

/* Exit latency per C-state, from the trace meta "host.cpuidle.state<N>.latency_us". */
struct idle_latency {
	uint64_t *ns; /* [N]: exit latency of state N in ns; 0 when the trace does not say */
	size_t n;
};

/* Reads the latencies from t's meta; 0 or -ENOMEM. Malformed values count as unknown. */
int idle_latency__load(struct idle_latency *l, const struct tc_trace *t);
void idle_latency__free(struct idle_latency *l);

/*
 * The span [*s, *e) that e is weighed by; *s == *e makes it an instant, which
 * is shown but never credited. Evidence-only kinds and dur_ns == 0 are
 * instants at start_ns; TC_EV_IDLE is [end - L, end) with L the exit latency
 * of its C-state (at most the idle time), an instant at its end when L is
 * unknown; TC_EV_IPI starts when it was sent (aux) where that was seen, since
 * a vCPU stops while the hypervisor delivers it; every other kind is
 * [start_ns, start_ns + dur_ns).
 */
void event_span(const struct idle_latency *l, const struct tc_event *e, uint64_t *s, uint64_t *end);

#define CONTEXT_NO_ITEM SIZE_MAX

#endif /* TAILCAUSE_CORE_EVENT_SPAN_H */
