// SPDX-License-Identifier: BSD-2-Clause
/* cmd_report.c - `tailcause report FILE`. Needs no privileges. */
#include <stdio.h>

#include "cli.h"
#include "lib/log.h"
#include "lib/outfile.h"
#include "report/report.h"
#include "run_args.h"

#define REPORT_OPTS (RA_REPORT | RA_FORMAT)
const struct cli_opts cmd_report_opts = {run_args_options, REPORT_OPTS, RUN_ARGS_HELP_WIDTH};

static void report_help(void)
{
	printf("usage: tailcause report FILE [--format F] [-o OUT] [--samples CSV] [OPTIONS]\n"
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
	       "\n"
	       "A trace of 'record -- CMD' has no round trips of its own. Give it yours with\n"
	       "--samples: a CSV your benchmark wrote while it was traced, one iteration a line,\n"
	       "\n"
	       "    start_ns,end_ns[,cpu,tid]\n"
	       "\n"
	       "in CLOCK_MONOTONIC nanoseconds (clock_gettime(CLOCK_MONOTONIC), the clock of the\n"
	       "tracers), cpu = sched_getcpu() and tid = gettid() of the thread that timed it;\n"
	       "'#' starts a comment, the first line may be that header. Its spikes are then\n"
	       "attributed like the built-in probe's (docs/samples-csv.md has a C example).\n"
	       "Without samples, the report is the command's host noise in the spirit of\n"
	       "osnoise: per thread and per --interval, the time it lost off CPU (preempted, or\n"
	       "waiting after a wake-up; a kworker by its work function), to IRQs, softirqs,\n"
	       "the timer (by its callbacks) and IPIs on its CPU while it ran, to its own\n"
	       "compaction and reclaim, and to its signal handlers; the worst intervals first.\n"
	       "\n"
	       "Two hosts: record both sides of a verbs or udp run (the server with --server,\n"
	       "the client with HOST) and give the other side's trace with --peer. The clocks\n"
	       "are aligned by the run's own round trips (NTP-style; the report states the\n"
	       "uncertainty), the peer's intervals are named peer:<cause>, and what neither\n"
	       "host's intervals explain is `path`: the NICs and the fabric between them.\n"
	       "Spikes smaller than the clock uncertainty are not attributed across hosts.\n"
	       "\n");
	run_args_help(REPORT_OPTS);
	printf("\n"
	       "examples:\n"
	       "  tailcause report run.tct\n"
	       "  tailcause report run.tct --spike 20us --top 3\n"
	       "  tailcause report run.tct --format html -o run.html\n"
	       "  tailcause report run.tct --format openmetrics -o /var/lib/node_exporter/tc.prom\n"
	       "  tailcause report client.tct --peer server.tct\n"
	       "  tailcause report long.tct --from 10m --to 11m\n"
	       "  tailcause report hour.tct --format json -o hour.json   (streamed: 64 MiB+)\n"
	       "  tailcause report hour.tct --from 600s --to 601s --format perfetto -o s.json\n"
	       "  tailcause report bench.tct --samples bench.csv\n"
	       "  tailcause report cmd.tct --interval 10 --format json\n");
}

int cmd_report(int argc, char **argv)
{
	struct report_opts ro;
	struct run_args a;
	int err;

	err = run_args_parse(argc, argv, REPORT_OPTS, report_help, &a);
	if (err)
		return err > 0 ? 0 : -TC_ERRNO__USAGE;
	if (a.n_rest != 1) {
		log_err("report: expected one trace file (see tailcause report --help)");
		return -TC_ERRNO__USAGE;
	}
	if (a.output && outfile_check_dir("--output", a.output))
		return -TC_ERRNO__USAGE;
	if (a.peer && (a.samples || a.iter_log)) {
		log_err("report: --peer joins two probe traces; --samples and --iter-log are for "
			"traces of 'record -- CMD'");
		return -TC_ERRNO__USAGE;
	}
	if (a.to_given && a.to_ns <= a.from_ns) {
		log_err("report: --to must come after --from");
		return -TC_ERRNO__USAGE;
	}
	if (a.samples && a.iter_log) {
		log_err("report: --samples and --iter-log both give the iterations: one of them");
		return -TC_ERRNO__USAGE;
	}
	ro = (struct report_opts){
		.format = (enum report_format)a.format,
		.spike = a.spike,
		.nic_irq_pattern = a.nic_irq_pattern,
		.top = a.top,
		.trace_kept = 1,
		.out_path = a.output,
		.samples_path = a.samples,
		.iter_log_path = a.iter_log,
		.peer_path = a.peer,
		.from_ns = a.from_ns,
		.to_ns = a.to_given ? a.to_ns : UINT64_MAX,
		.interval_ns = a.interval_ns,
		.stream = a.stream,
		.segment_samples = a.segment,
	};
	return report_file(a.rest[0], &ro, stdout);
}
