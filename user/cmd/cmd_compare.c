// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmd_compare.c - `tailcause diff BEFORE AFTER` (did the fix work) and
 * `tailcause rank REPORT...` (which node is the slow one). Need no privileges.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lib/log.h"
#include "lib/outfile.h"
#include "report/compare.h"

enum {
	OPT_FORMAT = 0x100,
	OPT_SPIKE,
	OPT_NIC_IRQ,
	OPT_FAIL,
	OPT_STRICT,
	OPT_RESAMPLES,
	OPT_SEED,
	OPT_BY
};

struct compare_args {
	int format; /* 0 text, 1 json, 2 html */
	const char *output;
	struct compare_opts load;
	int strict;
	int fail_if_worse;
	enum sm_figure figure; /* --fail-if-worse (diff), --by (rank) */
	uint64_t resamples;
	uint64_t seed;
	char **files;
	int n_files;
};

static const char *const formats[] = {"text", "json", "html"};

/* Which command takes an option; each parses the other's too, to say whose it is. */
#define CMP_DIFF 0x1
#define CMP_RANK 0x2

static const struct cli_opt compare_options[] = {
	{{"by", required_argument, NULL, OPT_BY},
	 CMP_RANK,
	 "P",
	 "the figure: p50, p99, p99.9 (default), p99.99, p99.999,\n"
	 "max"},
	{{"format", required_argument, NULL, OPT_FORMAT},
	 CMP_DIFF,
	 "F",
	 "text (default), json (docs/diff-schema.md) or html"},
	{{"format", required_argument, NULL, OPT_FORMAT},
	 CMP_RANK,
	 "F",
	 "text (default), json (docs/rank-schema.md) or html"},
	{{"output", required_argument, NULL, 'o'},
	 0,
	 "OUT",
	 "write there (whole or not at all) instead of stdout"},
	{{"fail-if-worse", required_argument, NULL, OPT_FAIL},
	 CMP_DIFF,
	 "P",
	 "exit 5 when P (p50, p99, p99.9, p99.99, p99.999) got\n"
	 "significantly worse: a gate for CI"},
	{{"strict", no_argument, NULL, OPT_STRICT},
	 0,
	 NULL,
	 "exit 3 when the runs are of different probes or message\n"
	 "sizes (else a warning)"},
	{{"resamples", required_argument, NULL, OPT_RESAMPLES},
	 CMP_DIFF,
	 "N",
	 "bootstrap resamples (default 1000)"},
	{{"seed", required_argument, NULL, OPT_SEED},
	 CMP_DIFF,
	 "N",
	 "the bootstrap's seed (the same seed, the same answer)"},
	{{"spike", required_argument, NULL, OPT_SPIKE},
	 0,
	 "RULE",
	 "how a trace's spikes are found (see tailcause report)"},
	{{"nic-irq", required_argument, NULL, OPT_NIC_IRQ},
	 0,
	 "PATTERN",
	 "IRQ names that belong to the NIC (default mlx5_*)"},
	{{"help", no_argument, NULL, 'h'}, 0, NULL, "this text"},
	{{0}},
};
#define N_COMPARE_OPTIONS (sizeof(compare_options) / sizeof(compare_options[0]))

const struct cli_opts cmd_diff_opts = {compare_options, CMP_DIFF, 25};
const struct cli_opts cmd_rank_opts = {compare_options, CMP_RANK, 25};

static void diff_help(void)
{
	printf("usage: tailcause diff BEFORE AFTER [OPTIONS]\n"
	       "\n"
	       "Did the fix work? Compares two runs, each a trace (.tct) or its JSON report\n"
	       "(report --format json): every percentile before and after with the 95 %% interval\n"
	       "of the change from a bootstrap (of blocks of consecutive samples for a trace,\n"
	       "sample by sample from the histogram for a JSON report) and whether the change is\n"
	       "significant; per cause, spikes and excess per million round trips before and\n"
	       "after with a verdict (gone, better, unchanged, worse, new: an exact test of the\n"
	       "spike counts, p < 0.01); and what the host audit changed between the two runs,\n"
	       "with the causes that moved. Needs no privileges.\n"
	       "\n"
	       "options:\n");
	cli_opts_help(&cmd_diff_opts, stdout);
	printf("\n"
	       "examples:\n"
	       "  tailcause diff before.tct after.tct\n"
	       "  tailcause diff before.json after.json --format html -o diff.html\n"
	       "  tailcause diff baseline.json run.tct --fail-if-worse p99.9\n"
	       "\n"
	       "exit codes: 0 ok, 1 usage, 3 bad input file, 5 --fail-if-worse crossed\n");
}

