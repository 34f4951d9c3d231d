// SPDX-License-Identifier: BSD-2-Clause
/* run_args.c - parses the options lat, record, run and report share. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core/causes.h"
#include "io/log.h"
#include "run_args.h"

enum {
	OPT_RINGBUF = 0x100,
	OPT_DRAIN_MS,
	OPT_FALLBACK,
	OPT_NO_PROGRESS,
	OPT_SPIKE,
	OPT_NIC_IRQ,
	OPT_TOP,
};

static const struct {
	struct option opt;
	unsigned int mask;
	const char *help;
} options[] = {
	{ { "probe", required_argument, NULL, 'p' }, RA_PROBE,
	  "  -p, --probe NAME     latency probe: shm (default; ping-pong over a shared cache line)" },
	{ { "cpu", required_argument, NULL, 'c' }, RA_PROBE,
	  "  -c, --cpu A,B        pin the two probe threads to CPUs A and B (default: the last two)" },
	{ { "iterations", required_argument, NULL, 'n' }, RA_PROBE,
	  "  -n, --iterations N   round trips to time, k/M suffixes allowed (default 100000)" },
	{ { "output", required_argument, NULL, 'o' }, RA_OUTPUT,
	  "  -o, --output FILE    trace file to write (.tct)" },
	{ { "force", no_argument, NULL, 'f' }, RA_OUTPUT,
	  "  -f, --force          overwrite an existing output file" },
	{ { "ringbuf", required_argument, NULL, OPT_RINGBUF }, RA_TRACE,
	  "      --ringbuf SIZE   BPF ring buffer size, K/M suffixes (default 16M)" },
	{ { "drain-ms", required_argument, NULL, OPT_DRAIN_MS }, RA_TRACE,
	  "      --drain-ms MS    drain the ring buffer every MS ms (default 200; the drain\n"
	  "                       thread preempts the probe when it has no spare CPU: `self`)" },
	{ { "fallback", no_argument, NULL, OPT_FALLBACK }, RA_TRACE,
	  "      --fallback       classic tracepoints instead of BTF ones (tp_btf)" },
	{ { "no-progress", no_argument, NULL, OPT_NO_PROGRESS }, RA_TRACE,
	  "      --no-progress    no progress line on stderr" },
	{ { "spike", required_argument, NULL, OPT_SPIKE }, RA_REPORT,
	  "      --spike RULE     what counts as a spike: default (above p99 and above 2x\n"
	  "                       median), p99.9 (a percentile), 20us (one-way latency), 3x\n"
	  "                       (a multiple of the median)" },
	{ { "nic-irq", required_argument, NULL, OPT_NIC_IRQ }, RA_REPORT,
	  "      --nic-irq PAT    IRQ names that belong to the NIC, shell pattern (default mlx5_*)" },
	{ { "top", required_argument, NULL, OPT_TOP }, RA_REPORT,
	  "      --top N          spikes to show with their timelines (default 10)" },
	{ { "help", no_argument, NULL, 'h' }, 0, "  -h, --help           this text" },
};
#define N_OPTIONS (sizeof(options) / sizeof(options[0]))

void run_args_help(unsigned int mask)
{
	printf("options:\n");
	for (size_t i = 0; i < N_OPTIONS; i++)
		if (!options[i].mask || (options[i].mask & mask))
			printf("%s\n", options[i].help);
}

static int parse_one(int c, const char *arg, struct run_args *a)
{
	uint64_t v;

	switch (c) {
	case 'p':
		a->probe = probe_find(arg);
		if (!a->probe) {
			log_err("--probe: unknown probe '%s' (known: %s)", arg, probe_names());
			return -EINVAL;
		}
		return 0;
	case 'c':
		return cli_parse_cpu_pair("--cpu", arg, a->probe_opts.cpu);
	case 'n':
		if (cli_parse_count("--iterations", arg, 1, 1000000000, &v))
			return -EINVAL;
		a->probe_opts.iterations = v;
		return 0;
	case 'o':
		if (!*arg) {
			log_err("--output: empty file name");
			return -EINVAL;
		}
		a->output = arg;
		return 0;
	case 'f':
		a->force = 1;
		return 0;
	case OPT_RINGBUF:
		if (cli_parse_size("--ringbuf", arg, 4096, 1ull << 30, &v))
			return -EINVAL;
		a->ringbuf_bytes = v;
		return 0;
	case OPT_DRAIN_MS:
		if (cli_parse_count("--drain-ms", arg, 1, 10000, &v))
			return -EINVAL;
		a->drain_ms = (unsigned int)v;
		return 0;
	case OPT_FALLBACK:
		a->fallback = 1;
		return 0;
	case OPT_NO_PROGRESS:
		a->progress = 0;
		return 0;
	case OPT_SPIKE:
		if (spike_rule_parse(arg, &a->spike)) {
			log_err("--spike: '%s' is not a rule (default, p99.9, 20us, 3x)", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_NIC_IRQ:
		if (!*arg) {
			log_err("--nic-irq: empty pattern");
			return -EINVAL;
		}
		a->nic_irq_pattern = arg;
		return 0;
	case OPT_TOP:
		if (cli_parse_count("--top", arg, 0, 10000, &v))
			return -EINVAL;
		a->top = (unsigned int)v;
		return 0;
	}
	return -EINVAL;
}

int run_args_parse(int argc, char **argv, unsigned int mask, void (*help)(void),
		   struct run_args *a)
{
	struct option longopts[N_OPTIONS + 1];
	char shortopts[64] = "";
	size_t n = 0;
	int c;

	memset(a, 0, sizeof(*a));
	a->probe = probe_find("shm");
	a->probe_opts = (struct probe_opts){ .cpu = { -1, -1 }, .iterations = 100000 };
	a->ringbuf_bytes = 16u << 20;
	a->drain_ms = 200;
	a->progress = isatty(STDERR_FILENO);
	a->top = 10;
	for (size_t i = 0; i < N_OPTIONS; i++) {
		if (options[i].mask && !(options[i].mask & mask))
			continue;
		longopts[n++] = options[i].opt;
		if (options[i].opt.val < 0x100) {
			size_t l = strlen(shortopts);

			shortopts[l] = (char)options[i].opt.val;
			shortopts[l + 1] = options[i].opt.has_arg ? ':' : 0;
			shortopts[l + 2] = 0;
		}
	}
	memset(&longopts[n], 0, sizeof(longopts[n]));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == 'h') {
			help();
			return 1;
		}
		if (c == '?' || c == ':') {
			if (optopt && optopt < 0x100 && strchr(shortopts, optopt))
				log_err("%s: option -%c needs a value", argv[0], optopt);
			else
				log_err("%s: unknown option '%s' (see tailcause %s --help)", argv[0],
					argv[optind - 1], argv[0]);
			return -EINVAL;
		}
		if (parse_one(c, optarg, a))
			return -EINVAL;
	}
	a->rest = argv + optind;
	a->n_rest = argc - optind;
	return 0;
}
