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
	const char *summary;
} commands[] = {
	{"run", cmd_run, "record a probe run under tracing and print the attribution report"},
	{"record", cmd_record, "record a probe run under tracing into a trace file (.tct)"},
	{"report", cmd_report, "attribute the tail spikes of a trace file to host causes"},
	{"top", cmd_top, "the live view of a recording: the tail and its causes, every second"},
	{"lat", cmd_lat, "run a latency probe alone and print perftest-style statistics"},
	{"diff", cmd_diff,
	 "compare two runs: did the tail move, which causes went, what the audit changed"},
	{"rank", cmd_rank,
	 "order many nodes' runs by a percentile: which node is the slow one, and why"},
	{"dump", cmd_dump, "print a trace file's records one per line, for scripts"},
	{"probes", cmd_probes, "list the BPF programs and whether each can attach here"},
	{"audit", cmd_audit, "check the host against the RDMA tuning checklist, with evidence"},
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

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
	fprintf(f,
		"\n"
		"options:\n"
		"  -v, --verbose   debug messages (-vv: libbpf's too)\n"
		"  -V, --version   print the version, the build it came from and what it was built with\n"
		"  -h, --help      this text; 'tailcause COMMAND --help' for a command's options\n"
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

int main(int argc, char **argv)
{
	int i = 1;

	tracer_setup_log();
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return tc_exit_code(0);
		} else if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			print_version();
			return tc_exit_code(0);
		} else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			log_level++;
		} else if (!strcmp(argv[i], "-vv")) {
			log_level += 2;
		} else {
			log_err("unknown option '%s' (see tailcause --help)", argv[i]);
			return tc_exit_code(-TC_ERRNO__USAGE);
		}
	}
	if (i == argc) {
		usage(stderr);
		return tc_exit_code(-TC_ERRNO__USAGE);
	}
	for (size_t c = 0; c < N_COMMANDS; c++)
		if (!strcmp(argv[i], commands[c].name))
			return tc_exit_code(commands[c].fn(argc - i, argv + i));
	log_err("unknown command '%s' (see tailcause --help)", argv[i]);
	return tc_exit_code(-TC_ERRNO__USAGE);
}
