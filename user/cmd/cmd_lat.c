// SPDX-License-Identifier: BSD-2-Clause
/* cmd_lat.c - `tailcause lat`: a latency probe alone, perftest-style statistics. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core/stats/histogram.h"
#include "core/stats/stats.h"
#include "lib/log.h"
#include "lib/stop.h"
#include "lib/str.h"
#include "record/privs.h"
#include "report/report.h"
#include "run_args.h"

#define LAT_OPTS (RA_PROBE | RA_VERBS | RA_DURATION)
const struct cli_opts cmd_lat_opts = {run_args_options, LAT_OPTS, RUN_ARGS_HELP_WIDTH};

static void lat_help(void)
{
	printf("usage: tailcause lat [OPTIONS] [HOST]\n"
	       "\n"
	       "Runs a latency probe without tracing and prints ib_write_lat-style statistics:\n"
	       "t_min, t_max, t_typical (median), t_avg, t_stdev, 99%% and 99.9%% percentiles,\n"
	       "one way (RTT/2), in usec. Unlike perftest, every sample is kept (perftest\n"
	       "drops the two largest) and t_stdev is not truncated to an integer. Needs no\n"
	       "privileges (verbs needs a large enough `ulimit -l`).\n"
	       "\n"
	       "With --probe verbs it works like ib_write_lat, with --probe udp like sockperf\n"
	       "ping-pong: without HOST it waits as server, with HOST it connects to that\n"
	       "server as client, and both print statistics; --loopback runs both sides in\n"
	       "this process (verbs: on one device; udp: on 127.0.0.1). Exit code 2 when the\n"
	       "device, its port or the peer is missing or unusable.\n"
	       "\n");
	run_args_help(LAT_OPTS);
	printf("\n"
	       "examples:\n"
	       "  tailcause lat --probe shm -n 1M --cpu 0,1\n"
	       "  tailcause lat --probe verbs --loopback -d rxe0 -n 10k\n"
	       "  tailcause lat --probe verbs -d mlx5_0                 # on host A: server\n"
	       "  tailcause lat --probe verbs -d mlx5_0 hostA           # on host B: client\n"
	       "  tailcause lat --probe udp --loopback --busy-poll -n 100k\n"
	       "  tailcause lat --probe shm -D 30m                      # every percentile of 30 min\n"
	       "  tailcause lat --probe udp --port 11111                # on host A: server\n"
	       "  tailcause lat --probe udp --port 11111 hostA          # on host B: client\n");
}

/*
 * What runs where; flushed, since a server may wait a long time for its client. The
 * probe's detail names a device as the system does: escaped.
 */
static void print_probe(const struct run_args *a, void *probe)
{
	char detail[STR_ESCAPED_LEN(256)];

	if (a->probe_opts.mode != PROBE_LOOPBACK && strcmp(a->probe->name, "shm"))
		printf(" probe: %s on CPU %d", a->probe->name, a->probe_opts.cpu[0]);
	else
		printf(" probe: %s on CPUs %d,%d", a->probe->name, a->probe_opts.cpu[0],
		       a->probe_opts.cpu[1]);
	if (a->probe->detail)
		printf(": %s", str_escape(detail, sizeof(detail), a->probe->detail(probe)));
	printf("\n");
	fflush(stdout);
}

/*
 * --duration: runs of -n round trips until the time is up (or Ctrl-C), each counted
 * into acc; a progress line a second on a terminal. 0 or -errno (reported).
 */
static int run_for(const struct run_args *a, void *probe, struct tc_sample *s,
		   struct stats_acc *acc)
{
	uint64_t start = probe_now_ns(), next = start + 1000000000ull, now = start;
	int tty = isatty(STDERR_FILENO), err = 0;

