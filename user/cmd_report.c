// SPDX-License-Identifier: BSD-2-Clause
/* cmd_report.c - `tailcause report FILE`. Needs no privileges. */
#include <stdio.h>

#include "cli.h"
#include "io/log.h"
#include "report.h"
#include "run_args.h"

static void report_help(void)
{
	printf("usage: tailcause report FILE [OPTIONS]\n"
	       "\n"
	       "Reads a trace written by 'tailcause record' and prints: what was traced and\n"
	       "what was lost, perftest-style statistics (one way = RTT/2; every sample kept,\n"
	       "and t_stdev not truncated, unlike ib_write_lat), the spike threshold, a table of\n"
	       "causes (spikes whose primary cause it is, the excess latency it explains, its\n"
	       "share), the largest spikes each with the traced events that overlap it, and a\n"
	       "recommendation per cause. Needs no privileges.\n"
	       "\n"
	       "A spike is a round trip above the threshold. Its excess (latency minus the\n"
	       "median) is split among the intervals that overlap it (an IRQ inside a\n"
	       "preemption counts once, in its parent); the largest share is the primary cause,\n"
	       "and under 50 %% explained the spike is 'unattributed', best candidate named.\n"
	       "\n");
	run_args_help(RA_REPORT);
	printf("\n"
	       "examples:\n"
	       "  tailcause report run.tct\n"
	       "  tailcause report run.tct --spike 20us --top 3\n");
}

int cmd_report(int argc, char **argv)
{
	struct report_opts ro;
	struct run_args a;
	int err;

	err = run_args_parse(argc, argv, RA_REPORT, report_help, &a);
	if (err)
		return err > 0 ? TC_EXIT_OK : TC_EXIT_USAGE;
	if (a.n_rest != 1) {
		log_err("report: expected one trace file (see tailcause report --help)");
		return TC_EXIT_USAGE;
	}
	ro = (struct report_opts){
		.format = REPORT_TEXT,
		.spike = a.spike,
		.nic_irq_pattern = a.nic_irq_pattern,
		.top = a.top,
		.trace_kept = 1,
	};
	return report_file(a.rest[0], &ro, stdout);
}
