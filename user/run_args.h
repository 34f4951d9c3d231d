/* SPDX-License-Identifier: BSD-2-Clause */
/* run_args.h - the options lat, record and run share, parsed in one place. */
#ifndef TAILCAUSE_RUN_ARGS_H
#define TAILCAUSE_RUN_ARGS_H

#include <stddef.h>

#include "core/analyze.h"
#include "probe/probe.h"

/* Which options a command takes. */
#define RA_PROBE	0x01	/* -p -c -n */
#define RA_OUTPUT	0x02	/* -o -f */
#define RA_TRACE	0x04	/* --ringbuf --drain-ms --fallback --no-progress */
#define RA_REPORT	0x08	/* --spike --nic-irq --top */

struct run_args {
	const struct probe_ops *probe;
	struct probe_opts probe_opts;
	const char *output;
	int force;
	size_t ringbuf_bytes;
	unsigned int drain_ms;
	int fallback;
	int progress;
	struct tc_spike_rule spike;
	const char *nic_irq_pattern;
	unsigned int top;
	char *const *rest;	/* positional arguments left over */
	int n_rest;
};

/*
 * Parses argv for a command taking the options in mask. Returns 0, 1 when
 * --help was printed (exit 0), or -EINVAL after reporting the problem.
 * help prints the command's own text.
 */
int run_args_parse(int argc, char **argv, unsigned int mask, void (*help)(void),
		   struct run_args *a);

/* The option lines for mask, for a command's --help. */
void run_args_help(unsigned int mask);

#endif /* TAILCAUSE_RUN_ARGS_H */
