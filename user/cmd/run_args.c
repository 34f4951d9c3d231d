// SPDX-License-Identifier: BSD-2-Clause
/* run_args.c - parses the options lat, record, run and report share. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core/attrib/causes.h"
#include "lib/log.h"
#include "probe/link_auth.h"
#include "report/report.h"
#include "run_args.h"

enum {
	OPT_RINGBUF = 0x100,
	OPT_DRAIN_MS,
	OPT_FALLBACK,
	OPT_BTF,
	OPT_NO_PROGRESS,
	OPT_NO_CALIBRATE,
	OPT_SIGNAL_ENDS,
	OPT_ITER,
	OPT_ITER_FIRST,
	OPT_SPIKE,
	OPT_NIC_IRQ,
	OPT_TOP,
	OPT_LOOPBACK,
	OPT_SERVER,
	OPT_PORT,
	OPT_KEY,
	OPT_BIND,
	OPT_CLOCK,
	OPT_BUSY_POLL,
	OPT_FORMAT,
	OPT_HTML,
	OPT_SAMPLES,
	OPT_ITER_LOG,
	OPT_PEER,
	OPT_FROM,
	OPT_TO,
	OPT_INTERVAL,
	OPT_STREAM,
	OPT_NO_STREAM,
};

const struct cli_opt run_args_options[] = {
	{{"probe", required_argument, NULL, 'p'},
	 RA_PROBE,
	 "NAME",
	 "verbs (RDMA WRITE ping-pong, ib_write_lat's method), udp (kernel\n"
	 "UDP sockets, sockperf ping-pong's method) or shm (a shared\n"
	 "cache line, no NIC). Default: shm for lat; for record and run\n"
	 "verbs where an RDMA port is active, else shm; verbs whenever\n"
	 "an RDMA option or HOST is given"},
	{{"cpu", required_argument, NULL, 'c'},
	 RA_PROBE,
	 "A,B",
	 "pin the two probe threads to CPUs A and B (default: the last two)"},
	{{"iterations", required_argument, NULL, 'n'},
	 RA_PROBE,
	 "N",
	 "round trips to time, k/M suffixes allowed (default 100000)"},
	{{"duration", required_argument, NULL, 'D'},
	 RA_DURATION,
	 "TIME",
	 "run for TIME (30, 90s, 30m, 2h) instead of -n round trips, as\n"
	 "perftest's -D, with every percentile; -n is the size of each\n"
	 "run of the probe. Two hosts: give -D to both sides, as\n"
	 "perftest; they agree after each run whether another follows,\n"
	 "and the first to reach its TIME (or a Ctrl-C) ends both. lat\n"
	 "counts each round trip in a histogram (within 0.8 %), record\n"
	 "writes each run's round trips to the file at once: memory\n"
	 "stays flat"},
	{{"ib-dev", required_argument, NULL, 'd'},
	 RA_VERBS,
	 "DEV",
	 "verbs: RDMA device (default: the first ibv_devinfo lists)"},
	{{"ib-port", required_argument, NULL, 'i'},
	 RA_VERBS,
	 "N",
	 "verbs: device port (default 1)"},
	{{"gid-index", required_argument, NULL, 'x'},
	 RA_VERBS,
	 "N",
	 "verbs: GID index (default: RoCE v2 with an IPv4 address; on\n"
	 "InfiniBand, none: LID routing)"},
	{{"size", required_argument, NULL, 's'},
	 RA_VERBS,
	 "BYTES",
	 "verbs, udp: message size (default 2; a udp datagram carries\n"
	 "at least its 8-byte sequence number)"},
	{{"inline-size", required_argument, NULL, 'I'},
	 RA_VERBS,
	 "N",
	 "verbs: largest message sent inline (default 220; 0: never)"},
	{{"loopback", no_argument, NULL, OPT_LOOPBACK},
	 RA_VERBS,
	 NULL,
	 "verbs, udp: two threads in one process (verbs: two queue pairs\n"
	 "on one device; udp: two sockets on 127.0.0.1); the default\n"
	 "of record and run"},
	{{"server", no_argument, NULL, OPT_SERVER},
	 RA_VERBS,
	 NULL,
	 "verbs, udp: wait for a client on --port (the default of lat without\n"
	 "HOST); HOST instead connects to that server as client. Two-host\n"
	 "mode runs one thread, on the first --cpu"},
	{{"port", required_argument, NULL, OPT_PORT},
	 RA_VERBS,
	 "N",
	 "verbs, udp: TCP port of the two-host exchange (default 18515;\n"
	 "udp's datagrams use the same UDP port on the server)"},
	{{"key", required_argument, NULL, OPT_KEY},
	 RA_VERBS,
	 "FILE",
	 "two hosts: the secret both hold (mode 600; $TAILCAUSE_KEY_FILE):\n"
	 "no trace crosses the link without it, and a server with it\n"
	 "lets no other client in (docs/two-hosts.md)"},
	{{"bind", required_argument, NULL, OPT_BIND},
	 RA_VERBS,
	 "ADDR",
	 "server: listen on ADDR only (default: every address)"},
	{{"busy-poll", no_argument, NULL, OPT_BUSY_POLL},
	 RA_VERBS,
	 NULL,
	 "udp: spin on non-blocking receives (sockperf's busy-poll)\n"
	 "instead of sleeping in recv()"},
	{{"clock", required_argument, NULL, OPT_CLOCK},
	 RA_VERBS,
	 "C",
	 "verbs: auto (default: the TSC where clock_gettime is slow),\n"
	 "tsc, or monotonic (clock_gettime)"},
	{{"output", required_argument, NULL, 'o'}, RA_OUTPUT, "FILE", "trace file to write (.tct)"},
	{{"force", no_argument, NULL, 'f'}, RA_OUTPUT, NULL, "overwrite an existing output file"},
	{{"ringbuf", required_argument, NULL, OPT_RINGBUF},
	 RA_TRACE,
	 "SIZE",
	 "BPF ring buffer size, K/M suffixes (default 16M)"},
	{{"drain-ms", required_argument, NULL, OPT_DRAIN_MS},
	 RA_TRACE,
	 "MS",
	 "drain the ring buffer every MS ms (default 200; the drain\n"
	 "thread preempts the probe when it has no spare CPU: `self`)"},
	{{"fallback", no_argument, NULL, OPT_FALLBACK},
	 RA_TRACE,
	 NULL,
	 "classic tracepoints instead of BTF ones (tp_btf)"},
	{{"btf", required_argument, NULL, OPT_BTF},
	 RA_TRACE,
	 "FILE",
	 "the kernel's types from FILE, for a kernel without BTF\n"
	 "(/sys/kernel/btf/vmlinux): e.g. its file from BTFHub"},
	{{"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
	 RA_TRACE,
	 NULL,
	 "no progress line on stderr"},
	{{"no-calibrate", no_argument, NULL, OPT_NO_CALIBRATE},
	 RA_TRACE,
	 NULL,
	 "skip measuring what IPIs, ticks and page faults really cost\n"
	 "the probe CPUs, or a traced command's last two CPUs (half a\n"
	 "second before the run); without it the report credits only\n"
	 "what the tracers saw of them"},
	{{"signal-ends", no_argument, NULL, OPT_SIGNAL_ENDS},
	 RA_TRACE,
	 NULL,
	 "time signal handlers to their end (rt_sigreturn): a system-call\n"
	 "tracepoint, which slows every system call on the machine\n"
	 "(~50 ns each); without it a handler is bounded by the round\n"
	 "trip it falls in"},
	{{"iter", required_argument, NULL, OPT_ITER},
	 RA_COMMAND,
	 "SPEC",
	 "-- CMD: make the command's own iterations the samples, marked\n"
	 "where they begin (and end) on the tracers' clock, so each of\n"
	 "its spikes gets its causes, with no change to the benchmark:\n"
	 "  perftest          each post of a send (ib_*_lat's timing)\n"
	 "  sockperf          sendto's entry to recvfrom's return\n"
	 "  mpi               each MPI rank's steps between its\n"
	 "                    collective calls, and the collectives\n"
	 "                    with their stragglers (docs/mpi.md)\n"
	 "  syscall:NAME[:END]  NAME's entry to the next (or to END's\n"
	 "                    return)\n"
	 "  uprobe:FILE:FUNC  each call of FUNC (or 0xOFFSET) in FILE\n"
	 "(docs/iterations.md: what each costs and how it was checked)"},
	{{"iter-first", required_argument, NULL, OPT_ITER_FIRST},
	 RA_COMMAND,
	 "K",
	 "mark only the first K iterations, then detach the markers:\n"
	 "the rest run as fast as untraced; give the benchmark's own\n"
	 "per-iteration log to 'report --iter-log' (perftest -U)"},
	{{"spike", required_argument, NULL, OPT_SPIKE},
	 RA_REPORT,
	 "RULE",
	 "what counts as a spike: default (above p99 and above 2x\n"
	 "median), p99.9 (a percentile), 20us (one-way latency), 3x\n"
	 "(a multiple of the median)"},
	{{"nic-irq", required_argument, NULL, OPT_NIC_IRQ},
	 RA_REPORT,
	 "PAT",
	 "IRQ names that belong to the NIC, shell pattern (default mlx5_*)"},
	{{"top", required_argument, NULL, OPT_TOP},
	 RA_REPORT,
	 "N",
	 "spikes to show with their timelines (default 10)"},
	{{"format", required_argument, NULL, OPT_FORMAT},
	 RA_FORMAT,
	 "F",
	 "text (default), json (docs/report-schema.md), html (one\n"
	 "self-contained page), perfetto (trace-event JSON for\n"
	 "ui.perfetto.dev) or openmetrics (Prometheus textfile collector)"},
	{{"output", required_argument, NULL, 'o'},
	 RA_FORMAT,
	 "FILE",
	 "write the report to FILE (it appears whole or not at all)\n"
	 "instead of stdout"},
	{{"iter-log", required_argument, NULL, OPT_ITER_LOG},
	 RA_FORMAT,
	 "FILE",
	 "a trace recorded with --iter perftest --iter-first K: perftest's\n"
	 "own -U output (its per-iteration list), placed on the trace's\n"
	 "clock by the K marked iterations; the report says its error"},
	{{"peer", required_argument, NULL, OPT_PEER},
	 RA_FORMAT,
	 "FILE",
	 "the other host's trace of the same two-host run (verbs or udp\n"
	 "probe, client and server each recorded): one report whose\n"
	 "spikes name this host's causes, the peer's (peer:<cause>) and\n"
	 "the path between, on clocks aligned by the round trips"},
	{{"samples", required_argument, NULL, OPT_SAMPLES},
	 RA_FORMAT,
	 "CSV",
	 "attribute your own benchmark's iterations instead of the\n"
	 "trace's: lines of start_ns,end_ns[,cpu,tid] on CLOCK_MONOTONIC,\n"
	 "taken while 'tailcause record -- CMD' traced it (# comments,\n"
	 "optional header; docs/samples-csv.md)"},
	{{"interval", required_argument, NULL, OPT_INTERVAL},
	 RA_FORMAT,
	 "MS",
	 "a trace without samples (record -- CMD) is reported as host\n"
	 "noise per thread and per interval of MS ms (default 100)"},
	{{"from", required_argument, NULL, OPT_FROM},
	 RA_FORMAT,
	 "TIME",
	 "report only the stretch of the run from TIME after its first\n"
	 "round trip (90, 90s, 500ms, 5m) ..."},
	{{"to", required_argument, NULL, OPT_TO},
	 RA_FORMAT,
	 "TIME",
	 "... to TIME after it (default: the end); the header says which"},
	{{"stream", optional_argument, NULL, OPT_STREAM},
	 RA_FORMAT,
	 "N",
	 "read the trace a segment of N round trips at a time (default\n"
	 "65536), in memory that does not grow with its length; a\n"
	 "trace file of 64 MiB or more is read so by itself (text, json,\n"
	 "html and openmetrics of a probe's round trips; the header\n"
	 "says so). Perfetto reads a --from/--to stretch's blocks alone"},
	{{"no-stream", no_argument, NULL, OPT_NO_STREAM},
	 RA_FORMAT,
	 NULL,
	 "read the whole trace into memory, whatever its size"},
	{{"html", required_argument, NULL, OPT_HTML},
	 RA_HTML,
	 "FILE",
	 "also write the report as one self-contained HTML page"},
	{{"help", no_argument, NULL, 'h'}, 0, NULL, "this text"},
	{{0}},
};
#define N_OPTIONS (sizeof(run_args_options) / sizeof(run_args_options[0]))

void run_args_help(unsigned int mask)
{
	struct cli_opts c = {run_args_options, mask, RUN_ARGS_HELP_WIDTH};

	printf("options:\n");
	cli_opts_help(&c, stdout);
}

/* The two-host and RDMA options; parse_one notes which kind it saw. */
static int parse_verbs(int c, const char *arg, struct run_args *a)
{
	struct probe_opts *o = &a->probe_opts;
	uint64_t v;

	switch (c) {
	case 'd':
		return cli_parse_name("--ib-dev", arg, "device name", &o->ib_dev);
	case 'i':
		if (cli_parse_count("--ib-port", arg, 1, 255, &v))
			return -EINVAL;
		o->ib_port = (int)v;
		return 0;
	case 'x':
		if (cli_parse_count("--gid-index", arg, 0, 4095, &v))
			return -EINVAL;
		o->gid_index = (int)v;
		return 0;
	case 's':
		if (cli_parse_size("--size", arg, 1, 1u << 20, &v))
			return -EINVAL;
		o->size = v;
		return 0;
	case 'I':
		if (cli_parse_count("--inline-size", arg, 0, 4096, &v))
			return -EINVAL;
		o->inline_size = (int)v;
		return 0;
	case OPT_LOOPBACK:
		a->loopback = 1;
		return 0;
	case OPT_BUSY_POLL:
		o->busy_poll = 1;
		return 0;
	case OPT_SERVER:
		a->server = 1;
		return 0;
	case OPT_PORT:
		if (cli_parse_count("--port", arg, 1, 65535, &v))
			return -EINVAL;
		o->tcp_port = (unsigned int)v;
		return 0;
	case OPT_KEY:
		return cli_parse_name("--key", arg, "file name", &a->key_path);
	case OPT_BIND:
		return cli_parse_name("--bind", arg, "address", &o->bind_addr);
	case OPT_CLOCK:
		if (strcmp(arg, "auto") && strcmp(arg, "tsc") && strcmp(arg, "monotonic")) {
			log_err("--clock: '%s' is not auto, tsc or monotonic", arg);
			return -EINVAL;
		}
		o->clock = arg;
		return 0;
	}
	return -EINVAL;
}

