// SPDX-License-Identifier: BSD-2-Clause
/* cmd_lat.c - `tailcause lat`: a latency probe alone, perftest-style statistics. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/stats.h"
#include "io/log.h"
#include "report.h"
#include "run_args.h"

static void lat_help(void)
{
	printf("usage: tailcause lat [OPTIONS]\n"
	       "\n"
	       "Runs a latency probe without tracing and prints ib_write_lat-style statistics:\n"
	       "t_min, t_max, t_typical (median), t_avg, t_stdev, 99%% and 99.9%% percentiles,\n"
	       "one way (RTT/2), in usec. Unlike perftest, every sample is kept (perftest\n"
	       "drops the two largest) and t_stdev is not truncated to an integer. Needs no\n"
	       "privileges.\n"
	       "\n");
	run_args_help(RA_PROBE);
	printf("\n"
	       "examples:\n"
	       "  tailcause lat --probe shm\n"
	       "  tailcause lat --probe shm -n 1M --cpu 0,1\n");
}

int cmd_lat(int argc, char **argv)
{
	struct lat_summary sum;
	struct tc_sample *s;
	struct run_args a;
	uint64_t *rtt;
	void *probe;
	size_t done = 0;
	int err;

	err = run_args_parse(argc, argv, RA_PROBE, lat_help, &a);
	if (err)
		return err > 0 ? TC_EXIT_OK : TC_EXIT_USAGE;
	if (a.n_rest) {
		log_err("lat: unexpected argument '%s'", a.rest[0]);
		return TC_EXIT_USAGE;
	}
	if (probe_resolve_cpus(&a.probe_opts))
		return TC_EXIT_USAGE;
	s = calloc(a.probe_opts.iterations, sizeof(*s));
	rtt = calloc(a.probe_opts.iterations, sizeof(*rtt));
	if (!s || !rtt) {
		log_err("allocate %zu samples: %s", a.probe_opts.iterations, strerror(ENOMEM));
		free(s);
		free(rtt);
		return TC_EXIT_RUNTIME;
	}
	memset(s, 0, a.probe_opts.iterations * sizeof(*s));	/* fault the pages in now */
	err = a.probe->open(&a.probe_opts, &probe);
	if (!err) {
		err = a.probe->run(probe, s, a.probe_opts.iterations, &done);
		a.probe->close(probe);
	}
	if (!err) {
		for (size_t i = 0; i < done; i++)
			rtt[i] = s[i].t_end - s[i].t_start;
		err = stats_summarize(rtt, done, &sum);
	}
	if (!err) {
		printf(" probe: %s on CPUs %d,%d\n", a.probe->name, a.probe_opts.cpu[0],
		       a.probe_opts.cpu[1]);
		report_stats_table(stdout, &sum, 0);
	}
	free(s);
	free(rtt);
	return err ? TC_EXIT_RUNTIME : TC_EXIT_OK;
}
