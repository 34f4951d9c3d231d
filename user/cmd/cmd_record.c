// SPDX-License-Identifier: BSD-2-Clause
/* cmd_record.c - `tailcause record` and `tailcause run` (record, then report). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "lib/log.h"
#include "lib/outfile.h"
#include "lib/stop.h"
#include "record/iter_spec.h"
#include "record/recorder.h"
#include "report/report.h"
#include "run_args.h"

#define RECORD_OPTS (RA_PROBE | RA_VERBS | RA_OUTPUT | RA_TRACE | RA_COMMAND | RA_DURATION)
#define RUN_OPTS    (RA_PROBE | RA_VERBS | RA_OUTPUT | RA_TRACE | RA_REPORT | RA_HTML | RA_DURATION)
const struct cli_opts cmd_record_opts = {run_args_options, RECORD_OPTS, RUN_ARGS_HELP_WIDTH};
const struct cli_opts cmd_run_opts = {run_args_options, RUN_OPTS, RUN_ARGS_HELP_WIDTH};

static void record_help(void)
{
	printf("usage: tailcause record -o FILE [OPTIONS] [HOST]\n"
	       "       tailcause record -o FILE [OPTIONS] -- CMD [ARGS...]\n"
	       "\n"
	       "Runs a latency probe with the BPF tracers attached and writes everything to a\n"
	       "trace file: the round trips, the traced intervals (off-CPU time of the probe\n"
	       "threads with who ran instead; hard IRQs, softirqs, the local timer, IPIs,\n"
	       "C-state exits and NIC driver work on the probe CPUs; page faults of the probe;\n"
	       "compaction and direct reclaim anywhere), IRQ placement counts, IRQ names, host\n"
	       "facts and ring-buffer drops. Read it with 'tailcause report'.\n"
	       "With -- CMD, traces that command instead of a probe: its threads as they are\n"
	       "created and the CPUs they run on, until it exits (perftest, nccl-tests, ...).\n"
	       "Needs root (or CAP_BPF and CAP_PERFMON). Ctrl-C ends the run early and still\n"
	       "writes a complete trace.\n"
	       "Two hosts (--probe verbs or udp): record the server with --server and the client\n"
	       "with HOST; the client then also asks the server for its trace and writes it\n"
	       "beside its own (FILE-peer.tct) for 'tailcause report FILE --peer FILE-peer.tct'.\n"
	       "A peer lost mid-run leaves a complete trace of the round trips until then.\n"
	       "\n");
	run_args_help(RECORD_OPTS);
	printf("\n"
	       "examples:\n"
	       "  sudo tailcause record -o run.tct\n"
	       "  sudo tailcause record -o perftest.tct -- ib_write_lat -d mlx5_0 -n 100000\n"
	       "  sudo tailcause record -o pt.tct --iter perftest -- ib_write_lat -d mlx5_0 HOST\n"
	       "  sudo tailcause record -o sp.tct --iter sockperf -- sockperf ping-pong -i HOST\n"
	       "  sudo tailcause record -o run.tct -n 2M --cpu 2,3 --ringbuf 64M\n"
	       "  sudo tailcause record -o run.tct --probe verbs -d mlx5_0 --server\n"
	       "  sudo tailcause record -o cli.tct --probe udp hostA       # + cli-peer.tct\n"
	       "  sudo tailcause record -o hour.tct --probe shm -D 1h      # memory stays flat\n");
}

static void run_help(void)
{
	printf("usage: tailcause run [OPTIONS] [HOST]\n"
	       "\n"
	       "Records a probe run under tracing (like 'record') and prints the report (like\n"
	       "'report'): perftest-style statistics, the spikes, and their causes. The trace\n"
	       "is kept only with -o. Needs root (or CAP_BPF and CAP_PERFMON). The probe is\n"
	       "verbs in loopback on the first active RDMA port, or shm where there is none;\n"
	       "the report's header names it. With HOST (verbs or udp) against a server that\n"
	       "records ('tailcause record --server'), the server's trace comes back over the\n"
	       "run's link and the report is the two-host one: this host's causes, the peer's\n"
	       "(peer:<cause>) and the path's.\n"
	       "\n");
	run_args_help(RUN_OPTS);
	printf("\n"
	       "examples:\n"
	       "  sudo tailcause run\n"
	       "  sudo tailcause run -n 1M --html run.html\n"
	       "  sudo tailcause run --probe verbs -d rxe0 -n 200k\n"
	       "  sudo tailcause run --probe udp --busy-poll hostA\n"
	       "  sudo tailcause run -n 1M --cpu 0,1 -o run.tct --spike p99.9\n");
}

/*
 * The output's directory must exist and be writable, and the file must not
 * exist unless --force: usage errors, caught before anything is loaded.
 */
