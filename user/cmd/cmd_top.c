// SPDX-License-Identifier: BSD-2-Clause
/* cmd_top.c - `tailcause top FILE`: the live view of a recording. Needs no privileges. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

#include "cli.h"
#include "lib/log.h"
#include "report/report_top.h"

enum { OPT_EVERY = 256, OPT_CAUSES, OPT_SPIKE, OPT_NIC_IRQ, OPT_PLAIN };

#define STR_(x) #x
#define STR(x)	STR_(x)

static const struct cli_opt top_options[] = {
	{{"every", required_argument, NULL, OPT_EVERY},
	 0,
	 "TIME",
	 "between refreshes (1s; 500ms, 2s)"},
	{{"causes", required_argument, NULL, OPT_CAUSES},
	 0,
	 "N",
	 "the last interval's causes shown (default 5, at most " STR(TOP_CAUSES_MAX) ")"},
	{{"spike", required_argument, NULL, OPT_SPIKE},
	 0,
	 "RULE",
	 "what counts as a spike, as for 'report'"},
	{{"nic-irq", required_argument, NULL, OPT_NIC_IRQ},
	 0,
	 "PAT",
	 "IRQ names that belong to the NIC (default mlx5_*)"},
	{{"plain", no_argument, NULL, OPT_PLAIN},
	 0,
	 NULL,
	 "one block per interval even on a terminal"},
	{{"help", no_argument, NULL, 'h'}, 0, NULL, "this text"},
	{{0}},
};
#define N_TOP_OPTIONS (sizeof(top_options) / sizeof(top_options[0]))

const struct cli_opts cmd_top_opts = {top_options, 0, 23};

static void top_help(void)
{
	printf("usage: tailcause top FILE [--every TIME] [--causes N] [--spike RULE]\n"
	       "\n"
	       "The live view of a recording to FILE (rtla's top, with causes): while\n"
	       "'tailcause record -o FILE' (or 'run') writes it, reads what was written every\n"
	       "TIME and shows the last interval's and the whole run's round trips, p50,\n"
	       "p99, p99.9 and max (one way, as the report), and the top causes of the last\n"
	       "interval's spikes, attributed as 'report' does against the run's threshold so\n"
	       "far (above p99 and above 2x median by default). It ends when the recording\n"
	       "does, or on Ctrl-C; a recording still starting is waited for. On a terminal\n"
	       "it redraws in place; otherwise (a pipe, a file) it prints one block per\n"
	       "interval. A recording far ahead (top started late) is read a megabyte at a\n"
	       "time, a block every interval saying how far behind it is, until caught up.\n"
	       "A recording of -n round trips writes them when they end: give\n"
	       "'record' a --duration to see them as they come. Needs no privileges.\n"
	       "\n"
	       "options:\n");
	cli_opts_help(&cmd_top_opts, stdout);
	printf("\n"
	       "examples:\n"
	       "  sudo tailcause record -o long.tct -D 30m &  tailcause top long.tct\n"
	       "  tailcause top long.tct --every 5s --plain >> top.log\n");
}

int cmd_top(int argc, char **argv)
{
	struct option opts[N_TOP_OPTIONS];
	char shortopts[8];
	struct tc_spike_rule rule = {TC_SPIKE_DEFAULT, 0};
	struct top_opts o = {.interval_ns = 1000000000ull,
			     .plain = !isatty(STDOUT_FILENO),
			     .causes = 5,
			     .spike = &rule};
	uint64_t v;
	int c;

	if (cli_opts_getopt(&cmd_top_opts, opts, N_TOP_OPTIONS, shortopts, sizeof(shortopts)))
		return -E2BIG; /* a table too long for its arrays: a bug */
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		switch (c) {
		case OPT_EVERY:
			if (cli_parse_duration("--every", optarg, 0, 3600, &o.interval_ns))
				return -TC_ERRNO__USAGE;
			if (o.interval_ns < 100000000ull) {
				log_err("--every: at least 100ms");
				return -TC_ERRNO__USAGE;
			}
			break;
		case OPT_CAUSES:
			if (cli_parse_count("--causes", optarg, 1, TOP_CAUSES_MAX, &v))
				return -TC_ERRNO__USAGE;
			o.causes = (unsigned int)v;
			break;
		case OPT_SPIKE:
			if (cli_parse_spike(optarg, &rule))
				return -TC_ERRNO__USAGE;
			break;
		case OPT_NIC_IRQ:
			o.nic_irq_pattern = optarg;
			break;
		case OPT_PLAIN:
			o.plain = 1;
			break;
		case 'h':
			top_help();
			return 0;
		default:
			cli_option_error(argv, opts);
			return -TC_ERRNO__USAGE;
		}
	}
	if (argc - optind != 1) {
		log_err("top: expected one trace file (see tailcause top --help)");
		return -TC_ERRNO__USAGE;
	}
	cli_stop_on_signals();
	return report_top(argv[optind], &o, stdout);
}
