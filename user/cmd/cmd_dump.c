// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmd_dump.c - `tailcause dump FILE`: every record of a trace as one text line,
 * for grep, awk and scripts (and the system tests). Needs no privileges. Its text
 * is safe to show: the trace's tables are kept escaped (core/trace/trace.h), a task name
 * is escaped here (causes_comm()).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/attrib/causes.h"
#include "core/attrib/describe.h"
#include "core/iter/iter_samples.h"
#include "core/trace/trace.h"
#include "lib/log.h"
#include "tracefile/trace_file.h"

enum { OPT_SAMPLES = 0x100 };

static const struct cli_opt dump_options[] = {
	{{"samples", no_argument, NULL, OPT_SAMPLES},
	 0,
	 NULL,
	 "also every round trip (of a --iter trace: the iterations its\n"
	 "marks make)"},
	{{"help", no_argument, NULL, 'h'}, 0, NULL, "this text"},
	{{0}},
};
#define N_DUMP_OPTIONS (sizeof(dump_options) / sizeof(dump_options[0]))

const struct cli_opts cmd_dump_opts = {dump_options, 0, 23};

static void dump_help(void)
{
	printf("usage: tailcause dump FILE [--samples]\n"
	       "\n"
	       "Prints a trace's contents one record per line: meta data, threads, events\n"
	       "(kind, start and duration in ns on CLOCK_MONOTONIC, CPU, thread, detail),\n"
	       "counters (IRQ placement) and, with --samples, every round trip (of a trace\n"
	       "recorded with --iter: each iteration its marks make, from=marks). For scripts;\n"
	       "'tailcause report' is the analysis. Needs no privileges.\n"
	       "\n"
	       "options:\n");
	cli_opts_help(&cmd_dump_opts, stdout);
	printf("\n"
	       "examples:\n"
	       "  tailcause dump run.tct | grep '^event kind=hardirq'\n"
	       "  tailcause dump run.tct --samples | awk '$1 == \"sample\"'\n");
}

static void print_sample(const struct tc_sample *s, const char *from)
{
	printf("sample start=%" PRIu64 " end=%" PRIu64 " cpu=%u tid=%u%s\n", s->t_start, s->t_end,
	       s->cpu, s->tid, from);
}

static void dump(const struct tc_trace *t, int samples)
{
	printf("# samples %zu events %zu counters %zu truncated %d drops %" PRIu64 "\n",
	       t->n_samples, t->n_events, t->n_counters, t->truncated, trace__total_drops(t));
	for (size_t i = 0; i < t->n_meta; i++)
		printf("meta %s=%s\n", t->meta[i].key, t->meta[i].val);
	for (size_t i = 0; i < t->n_threads; i++)
		printf("thread tid=%u role=%u cpu=%d\n", t->threads[i].tid, t->threads[i].role,
		       t->threads[i].cpu == UINT32_MAX ? -1 : (int)t->threads[i].cpu);
	for (size_t i = 0; i < t->n_events; i++) {
		const struct tc_event *e = &t->events[i];
		char comm[TC_COMM_TEXT_LEN];

		printf("event kind=%s start=%" PRIu64 " dur=%" PRIu64 " cpu=%u tid=%u arg=%u"
		       " aux=%" PRIu64 " flags=%u other=%u:%s\n",
		       describe_kind(e->kind), (uint64_t)e->start_ns, (uint64_t)e->dur_ns, e->cpu,
		       e->tid, e->arg, (uint64_t)e->aux, e->flags, e->other_pid,
		       e->other_comm[0] ? causes_comm(e, comm, sizeof(comm)) : "-");
	}
	for (size_t i = 0; i < t->n_counters; i++) {
		const struct tc_counter *c = &t->counters[i];
		const char *name = c->kind == TC_COUNTER_IRQ ? trace__irq_name(t, c->key) : NULL;

		printf("counter kind=%u key=%u cpu=%u value=%" PRIu64 " name=%s\n", c->kind, c->key,
		       c->cpu, c->value, name ? name : "-");
	}
	for (size_t i = 0; i < t->n_irq_names; i++)
		printf("irq %u %s\n", t->irq_names[i].irq, t->irq_names[i].name);
	for (size_t i = 0; samples && i < t->n_samples; i++)
		print_sample(&t->samples[i], "");
}

/* A --iter trace keeps marks, not samples: --samples prints the iterations the report makes. */
static int dump_marked(const struct tc_trace *t)
{
	struct iter_adjust adj;
	struct tc_sample *s;
	struct iter_stats st;
	size_t n;
	int err;

	iter_adjust_of(t, &adj);
	err = iter_samples_build(t->events, t->n_events, &adj, &s, &n, &st);

	if (err) {
		log_err("dump: %s", strerror(-err));
		return err;
	}
	for (size_t i = 0; i < n; i++)
		print_sample(&s[i], " from=marks");
	free(s);
	return 0;
}

int cmd_dump(int argc, char **argv)
{
	struct option longopts[N_DUMP_OPTIONS];
	char shortopts[8];
	const char *path;
	struct tc_trace *t;
	int samples = 0, err, c;

	if (cli_opts_getopt(&cmd_dump_opts, longopts, N_DUMP_OPTIONS, shortopts, sizeof(shortopts)))
		return -E2BIG; /* a table too long for its arrays: a bug */
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == 'h') {
			dump_help();
			return 0;
		}
		if (c != OPT_SAMPLES) {
			cli_option_error(argv, longopts);
			return -TC_ERRNO__USAGE;
		}
		samples = 1;
	}
	if (argc - optind != 1) {
		if (argc - optind > 1)
			log_err("dump: unexpected argument '%s' (see tailcause dump --help)",
				argv[optind + 1]);
		else
			log_err("dump: expected one trace file (see tailcause dump --help)");
		return -TC_ERRNO__USAGE;
	}
	path = argv[optind];
	err = trace_file_read(path, &t);
	if (err) /* reported: an unreadable trace is bad input */
		return tc_input_error(err);
	dump(t, samples);
	if (samples && !t->n_samples && trace__meta(t, "iter.spec"))
		err = dump_marked(t);
	trace__free(t);
	return err;
}