static int check_output(const char *path, int force)
{
	char *copy = strdup(path);
	const char *dir;
	struct stat st;
	int ok;

	if (!copy)
		return -ENOMEM;
	if (!force && lstat(path, &st) == 0) {
		log_err("--output %s: file exists (use --force to overwrite)", path);
		free(copy);
		return -EEXIST;
	}
	dir = dirname(copy);
	ok = access(dir, W_OK | X_OK) == 0;
	if (!ok)
		log_err("--output %s: directory %s: %s", path, dir, strerror(errno));
	free(copy);
	return ok ? 0 : -EINVAL;
}

/*
 * Two hosts, client: where the server's trace goes, OUTPUT.tct -> OUTPUT-peer.tct,
 * into buf (len bytes); NULL when this is not a client or the name would not fit.
 */
static const char *peer_path_of(const struct run_args *a, const char *path, char *buf, size_t len)
{
	size_t n = strlen(path);

	if (a->command || a->probe_opts.mode != PROBE_CLIENT)
		return NULL;
	if (n > 4 && !strcmp(path + n - 4, ".tct"))
		n -= 4;
	if ((size_t)snprintf(buf, len, "%.*s-peer.tct", (int)n, path) >= len)
		return NULL;
	return buf;
}

/* What a recording writes besides its trace (run): a report page, a directory of its own. */
struct record_extra {
	const char *later_file;
	int dir_fd;
};

static int record_to(const struct run_args *a, const char *path, int force,
		     const char *command_line, const char *peer_out, struct recorder_peer *peer,
		     const struct record_extra *extra)
{
	struct recorder_opts ro = {
		.out_path = path,
		.force = force,
		.probe = a->probe,
		.probe_opts = a->probe_opts,
		.ringbuf_bytes = a->ringbuf_bytes,
		.drain_ms = a->drain_ms,
		.force_fallback = a->fallback || getenv("TAILCAUSE_FORCE_FALLBACK"),
		.btf_path = a->btf_path,
		.progress = a->progress,
		.calibrate = !a->no_calibrate,
		.signal_ends = a->signal_ends,
		.command_line = command_line,
		.command = a->command,
		.peer_out = peer_out,
		.peer = peer,
		.later_file = extra ? extra->later_file : NULL,
		.created_dir_fd = extra ? extra->dir_fd : -1,
		.duration_ns = a->duration_ns,
	};
	struct iter_spec iter;
	char why[160];
	int err;

	if (a->iter) {
		if (iter_spec_parse(a->iter, &iter))
			return -TC_ERRNO__USAGE;
		ro.iter = &iter;
		ro.iter_first = a->iter_first;
	}
	if (a->duration_ns && a->command) {
		log_err("--duration runs the probe: not with a command (it ends when it ends)");
		return -TC_ERRNO__USAGE;
	}
	if (!cli_can_trace(why, sizeof(why))) {
		log_err("%s: %s", "load BPF programs", why);
		return -TC_ERRNO__ENV;
	}
	if (!ro.command && probe_resolve_cpus(&ro.probe_opts))
		return -TC_ERRNO__USAGE;
	cli_stop_on_signals();
	err = recorder_run(&ro);
	if (!err && peer_out && !peer->got)
		log_warn("the server's trace was not fetched: %s", peer->why);
	return err;
}

