/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * coll_event.h - one MPI rank's call of a collective as a trace record (TC_EV_COLL),
 * and where the rest of what the rank wrote goes: the bytes as other_comm's text
 * (the trace keeps that field as a name), each communicator's size in the trace's
 * meta as coll.size.<key in hex> (the same for every call on it).
 */
#ifndef TAILCAUSE_CORE_ITER_COLL_EVENT_H
#define TAILCAUSE_CORE_ITER_COLL_EVENT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/events.h"
#include "mpi/coll.h"

#define COLL_SIZE_KEY_LEN 32 /* "coll.size." and 16 hex digits */

static inline void tc_coll_event_pack(struct tc_event *e, const struct tc_coll_rec *r,
				      int32_t world_rank)
{
	memset(e, 0, sizeof(*e));
	e->kind = TC_EV_COLL;
	e->start_ns = r->t_in;
	e->dur_ns = r->t_out > r->t_in ? r->t_out - r->t_in : 0;
	e->tid = r->tid;
	e->cpu = r->cpu;
	e->aux = r->comm;
	e->arg = (uint32_t)r->seq;
	e->other_pid = (uint32_t)world_rank;
	e->flags = r->op;
	/* up to 15 digits: a petabyte less one */
	snprintf(e->other_comm, sizeof(e->other_comm), "%llu",
		 (unsigned long long)(r->bytes < 999999999999999ull ? r->bytes
								    : 999999999999999ull));
}

/* The bytes a call's record carries (0 where its text is not a number). */
static inline uint64_t tc_coll_event_bytes(const struct tc_event *e)
{
	char buf[TC_COMM_LEN + 1];

	memcpy(buf, e->other_comm, TC_COMM_LEN);
	buf[TC_COMM_LEN] = '\0';
	return strtoull(buf, NULL, 10);
}

/* The meta key of communicator comm's size. */
static inline void tc_coll_size_key(char key[COLL_SIZE_KEY_LEN], uint64_t comm)
{
	snprintf(key, COLL_SIZE_KEY_LEN, "coll.size.%016llx", (unsigned long long)comm);
}

#endif /* TAILCAUSE_CORE_ITER_COLL_EVENT_H */