/* The report's output options. */
static int parse_report(int c, const char *arg, struct run_args *a)
{
	enum report_format f;
	uint64_t v;

	switch (c) {
	case OPT_FORMAT:
		if (report_format_parse(arg, &f)) {
			log_err("--format: '%s' is not a format (%s)", arg, report_format_names());
			return -EINVAL;
		}
		a->format = (int)f;
		return 0;
	case OPT_HTML:
		return cli_parse_name("--html", arg, "file name", &a->html);
	case OPT_SAMPLES:
		return cli_parse_name("--samples", arg, "file name", &a->samples);
	case OPT_PEER:
		return cli_parse_name("--peer", arg, "file name", &a->peer);
	case OPT_ITER_LOG:
		return cli_parse_name("--iter-log", arg, "file name", &a->iter_log);
	case OPT_INTERVAL:
		if (cli_parse_count("--interval", arg, 1, 3600000, &v))
			return -EINVAL;
		a->interval_ns = v * 1000000ull;
		return 0;
	case OPT_NO_STREAM:
		a->stream = -1;
		return 0;
	case OPT_STREAM:
		a->stream = 1;
		if (arg && cli_parse_count("--stream", arg, 1, 1u << 30, &v))
			return -EINVAL;
		a->segment = arg ? (size_t)v : 0;
		return 0;
	case OPT_FROM:
	case OPT_TO:
		if (cli_parse_duration(c == OPT_FROM ? "--from" : "--to", arg, 0, 366u * 24 * 3600,
				       c == OPT_FROM ? &a->from_ns : &a->to_ns))
			return -EINVAL;
		if (c == OPT_TO)
			a->to_given = 1;
		return 0;
	}
	return -EINVAL;
}

