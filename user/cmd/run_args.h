/* SPDX-License-Identifier: BSD-2-Clause */
/* run_args.h - the options lat, record and run share, parsed in one place. */
#ifndef TAILCAUSE_CMD_RUN_ARGS_H
#define TAILCAUSE_CMD_RUN_ARGS_H

#include <stddef.h>

#include "cli_opts.h"
#include "core/attrib/analyze.h"
#include "probe/link_auth.h"
#include "probe/probe.h"

/* Which options a command takes. */
#define RA_PROBE  0x01 /* -p -c -n */
#define RA_OUTPUT 0x02 /* -o -f */
#define RA_TRACE  0x04 /* --ringbuf --drain-ms --fallback --btf --no-progress --no-calibrate */
#define RA_REPORT 0x08 /* --spike --nic-irq --top */
#define RA_VERBS                                                                                   \
	0x10		       /* -d -i -x -s -I --loopback --server --port --key --bind --clock   \
				* --busy-poll, HOST */
#define RA_AUTO_PROBE	  0x20 /* no --probe: verbs on an active RDMA port, else shm */
#define RA_SERVER_DEFAULT 0x40 /* verbs, udp without HOST or --loopback wait as server */
#define RA_COMMAND	  0x80 /* -- CMD ARGS: trace a command instead of running a probe; --iter */
#define RA_FORMAT	  0x100 /* report: --format -o --samples --interval --peer --from --to */
#define RA_HTML		  0x200 /* run: --html */
#define RA_DURATION	  0x400 /* lat: -D/--duration */

struct run_args {
	const struct probe_ops *probe;
	struct probe_opts probe_opts;
	int verbs_given; /* an RDMA-only option was given (-d -i -x -I --clock) */
	int net_given;	 /* a two-host option was given (-s --loopback --server --port, HOST) */
	int udp_given;	 /* a udp-only option was given (--busy-poll) */
	int loopback;	 /* --loopback */
	int server;	 /* --server */
	const char *key_path; /* --key FILE */
	struct link_key key;  /* its secret, read (probe_opts.key points here) */
	const char *output;
	int force;
	size_t ringbuf_bytes;
	unsigned int drain_ms;
	int fallback;
	const char *btf_path; /* --btf FILE */
	int progress;
	int no_calibrate;
	int signal_ends;
	const char *iter;  /* RA_COMMAND: --iter SPEC */
	size_t iter_first; /* RA_COMMAND: --iter-first K (0: mark every iteration) */
	struct tc_spike_rule spike;
	const char *nic_irq_pattern;
	unsigned int top;
	int format;		 /* RA_FORMAT: enum report_format */
	const char *html;	 /* RA_HTML: also write the HTML report there */
	const char *samples;	 /* RA_FORMAT: --samples CSV */
	const char *iter_log;	 /* RA_FORMAT: --iter-log FILE (perftest -U output) */
	const char *peer;	 /* RA_FORMAT: --peer FILE, the other host's trace */
	uint64_t interval_ns;	 /* RA_FORMAT: --interval, 0: default */
	int stream;		 /* RA_FORMAT: --stream[=N] 1, --no-stream -1, else 0 */
	size_t segment;		 /* its N, 0: the default */
	uint64_t duration_ns;	 /* RA_DURATION: -D, 0: run -n round trips once */
	uint64_t from_ns, to_ns; /* RA_FORMAT: --from/--to, from the first round trip */
	int to_given;
	char *const *rest; /* positional arguments left over (HOST taken out) */
	int n_rest;
	char *const *command; /* RA_COMMAND: what followed "--", NULL-terminated; else NULL */
};

/*
 * Parses argv for a command taking the options in mask. Returns 0, 1 when
 * --help was printed (exit 0), or -EINVAL after reporting the problem.
 * help prints the command's own text.
 */
int run_args_parse(int argc, char **argv, unsigned int mask, void (*help)(void),
		   struct run_args *a);

/*
 * After the options: the probe (--probe, or one the options imply) and its
 * mode, HOST taken from rest, the key read. 0 or -EINVAL after reporting.
 */
int run_args_pick_probe(unsigned int mask, struct run_args *a);

/* The options, each with its group (RA_*: 0, every command's), ended by a zero entry. */
extern const struct cli_opt run_args_options[];
#define RUN_ARGS_HELP_WIDTH 23

/* "options:" and the option lines for mask, for a command's --help. */
void run_args_help(unsigned int mask);

#endif /* TAILCAUSE_CMD_RUN_ARGS_H */
