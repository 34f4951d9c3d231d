/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * coll_files.h - record --iter mpi: the directory the ranks' collective records come
 * through (mpi/coll.h), read while the command runs and once more after it ends.
 *
 * The recorder makes a private directory under /dev/shm and gives it, with the
 * library that writes the records, to the command's environment (TAILCAUSE_COLL_DIR,
 * LD_PRELOAD): every process of the command that initializes MPI, mpirun's ranks on
 * this host included, leaves one file there. Each drain reads what the files gained
 * as TC_EV_COLL records. A file is the writer's word: its header is checked against
 * the file's size before anything is mapped, and a record is taken only once whole.
 */
#ifndef TAILCAUSE_RECORD_COLL_FILES_H
#define TAILCAUSE_RECORD_COLL_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

#define COLL_MAX_RANKS 1024 /* rank files read on one host */
#define COLL_MAX_COMMS 4096 /* communicators whose size is kept */

struct coll_rank_file;

struct coll_files {
	char dir[64]; /* /dev/shm/tailcause-coll.XXXXXX */
	struct coll_rank_file *ranks[COLL_MAX_RANKS];
	size_t n_ranks;
	size_t refused;	 /* files that were not rank files of this format */
	size_t too_many; /* rank files past COLL_MAX_RANKS */
	struct {
		uint64_t key;
		int32_t size;
	} comms[COLL_MAX_COMMS]; /* each communicator's size, for the trace's meta */
	size_t n_comms;
	size_t unsized;	   /* communicators past COLL_MAX_COMMS */
	char env_dir[96];  /* TAILCAUSE_COLL_DIR=dir, for the command's environment */
	char *env_preload; /* LD_PRELOAD=lib and what the caller's had */
};

/*
 * Makes the directory, and env_dir and env_preload: what the command's environment
 * needs (the directory, lib preloaded), for it alone; 0, or -errno reported.
 */
int coll_files_open(struct coll_files *c, const char *lib);

/* The records the rank files gained since the last call, each passed to emit. */
void coll_files_take(struct coll_files *c, void (*emit)(void *ctx, const struct tc_event *e),
		     void *ctx);

/*
 * After the command: the last records, then what became of each rank into t's meta
 * (coll.ranks, coll.records, coll.lost, coll.unfinished, coll.library, ...); removes
 * the directory. 0 or -ENOMEM.
 */
int coll_files_finish(struct coll_files *c, struct tc_trace *t,
		      void (*emit)(void *ctx, const struct tc_event *e), void *ctx);

/* Unmaps and removes what is left (also after a failure). */
void coll_files_close(struct coll_files *c);

/*
 * The records' library: TAILCAUSE_MPI_LIB, else libtailcause-mpi.so beside this
 * executable (the build's mpi/ or an install's ../lib/tailcause/). NULL with what was
 * looked for in why.
 */
const char *coll_files_find_lib(char *buf, size_t len, char *why, size_t why_len);

#endif /* TAILCAUSE_RECORD_COLL_FILES_H */