	cli_stop_on_signals();
	for (uint64_t runs = 0; !err; runs++) {
		int want = now - start < a->duration_ns && !stop_requested();
		size_t done = 0;

		/* two hosts: both sides agree between runs (both give -D, as perftest) */
		want = runs ? probe_next_run(a->probe, probe, want) : want;
		if (want <= 0) {
			err = want;
			break;
		}
		err = a->probe->run(probe, s, a->probe_opts.iterations, &done);
		for (size_t i = 0; i < done; i++)
			stats_acc__add(acc, s[i].t_end - s[i].t_start);
		now = probe_now_ns();
		if (tty && now >= next) {
			fprintf(stderr,
				"\r  lat: %.0f of %.0f s, %llu round trips, p99.9 %.3f usec ",
				(double)(now - start) / 1e9, (double)a->duration_ns / 1e9,
				(unsigned long long)acc->h->total,
				(double)hist_percentile(acc->h, 99.9) / 2e3);
			next = now + 1000000000ull;
		}
	}
	if (tty)
		fprintf(stderr, "\n");
	return err;
}

/* lat -D: the statistics of a run of any length, from a histogram. */
static int lat_duration(const struct run_args *a, void *probe, struct tc_sample *s)
{
	struct lat_summary sum;
	struct stats_acc acc;
	int err = stats_acc__init(&acc);

	if (err) {
		log_err("lat: %s", strerror(-err));
		return err;
	}
	err = run_for(a, probe, s, &acc);
	if (!err && stats_acc_summary(&acc, &sum)) {
		log_err("lat: no round trip completed");
		err = -EIO;
	}
	if (!err)
		report_stats_table(stdout, &sum, probe_message_bytes(a->probe, &a->probe_opts));
	stats_acc__free(&acc);
	return err;
}

/* lat writes no file: before it talks to a peer it keeps only what the verbs probe needs
 * (record/privs.h), with the sudo caller's ids where there is one. */
static int drop_privileges(const struct run_args *a)
{
	struct privs_need n;

	privs_need_init(&n);
	n.memlock = !strcmp(a->probe->name, "verbs");
	return privs_drop(&n);
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

	err = run_args_parse(argc, argv, LAT_OPTS | RA_SERVER_DEFAULT, lat_help, &a);
	if (err)
		return err > 0 ? 0 : -TC_ERRNO__USAGE;
	if (a.n_rest) {
		log_err("lat: unexpected argument '%s'", a.rest[0]);
		return -TC_ERRNO__USAGE;
	}
	if (probe_resolve_cpus(&a.probe_opts))
		return -TC_ERRNO__USAGE;
	s = calloc(a.probe_opts.iterations, sizeof(*s));
	rtt = calloc(a.probe_opts.iterations, sizeof(*rtt));
	if (!s || !rtt) {
		log_err("allocate %zu samples: %s", a.probe_opts.iterations, strerror(ENOMEM));
		free(s);
		free(rtt);
		return -ENOMEM;
	}
	memset(s, 0, a.probe_opts.iterations * sizeof(*s)); /* fault the pages in now */
	err = drop_privileges(&a);
	err = err ?: a.probe->open(&a.probe_opts, &probe);
	if (!err) {
		print_probe(&a, probe);
		if (a.duration_ns) {
			err = lat_duration(&a, probe, s);
			a.probe->close(probe);
			free(s);
			free(rtt);
			return err;
		}
		err = a.probe->run(probe, s, a.probe_opts.iterations, &done);
		if (!err && a.probe->clock)
			printf(" clock: %s\n", a.probe->clock(probe));
		a.probe->close(probe);
	}
	if (!err) {
		for (size_t i = 0; i < done; i++)
			rtt[i] = s[i].t_end - s[i].t_start;
		err = stats_summarize(rtt, done, &sum);
		if (err)
			log_err("lat: no round trip completed");
	}
	if (!err)
		report_stats_table(stdout, &sum, probe_message_bytes(a.probe, &a.probe_opts));
	free(s);
	free(rtt);
	return err;
}
