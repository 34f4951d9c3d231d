/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * coll.h - the collective records an MPI rank leaves for the recorder: the format
 * shared by the wrapper library preloaded into the ranks (mpi/tcmpi.c) and the
 * recorder that reads them, as bpf/events.h is shared with the BPF programs.
 *
 * Each rank process writes one file, TAILCAUSE_COLL_DIR/coll.<pid>, mapped shared: a
 * header, a commit byte per block, then up to `capacity` records in blocks of
 * TC_COLL_BLOCK. A thread gathers its records in a block of its own memory (stores that
 * stay in the cache) and copies the block into the file when it is full, older than
 * TC_COLL_FLUSH_NS, or at MPI_Finalize: it reserves the block's place (`count`, in
 * records), copies it with stores that bypass the cache, fences, and only then sets the
 * block's commit byte (a release store). A reader takes the records of committed blocks
 * (acquire) whose op is set (a block copied early has unused slots, left zero). The
 * file's pages outlive a killed rank: what it committed is kept; the block it was
 * gathering is lost with it. Calls that found the file full are counted in `lost`.
 * Every field is the writer's word: the reader bounds all of them by the file's size.
 */
#ifndef TAILCAUSE_MPI_COLL_H
#define TAILCAUSE_MPI_COLL_H

#include <stdint.h>

#define TC_COLL_MAGIC	    "TCCOLL1" /* 8 bytes with its NUL */
#define TC_COLL_VERSION	    2
#define TC_COLL_ENV_DIR	    "TAILCAUSE_COLL_DIR" /* where the files go; unset: record nothing */
#define TC_COLL_ENV_MAX	    "TAILCAUSE_COLL_MAX" /* records per rank (default below) */
#define TC_COLL_DEFAULT_MAX (256u * 1024)	 /* a multiple of TC_COLL_BLOCK */
#define TC_COLL_MAX_MAX	    (16u * 1024 * 1024)
#define TC_COLL_BLOCK	    64		       /* records a block: copied and committed at once */
#define TC_COLL_FLUSH_NS    (100ull * 1000000) /* a block older than this is copied */

/* The collectives recorded: the blocking ones of MPI-3's collective chapter most used. */
enum tc_coll_op {
	TC_COLL_ALLREDUCE = 1,
	TC_COLL_REDUCE,
	TC_COLL_BCAST,
	TC_COLL_BARRIER,
	TC_COLL_ALLGATHER,
	TC_COLL_ALLTOALL,
	TC_COLL_REDUCE_SCATTER,
	TC_COLL_REDUCE_SCATTER_BLOCK,
	TC_COLL_OP_MAX,
};

struct tc_coll_hdr {
	char magic[8];	     /* TC_COLL_MAGIC */
	uint32_t version;    /* TC_COLL_VERSION */
	uint32_t rec_size;   /* sizeof(struct tc_coll_rec) */
	uint64_t capacity;   /* records the file has room for: whole blocks */
	uint64_t count;	     /* records reserved, whole blocks at a time (atomic) */
	uint64_t lost;	     /* calls that found the file full (atomic) */
	uint64_t commit_off; /* where the commit bytes begin, one a block */
	uint64_t recs_off;   /* where the records begin */
	uint32_t pid;
	uint32_t tid;	    /* the thread that initialized MPI */
	int32_t world_rank; /* in MPI_COMM_WORLD */
	int32_t world_size;
	uint32_t finalized; /* 1 once MPI_Finalize ran: a file without it lost its rank */
	uint32_t pad;
	char library[64]; /* MPI_Get_library_version's first line */
	char host[64];	  /* the node (MPI_Get_processor_name) */
};

/* One call of a collective by one rank, on the rank's CLOCK_MONOTONIC. */
struct tc_coll_rec {
	uint64_t t_in;	/* entered the call */
	uint64_t t_out; /* returned from it */
	uint64_t comm;	/* the communicator's key: the same on every member (tcmpi.c) */
	uint64_t seq;	/* this call's number on that communicator, from 0 */
	uint64_t bytes; /* what this rank contributes (send count x type size; Barrier 0) */
	uint32_t tid;
	uint16_t op; /* enum tc_coll_op; 0 until the record is whole */
	uint16_t pad;
	int32_t comm_rank; /* this rank's number in the communicator */
	int32_t comm_size;
	uint32_t cpu; /* where the call was entered */
	uint32_t pad2;
};

/* One cache line a record; the layout is the file format. */
_Static_assert(sizeof(struct tc_coll_rec) == 64, "tc_coll_rec");
_Static_assert(sizeof(struct tc_coll_hdr) == 208, "tc_coll_hdr");

#endif /* TAILCAUSE_MPI_COLL_H */