/* The recorder's options: the file, the ring buffer, what is traced and said. */
static int parse_record(int c, const char *arg, struct run_args *a)
{
	uint64_t v;

	switch (c) {
	case 'o':
		return cli_parse_name("--output", arg, "file name", &a->output);
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
	case OPT_BTF:
		return cli_parse_name("--btf", arg, "file name", &a->btf_path);
	case OPT_NO_PROGRESS:
		a->progress = 0;
		return 0;
	case OPT_NO_CALIBRATE:
		a->no_calibrate = 1;
		return 0;
	case OPT_SIGNAL_ENDS:
		a->signal_ends = 1;
		return 0;
	case OPT_ITER:
		a->iter = arg;
		return 0;
	case OPT_ITER_FIRST:
		if (cli_parse_count("--iter-first", arg, 2, 1000000000, &v))
			return -EINVAL;
		a->iter_first = (size_t)v;
		return 0;
	}
	return -EINVAL;
}

static int parse_one(int c, const char *arg, struct run_args *a)
{
	uint64_t v;

	switch (c) {
	case 'd':
	case 'i':
	case 'x':
	case 'I':
	case OPT_CLOCK:
		a->verbs_given = 1;
		return parse_verbs(c, arg, a);
	case OPT_BUSY_POLL:
		a->udp_given = 1;
		return parse_verbs(c, arg, a);
	case 's':
	case OPT_LOOPBACK:
	case OPT_SERVER:
	case OPT_PORT:
	case OPT_KEY:
	case OPT_BIND:
		a->net_given = 1;
		return parse_verbs(c, arg, a);
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
	case 'D':
		return cli_parse_duration("--duration", arg, 1, 7 * 24 * 3600, &a->duration_ns);
	case 'o':
	case 'f':
	case OPT_RINGBUF:
	case OPT_DRAIN_MS:
	case OPT_FALLBACK:
	case OPT_BTF:
	case OPT_NO_PROGRESS:
	case OPT_NO_CALIBRATE:
	case OPT_SIGNAL_ENDS:
	case OPT_ITER:
	case OPT_ITER_FIRST:
		return parse_record(c, arg, a);
	case OPT_SPIKE:
		return cli_parse_spike(arg, &a->spike);
	case OPT_NIC_IRQ:
		return cli_parse_name("--nic-irq", arg, "pattern", &a->nic_irq_pattern);
	case OPT_TOP:
		if (cli_parse_count("--top", arg, 0, 10000, &v))
			return -EINVAL;
		a->top = (unsigned int)v;
		return 0;
	case OPT_FORMAT:
	case OPT_HTML:
	case OPT_SAMPLES:
	case OPT_ITER_LOG:
	case OPT_PEER:
	case OPT_INTERVAL:
	case OPT_FROM:
	case OPT_TO:
	case OPT_STREAM:
	case OPT_NO_STREAM:
		return parse_report(c, arg, a);
	}
	return -EINVAL;
}

