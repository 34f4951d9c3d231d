// SPDX-License-Identifier: BSD-2-Clause
/* cmd_probes.c - `tailcause probes`: which BPF programs attach here, and why not. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "lib/log.h"
#include "record/bpf/tracer.h"
#include "run_args.h"

const struct cli_opts cmd_probes_opts = {run_args_options, RA_TRACE, RUN_ARGS_HELP_WIDTH};

static void probes_help(void)
{
	printf("usage: tailcause probes [--fallback]\n"
	       "\n"
	       "Loads every BPF program tailcause has, attaches it, and lists each with\n"
	       "'attached' and the tracepoint used, or the exact reason it cannot attach on\n"
	       "this kernel; then detaches everything. Needs root (or CAP_BPF and\n"
	       "CAP_PERFMON). Exit code 2 when nothing can be traced here.\n"
	       "\n");
	run_args_help(RA_TRACE);
	printf("\n"
	       "examples:\n"
	       "  sudo tailcause probes\n"
	       "  sudo tailcause probes --fallback         # the classic tracepoints instead\n");
}

int cmd_probes(int argc, char **argv)
{
	struct tracer_cfg cfg = {.ringbuf_bytes = 4096};
	const struct tc_prog_status *st;
	struct run_args a;
	struct tracer *t;
	char why[160];
	size_t n, attached = 0;
	int err;

	err = run_args_parse(argc, argv, RA_TRACE, probes_help, &a);
	if (err)
		return err > 0 ? 0 : -TC_ERRNO__USAGE;
	if (!cli_can_trace(why, sizeof(why))) {
		log_err("load BPF programs: %s", why);
		return -TC_ERRNO__ENV;
	}
	cfg.force_fallback = a.fallback;
	cfg.btf_path = a.btf_path;
	cfg.syscall_tps = a.signal_ends;
	t = tracer__new(&cfg);
	if (!t)
		return -TC_ERRNO__ENV; /* nothing loads: reported */
	n = tracer__status(t, &st);
	printf("%-10s %-30s %-8s %s\n", "concern", "program", "status", "target / reason");
	for (size_t i = 0; i < n; i++) {
		printf("%-10s %-30s %-8s %s\n", st[i].concern, st[i].prog,
		       st[i].attached ? "attached" : "missing",
		       st[i].attached ? st[i].target : st[i].reason);
		attached += st[i].attached != 0;
	}
	tracer__free(t);
	if (!attached)
		log_err("probes: no program attaches on this kernel");
	return attached ? 0 : -TC_ERRNO__ENV;
}
