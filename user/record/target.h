/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * target.h - the external command of `record -- CMD ARGS`: started held at a
 * gate so the tracer follows it from its first instruction, then released,
 * then waited for.
 */
#ifndef TAILCAUSE_RECORD_TARGET_H
#define TAILCAUSE_RECORD_TARGET_H

#include <sys/types.h>

#define TARGET_ENV_MAX 4

struct target {
	pid_t pid;
	int gate_fd; /* write end: closing it lets the child exec */
	/* "KEY=VALUE" put into the command's environment only (NULL-ended; not copied) */
	char *env[TARGET_ENV_MAX + 1];
};

/* Forks argv[0] held before exec; 0 or -errno (reported). */
int target_spawn(struct target *t, char *const argv[]);
/* Lets the child exec; 0 or -errno. */
int target_release(struct target *t);
/*
 * Waits for the command to end, passing SIGINT/SIGTERM requests (see
 * stop_request) on to it. Returns its wait status, or -errno.
 */
int target_wait(struct target *t);
/* Kills and reaps a command that was never released. */
void target_abort(struct target *t);

#endif /* TAILCAUSE_RECORD_TARGET_H */