int run_args_parse(int argc, char **argv, unsigned int mask, void (*help)(void), struct run_args *a)
{
	struct cli_opts opts = {run_args_options, mask, RUN_ARGS_HELP_WIDTH};
	struct option longopts[N_OPTIONS];
	char shortopts[64];
	int c;

	memset(a, 0, sizeof(*a));
	probe_opts_init(&a->probe_opts);
	a->ringbuf_bytes = 16u << 20;
	a->drain_ms = 200;
	a->progress = isatty(STDERR_FILENO);
	a->top = 10;
	if (cli_opts_getopt(&opts, longopts, N_OPTIONS, shortopts, sizeof(shortopts)))
		return -E2BIG; /* a table too long for its arrays: a bug, caught by any test */
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == 'h') {
			help();
			return 1;
		}
		if (c == '?')
			return cli_option_error(argv, longopts);
		if (parse_one(c, optarg, a))
			return -EINVAL;
	}
	a->rest = argv + optind;
	a->n_rest = argc - optind;
	if ((mask & RA_COMMAND) && a->n_rest && !strcmp(argv[optind - 1], "--")) {
		a->command = a->rest; /* argv is NULL-terminated, so is the command */
		a->n_rest = 0;
		return 0;
	}
	return (mask & RA_PROBE) ? run_args_pick_probe(mask, a) : 0;
}