static void rank_help(void)
{
	printf("usage: tailcause rank REPORT... [OPTIONS]\n"
	       "\n"
	       "Which node is the slow one? Orders runs of many nodes (JSON reports collected by\n"
	       "the cluster's own launcher: Slurm, pdsh, a Kubernetes job; or traces) by a figure,\n"
	       "worst first, each with its top causes and failing audit checks; names the causes\n"
	       "that at least half of the worst quarter of the nodes share; and calls out the\n"
	       "outliers, nodes whose figure is far from the fleet's median (a robust z-score\n"
	       "beyond 3.5: the median and the median absolute deviation). Needs no privileges.\n"
	       "\n"
	       "options:\n");
	cli_opts_help(&cmd_rank_opts, stdout);
	printf("\n"
	       "examples:\n"
	       "  srun -N64 sh -c 'tailcause run -n 1M -o $(hostname).tct >/dev/null &&\n"
	       "      tailcause report $(hostname).tct --format json -o /shared/$(hostname).json'\n"
	       "  tailcause rank /shared/*.json\n"
	       "  tailcause rank /shared/*.json --by p99 --format html -o fleet.html\n"
	       "\n"
	       "exit codes: 0 ok, 1 usage, 3 bad input file\n");
}

static int parse_figure(const char *opt, const char *s, int allow_max, enum sm_figure *out)
{
	if (summary_figure_parse(s, out) || (!allow_max && *out == SM_MAX)) {
		log_err("%s: '%s' is not one of p50, p99, p99.9, p99.99, p99.999%s", opt, s,
			allow_max ? ", max" : "");
		return -EINVAL;
	}
	return 0;
}

/* An option of the other command (diff's --fail-if-worse, rank's --by). */
static int not_here(const char *cmd, const char *opt)
{
	log_err("%s: %s is an option of tailcause %s", cmd, opt,
		strcmp(cmd, "diff") ? "diff" : "rank");
	return -EINVAL;
}

static int parse_option(int c, const char *cmd, struct compare_args *a)
{
	int diff = !strcmp(cmd, "diff");

	switch (c) {
	case OPT_FORMAT:
		for (a->format = 0; a->format < 3 && strcmp(optarg, formats[a->format]);
		     a->format++)
			;
		if (a->format == 3) {
			log_err("--format: '%s' is not text, json or html", optarg);
			return -EINVAL;
		}
		return 0;
	case 'o':
		a->output = optarg;
		return outfile_check_dir("--output", optarg);
	case OPT_SPIKE:
		return cli_parse_spike(optarg, &a->load.spike);
	case OPT_NIC_IRQ:
		a->load.nic_irq_pattern = optarg;
		return 0;
	case OPT_STRICT:
		a->strict = 1;
		return 0;
	case OPT_FAIL:
		a->fail_if_worse = 1;
		return !diff ? not_here(cmd, "--fail-if-worse")
			     : parse_figure("--fail-if-worse", optarg, 0, &a->figure);
	case OPT_BY:
		return diff ? not_here(cmd, "--by") : parse_figure("--by", optarg, 1, &a->figure);
	case OPT_RESAMPLES:
		return !diff ? not_here(cmd, "--resamples")
			     : cli_parse_count("--resamples", optarg, 10, 1000000, &a->resamples);
	case OPT_SEED:
		return !diff ? not_here(cmd, "--seed")
			     : cli_parse_count("--seed", optarg, 0, UINT64_MAX, &a->seed);
	}
	return -EINVAL;
}

/* 0, 1 after --help, -EINVAL after reporting the problem. */
static int parse(int argc, char **argv, const char *cmd, void (*help)(void), struct compare_args *a)
{
	/* both commands' options: the other's is refused by name (not_here()) */
	struct cli_opts both = {compare_options, CMP_DIFF | CMP_RANK, 25};
	struct option longopts[N_COMPARE_OPTIONS];
	char shortopts[8];
	int c;

	if (cli_opts_getopt(&both, longopts, N_COMPARE_OPTIONS, shortopts, sizeof(shortopts)))
		return -E2BIG; /* a table too long for its arrays: a bug */
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == 'h') {
			help();
			return 1;
		}
		if (c == '?')
			return cli_option_error(argv, longopts);
		if (parse_option(c, cmd, a))
			return -EINVAL;
	}
	a->files = argv + optind;
	a->n_files = argc - optind;
	return 0;
}

