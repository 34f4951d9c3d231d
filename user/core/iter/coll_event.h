/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * coll_event.h - one MPI rank's call of a collective as a trace record (TC_EV_COLL):
 * the fields that do not fit tc_event's own go into its other_comm bytes.
 */
#ifndef TAILCAUSE_CORE_ITER_COLL_EVENT_H
#define TAILCAUSE_CORE_ITER_COLL_EVENT_H

#include <stdint.h>
#include <string.h>

#include "bpf/events.h"
#include "mpi/coll.h"

/* What other_comm carries, little-endian as every record of the trace. */
struct tc_coll_extra {
	uint64_t bytes;
	int32_t comm_rank;
	int32_t comm_size;
};
_Static_assert(sizeof(struct tc_coll_extra) <= TC_COMM_LEN, "tc_coll_extra");

static inline void tc_coll_event_pack(struct tc_event *e, const struct tc_coll_rec *r,
				      int32_t world_rank)
{
	struct tc_coll_extra x = {r->bytes, r->comm_rank, r->comm_size};

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
	memcpy(e->other_comm, &x, sizeof(x));
}

static inline struct tc_coll_extra tc_coll_event_extra(const struct tc_event *e)
{
	struct tc_coll_extra x;

	memcpy(&x, e->other_comm, sizeof(x));
	return x;
}

#endif /* TAILCAUSE_CORE_ITER_COLL_EVENT_H */
