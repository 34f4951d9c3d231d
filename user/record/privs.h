/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * privs.h - giving up privileges once the BPF programs are attached and the files
 * a run writes are created.
 *
 * After that, recording needs no BPF, perfmon or file capability: the ring buffer
 * and maps are open fds, the trace is an open fd, and what it still reads in sysfs
 * and procfs anyone may read. Every capability goes but those a run still uses:
 * CAP_IPC_LOCK where the verbs probe registers memory. Run through sudo, the
 * recorder also takes the invoking user's ids (SUDO_UID, SUDO_GID and the user's
 * groups), handing that user the files it created, where that user may finish
 * them (rename them into their directories) and no command was started with the
 * caller's ids (the recorder must still be able to stop it). Otherwise it stays
 * uid 0 without the file capabilities; where that is not enough to finish a file
 * (a directory root does not own and others may not write), it keeps
 * CAP_DAC_OVERRIDE alone, and says so.
 *
 * Call it before creating any other thread: capabilities are per thread, and new
 * threads inherit the caller's.
 */
#ifndef TAILCAUSE_RECORD_PRIVS_H
#define TAILCAUSE_RECORD_PRIVS_H

#include <stddef.h>

#define PRIVS_MAX_FILES 4

/* What a run still needs once its programs are attached. */
struct privs_need {
	/* Files the run renames into place or creates later (a trace's final name, the
	 * peer's trace, a report): their directories must stay writable. */
	const char *finish[PRIVS_MAX_FILES];
	/* Created already (a .partial trace, a private directory): handed to the invoking
	 * user with the ids; -1: none. */
	int created_fds[PRIVS_MAX_FILES];
	int memlock;	     /* CAP_IPC_LOCK: the verbs probe registers memory */
	int command_spawned; /* a command runs with the caller's ids: keep them */
};

/* An empty need: nothing to finish, no fds, no capability. */
void privs_need_init(struct privs_need *n);

/* Drops every capability but what n needs, and the ids (above); 0 or -errno (reported). */
int privs_drop(const struct privs_need *n);

#endif /* TAILCAUSE_RECORD_PRIVS_H */