static int (*const diff_writers[])(FILE *, const struct diff *) = {diff_text, diff_json, diff_html};
static int (*const rank_writers[])(FILE *, const struct rank *) = {rank_text, rank_json, rank_html};

/* The diff d, or else the rank r, in the format asked for. */
static int write_to(FILE *f, const struct compare_args *a, const struct diff *d,
		    const struct rank *r)
{
	return d ? diff_writers[a->format](f, d) : rank_writers[a->format](f, r);
}

/* Writes to a->output (whole or not at all) or stdout. */
static int write_output(const struct compare_args *a, const struct diff *d, const struct rank *r)
{
	struct outfile of;
	int err;

	if (!a->output) {
		err = write_to(stdout, a, d, r);
		if (!err && (fflush(stdout) || ferror(stdout)))
			err = -(errno ?: EIO);
		if (err)
			log_err("write output: %s", strerror(-err));
		return err;
	}
	err = outfile_open(&of, a->output, 0600);
	if (err)
		return err;
	err = write_to(of.f, a, d, r);
	if (err) {
		log_err("write %s: %s", a->output, strerror(-err));
		outfile_abort(&of);
		return err;
	}
	return outfile_commit(&of);
}

static int mismatch(const struct compare_args *a, int same, const char *why)
{
	if (same)
		return 0;
	if (a->strict) {
		log_err("%s (--strict)", why);
		return -TC_ERRNO__INPUT;
	}
	log_warn("%s: the figures may not be comparable", why);
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	struct compare_args a = {.figure = SM_P999};
	struct summary s[2] = {0};
	struct diff_opts o;
	struct diff *d = NULL;
	int err;

	err = parse(argc, argv, "diff", diff_help, &a);
	if (err)
		return err > 0 ? 0 : -TC_ERRNO__USAGE;
	if (a.n_files != 2) {
		log_err("diff: expected two runs, BEFORE and AFTER (see tailcause diff --help)");
		return -TC_ERRNO__USAGE;
	}
	err = compare_load(a.files[0], &a.load, &s[0]);
	err = err ?: compare_load(a.files[1], &a.load, &s[1]);
	o = (struct diff_opts){.resamples = a.resamples, .seed = a.seed};
	if (!err) {
		err = diff__run(&s[0], &s[1], &o, &d);
		if (err)
			log_err("diff: %s", strerror(-err));
	}
	err = err ?: mismatch(&a, d->same_probe, d->mismatch);
	err = err ?: write_output(&a, d, NULL);
	if (!err && a.fail_if_worse && d->figs[a.figure].verdict == DF_WORSE) {
		log_err("diff: %s got significantly worse (%.3f -> %.3f usec) (--fail-if-worse)",
			summary_figure_name(a.figure), d->figs[a.figure].before_ns / 1000.0,
			d->figs[a.figure].after_ns / 1000.0);
		err = -TC_ERRNO__CROSSED;
	}
	diff__free(d);
	summary__free(&s[0]);
	summary__free(&s[1]);
	return err;
}

int cmd_rank(int argc, char **argv)
{
	struct compare_args a = {.figure = SM_P999};
	struct summary *s;
	struct rank *r = NULL;
	int err = 0, n = 0;

	err = parse(argc, argv, "rank", rank_help, &a);
	if (err)
		return err > 0 ? 0 : -TC_ERRNO__USAGE;
	if (a.n_files < 1) {
		log_err("rank: expected at least one report (see tailcause rank --help)");
		return -TC_ERRNO__USAGE;
	}
	s = calloc((size_t)a.n_files, sizeof(*s));
	if (!s) {
		log_err("rank: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (; n < a.n_files && !err; n++)
		err = compare_load(a.files[n], &a.load, &s[n]);
	if (err)
		n--; /* the one that failed holds nothing */
	if (!err) {
		err = rank__run(s, (size_t)n, a.figure, &r);
		if (err)
			log_err("rank: %s", strerror(-err));
	}
	err = err ?: mismatch(&a, r->same_probe, r->mismatch);
	err = err ?: write_output(&a, NULL, r);
	rank__free(r);
	for (int i = 0; i < n; i++)
		summary__free(&s[i]);
	free(s);
	return err;
}
