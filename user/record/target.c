// SPDX-License-Identifier: BSD-2-Clause
/* target.c - spawn, release and wait for the command a recording traces. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/stop.h"
#include "target.h"

int target_spawn(struct target *t, char *const argv[])
{
	int gate[2], err;
	char c;

	if (pipe2(gate, O_CLOEXEC)) {
		err = -errno;
		log_err("create gate for %s: %s", argv[0], strerror(-err));
		return err;
	}
	t->pid = fork();
	if (t->pid < 0) {
		err = -errno;
		close(gate[0]);
		close(gate[1]);
		log_err("fork for %s: %s", argv[0], strerror(-err));
		return err;
	}
	if (t->pid == 0) {
		close(gate[1]);
		/* Wait until the tracer follows us: EOF on the gate. */
		while (read(gate[0], &c, 1) < 0 && errno == EINTR)
			;
		close(gate[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		for (size_t i = 0; i < TARGET_ENV_MAX && t->env[i]; i++)
			putenv(t->env[i]);
		execvp(argv[0], argv);
		fprintf(stderr, "tailcause: run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(gate[0]);
	t->gate_fd = gate[1];
	return 0;
}

int target_release(struct target *t)
{
	if (t->gate_fd < 0)
		return 0;
	if (close(t->gate_fd))
		return -errno;
	t->gate_fd = -1;
	return 0;
}

int target_wait(struct target *t)
{
	int status, forwarded = 0;

	for (;;) {
		pid_t r = waitpid(t->pid, &status, 0);

		if (r == t->pid)
			return status;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (stop_requested() && !forwarded) {
			kill(t->pid, SIGTERM);
			forwarded = 1;
		}
	}
}

void target_abort(struct target *t)
{
	int status;

	if (t->pid <= 0)
		return;
	kill(t->pid, SIGKILL);
	if (t->gate_fd >= 0)
		close(t->gate_fd);
	t->gate_fd = -1;
	waitpid(t->pid, &status, 0);
	t->pid = 0;
}
