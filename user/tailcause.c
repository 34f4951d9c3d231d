// SPDX-License-Identifier: BSD-2-Clause
/*
 * tailcause.c - the one binary: dispatches to its subcommands, and is the one
 * place where what they return becomes the exit code.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cli.h"
#include "lib/exitcode.h"
#include "lib/log.h"
#include "record/bpf/tracer.h"
#include "lib/version.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const struct cli_opts *opts;
	const char *summary;
} commands[] = {
	{"run", cmd_run, &cmd_run_opts,
	 "record a probe run under tracing and print the attribution report"},
	{"record", cmd_record, &cmd_record_opts,
	 "record a probe run under tracing into a trace file (.tct)"},
	{"report", cmd_report, &cmd_report_opts,
	 "attribute the tail spikes of a trace file to host causes"},
	{"top", cmd_top, &cmd_top_opts,
	 "the live view of a recording: the tail and its causes, every second"},
	{"lat", cmd_lat, &cmd_lat_opts,
	 "run a latency probe alone and print perftest-style statistics"},
	{"diff", cmd_diff, &cmd_diff_opts,
	 "compare two runs: did the tail move, which causes went, what the audit changed"},
	{"rank", cmd_rank, &cmd_rank_opts,
	 "order many nodes' runs by a percentile: which node is the slow one, and why"},
	{"dump", cmd_dump, &cmd_dump_opts,
	 "print a trace file's records one per line, for scripts"},
	{"probes", cmd_probes, &cmd_probes_opts,
	 "list the BPF programs and whether each can attach here"},
	{"audit", cmd_audit, &cmd_audit_opts,
	 "check the host against the RDMA tuning checklist, with evidence"},
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* tailcause's own options, before the command ("-vv" is -v twice). */
static const struct cli_opt main_options[] = {
	{{"verbose", no_argument, NULL, 'v'}, 0, NULL, "debug messages (-vv: libbpf's too)"},
	{{"version", no_argument, NULL, 'V'},
	 0,
	 NULL,
	 "print the version, the build it came from and what it was built with"},
	{{"help", no_argument, NULL, 'h'},
	 0,
	 NULL,
	 "this text; 'tailcause COMMAND --help' for a command's options"},
	{{0}},
};
static const struct cli_opts main_opts = {main_options, 0, 18};

static void usage(FILE *f)
{
	fprintf(f, "usage: tailcause [-v] COMMAND [OPTIONS]\n"
		   "\n"
		   "Finds out why a latency test has a tail: runs a ping-pong latency probe,\n"
		   "traces the host with BPF on the same clock, and names the host cause of\n"
		   "every tail-latency spike (preemption by a task, an IRQ, a softirq, ...).\n"
		   "\n"
		   "commands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n"
		   "options:\n");
	cli_opts_help(&main_opts, f);
	fprintf(f,
		"\n"
		"examples:\n"
		"  sudo tailcause run                     # 100000 round trips on the last two CPUs\n"
		"  sudo tailcause record -o run.tct -n 1M --cpu 2,3\n"
		"  tailcause report run.tct --spike 20us\n"
		"  tailcause lat --probe shm -n 1M\n"
		"\n"
		"exit codes: 0 ok, 1 usage, 2 environment (privileges, kernel feature),\n"
		"3 bad input file, 4 runtime failure, 5 a check or threshold crossed\n");
}

static void print_version(void)
{
	const struct tc_build_facts *b = tc_build_facts();

	printf("tailcause %s\n", tc_version());
	printf("built with %s, clang %s for the BPF programs, libbpf %s\n", b->cc, b->clang,
	       b->libbpf);
	tracer_print_facts(stdout);
}

/* Which of main_options arg is, written "-x" or "--name": its val, or 0. */
static int main_option(const char *arg)
{
	for (const struct cli_opt *o = main_options; o->opt.name; o++)
		if ((arg[1] == o->opt.val && !arg[2]) ||
		    (arg[1] == '-' && !strcmp(arg + 2, o->opt.name)))
			return o->opt.val;
	return 0;
}

/*
 * 'tailcause help-options [COMMAND]', not in the usage: the commands and tailcause's own
 * options, or a command's, for scripts/gen-man.py (cli_opts.h has the format).
 */
static int help_options(int argc, char **argv)
{
	if (argc == 1) {
		for (size_t c = 0; c < N_COMMANDS; c++)
			printf("command\t%s\t%s\n", commands[c].name, commands[c].summary);
		cli_opts_list(&main_opts, stdout);
		return 0;
	}
	for (size_t c = 0; argc == 2 && c < N_COMMANDS; c++) {
		if (!strcmp(argv[1], commands[c].name)) {
			cli_opts_list(commands[c].opts, stdout);
			return 0;
		}
	}
	log_err("help-options: expected no command or one of tailcause's");
	return -TC_ERRNO__USAGE;
}

int main(int argc, char **argv)
{
	int i = 1;

	tracer_setup_log();
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-vv")) {
			log_level += 2;
			continue;
		}
		switch (main_option(argv[i])) {
		case 'h':
			usage(stdout);
			return tc_exit_code(0);
		case 'V':
			print_version();
			return tc_exit_code(0);
		case 'v':
			log_level++;
			break;
		default:
			log_err("unknown option '%s' (see tailcause --help)", argv[i]);
			return tc_exit_code(-TC_ERRNO__USAGE);
		}
	}
	if (i == argc) {
		usage(stderr);
		return tc_exit_code(-TC_ERRNO__USAGE);
	}
	if (!strcmp(argv[i], "help-options"))
		return tc_exit_code(help_options(argc - i, argv + i));
	for (size_t c = 0; c < N_COMMANDS; c++)
		if (!strcmp(argv[i], commands[c].name))
			return tc_exit_code(commands[c].fn(argc - i, argv + i));
	log_err("unknown command '%s' (see tailcause --help)", argv[i]);
	return tc_exit_code(-TC_ERRNO__USAGE);
}