int cmd_record(int argc, char **argv)
{
	struct recorder_peer got = {0};
	char peer_buf[4096];
	struct run_args a;
	const char *peer;
	int err;

	err = run_args_parse(argc, argv, RECORD_OPTS | RA_AUTO_PROBE, record_help, &a);
	if (err)
		return err > 0 ? 0 : -TC_ERRNO__USAGE;
	if (a.n_rest) {
		log_err("record: unexpected argument '%s' (a command to trace goes after --)",
			a.rest[0]);
		return -TC_ERRNO__USAGE;
	}
	if (!a.output) {
		log_err("record: -o FILE is required (see tailcause record --help)");
		return -TC_ERRNO__USAGE;
	}
	if (a.iter_first && !a.iter) {
		log_err("record: --iter-first needs --iter (what to mark)");
		return -TC_ERRNO__USAGE;
	}
	if (a.iter && !a.command) {
		log_err("record: --iter marks a traced command's iterations: give the command "
			"after -- (tailcause record -o F --iter %s -- CMD ...)",
			a.iter);
		return -TC_ERRNO__USAGE;
	}
	if (check_output(a.output, a.force))
		return -TC_ERRNO__USAGE;
	peer = peer_path_of(&a, a.output, peer_buf, sizeof(peer_buf));
	if (peer && check_output(peer, a.force))
		return -TC_ERRNO__USAGE;
	err = record_to(&a, a.output, a.force, cli_command_line(argc, argv), peer, &got, NULL);
	if (!err)
		fprintf(stderr, "tailcause: trace written to %s\n", a.output);
	if (!err && got.got)
		fprintf(stderr,
			"tailcause: the server's trace written to %s; the two-host report: "
			"tailcause report %s --peer %s\n",
			peer, a.output, peer);
	return err;
}

/* run without -o: a directory of its own for the trace (and the peer's), removed after. */
static int make_run_dir(char *dir, char *path, size_t len, int *fd)
{
	int err;

	if (!mkdtemp(dir) || (*fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		err = -errno;
		log_err("create %s: %s", dir, strerror(-err));
		if (*dir && access(dir, F_OK) == 0)
			rmdir(dir);
		return err;
	}
	snprintf(path, len, "%s/run.tct", dir);
	return 0;
}

int cmd_run(int argc, char **argv)
{
	char dir[] = "/tmp/tailcause-run-XXXXXX", tmp[64], peer_buf[4096];
	struct record_extra extra = {.dir_fd = -1};
	struct recorder_peer got = {0};
	struct report_opts ro;
	struct run_args a;
	const char *path, *peer;
	int err;

	err = run_args_parse(argc, argv, RUN_OPTS | RA_AUTO_PROBE, run_help, &a);
	if (err)
		return err > 0 ? 0 : -TC_ERRNO__USAGE;
	if (a.n_rest) {
		log_err("run: unexpected argument '%s'", a.rest[0]);
		return -TC_ERRNO__USAGE;
	}
	if (a.output && check_output(a.output, a.force))
		return -TC_ERRNO__USAGE;
	if (a.html && outfile_check_dir("--html", a.html))
		return -TC_ERRNO__USAGE;
	path = a.output;
	if (!path) {
		err = make_run_dir(dir, tmp, sizeof(tmp), &extra.dir_fd);
		if (err)
			return err;
		path = tmp;
	}
	peer = peer_path_of(&a, path, peer_buf, sizeof(peer_buf));
	if (peer && a.output && check_output(peer, a.force))
		return -TC_ERRNO__USAGE;
	extra.later_file = a.html;
	err = record_to(&a, path, a.force, cli_command_line(argc, argv), peer, &got, &extra);
	if (!err) {
		ro = (struct report_opts){
			.format = REPORT_TEXT,
			.spike = a.spike,
			.nic_irq_pattern = a.nic_irq_pattern,
			.top = a.top,
			.trace_kept = a.output != NULL,
			.html_path = a.html,
			.peer_path = got.got ? peer : NULL,
		};
		err = report_file(path, &ro, stdout);
	}
	if (!a.output) {
		unlink(path);
		if (peer)
			unlink(peer);
		rmdir(dir);
		close(extra.dir_fd);
	}
	return err;
}
