/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * coll.h - MPI collectives from the ranks' records (TC_EV_COLL, record --iter mpi):
 * each instance of a collective (a communicator's n-th call) with each rank's
 * arrival and departure, and the rank the others waited for.
 *
 * The last rank to arrive is the straggler. It is late by its arrival less the
 * median arrival of the others: what the others spent waiting for it beyond their
 * own spread. The rest of the instance, from that arrival to the last departure, is
 * the collective itself (the transport). Why the straggler was late is a question
 * about its own thread before it arrived: each rank's step, from its previous
 * call's return to this call's entry, is a sample of that rank's thread (the
 * report's iterations), so that the analyzer weighs what disturbed it there
 * against its usual step, as it weighs a probe's round trip.
 */
#ifndef TAILCAUSE_CORE_ITER_COLL_H
#define TAILCAUSE_CORE_ITER_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

/* One rank's call of a collective. */
struct coll_call {
	uint64_t t_in, t_out;
	uint64_t comm;	/* the communicator's key */
	uint64_t bytes; /* what the rank contributes */
	uint32_t seq;	/* the call's number on the communicator */
	uint32_t tid, cpu;
	int32_t rank;	   /* in MPI_COMM_WORLD */
	int32_t comm_size; /* the communicator's (0: not recorded) */
	uint16_t op;
};

/* One instance: every member's call number seq on communicator comm. */
struct coll_instance {
	uint64_t comm;
	uint32_t seq;
	uint16_t op;
	uint64_t bytes;	   /* the largest any rank contributes */
	uint32_t n_calls;  /* ranks seen */
	int32_t comm_size; /* ranks it has */
	uint64_t first_in, last_in, last_out;
	size_t straggler; /* the last arrival: index into coll_model.calls (SIZE_MAX: < 2) */
	uint64_t late_ns; /* its arrival less the median of the others' */
};

struct coll_model {
	struct coll_call *calls; /* by communicator, number, then arrival */
	size_t n_calls;
	struct coll_instance *inst; /* in the order of their first arrival */
	size_t n_inst;
	size_t incomplete; /* instances some ranks of the communicator are missing from */
	size_t odd;	   /* calls whose operation or size disagrees with their instance's */
};

/* "allreduce", "bcast", ...; "other" for an operation this version does not know. */
const char *coll_op_name(uint16_t op);

/* An instance's time: from the first arrival to the last departure. */
static inline uint64_t coll_duration(const struct coll_instance *in)
{
	return in->last_out > in->first_in ? in->last_out - in->first_in : 0;
}

/*
 * The collectives among t's events (TC_EV_COLL; their communicators' sizes from its
 * meta, 0 where it has none) into m; 0 or -ENOMEM.
 * Every call is kept: an instance that some ranks are missing from (a rank that died,
 * a communicator seen by some ranks only) is counted in m->incomplete.
 */
int coll_build(const struct tc_trace *t, struct coll_model *m);

/*
 * Each rank thread's steps, from one call's return to its next call's entry, as
 * samples (time order) into *out; 0 or -ENOMEM.
 */
int coll_steps(struct coll_model *m, struct tc_sample **out, size_t *n_out);

void coll_model_free(struct coll_model *m);

#endif /* TAILCAUSE_CORE_ITER_COLL_H */
