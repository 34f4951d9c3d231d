/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * peer_join.h - the two-host report: the peer's trace joined to this one.
 *
 * Both traces come from one run of a two-host probe (the same run.id, one
 * client and one server). Their round trips are paired by index (the client's
 * s[i] = [request i sent, answer i received], the server's s[i].t_start =
 * request i received), clock_sync.h estimates the peer's clock from them, and
 * the peer's events and threads are merged into this trace on this trace's
 * clock: CPUs numbered from PEER_CPU_BASE, tids marked with PEER_TID_BIT, IRQ
 * numbers from PEER_IRQ_BASE with the peer's IRQ names, its path counters from
 * PEER_COUNTER_BASE with their names, its kernel functions' ids (func_ids.h) from
 * PEER_FUNC_BASE with their names. The analyzer then
 * names peer intervals "peer:<cause>" (causes.h), credits them only in spikes
 * larger than the clock uncertainty, and calls what neither host explains
 * `path`. The peer's round trips are not merged: the spikes are this host's.
 */
#ifndef TAILCAUSE_CORE_PEER_JOIN_H
#define TAILCAUSE_CORE_PEER_JOIN_H

#include <stddef.h>
#include <stdint.h>

#include "clock_sync.h"
#include "core/trace/func_ids.h"
#include "core/trace/trace.h"

#define PEER_CPU_BASE	  32768u      /* below the analyzer's CPU map size, above any real CPU */
#define PEER_TID_BIT	  0x40000000u /* above any pid_max (2^22) */
#define PEER_IRQ_BASE	  0x40000000u
#define PEER_COUNTER_BASE 0x100000u /* the peer's counter.<N> names become counter.<N + this> */
/* the peer's function ids: above this trace's, below an older trace's kernel addresses */
#define PEER_FUNC_BASE (TC_FUNC_ID_MAX + 1)

struct peer_join {
	struct clock_sync sync; /* server - client */
	int local_is_client;
	int unverified;	 /* no run id (two record --iter traces): paired by their iterations */
	size_t n_pairs;	 /* round trips paired */
	size_t n_events; /* peer events merged */
	char why[200];	 /* the reason, when the join fails */
};

/*
 * Joins peer into local (both as read, before trace__split_wakeups() and
 * trace__sort()). 0; -EINVAL when they do not belong together (another run,
 * the same side twice, no round trips in common, no overlap in time): j->why
 * says which; -ENOMEM. Two traces of an unmodified benchmark's ends (record
 * --iter: no run id, their samples made from the marks) are joined with the end
 * whose first iteration began first on the real-time clocks as the one that
 * started the exchange, if their iterations pair up (a line fits them all).
 */
int peer_join(struct tc_trace *local, const struct tc_trace *peer, struct peer_join *j);

/*
 * On a client's joined trace: the round trip s split where the server's probe read its
 * request: *to_ns from the send to then (the way there, and the server thread's
 * wake-up), *back_ns from then to the answer (its turnaround and the way back). 0, or
 * -ENOENT where no such read falls in it.
 */
int peer_direction(const struct tc_trace *t, const struct tc_sample *s, uint64_t *to_ns,
		   uint64_t *back_ns);

/* Which leg peer_direction()'s split says was slow, beyond its usual time and the clocks' error. */
enum peer_leg {
	PEER_LEG_NEITHER = 0, /* neither by more than the clock uncertainty */
	PEER_LEG_TO,	      /* before the peer read the request */
	PEER_LEG_BACK,	      /* after: the peer's turnaround and the way back */
};
enum peer_leg peer_slow_leg(const struct tc_trace *t, uint64_t to_ns, uint64_t back_ns);

/*
 * On a joined trace: the peer's event e in the peer's own numbers, as its host had them
 * (its CPUs, thread ids and IRQ numbers: the merge undone); its functions' and counters'
 * ids stay the joined trace's, where their names are.
 */
struct tc_event peer_join_own(const struct tc_event *e);

/* On a joined trace: the peer's CPU number of a merged CPU. */
static inline uint32_t peer_join_cpu(uint32_t cpu)
{
	return cpu - PEER_CPU_BASE;
}

#endif /* TAILCAUSE_CORE_PEER_JOIN_H */
