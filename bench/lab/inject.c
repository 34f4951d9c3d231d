// SPDX-License-Identifier: BSD-2-Clause
/*
 * inject.c - the attribution lab's injectors: cause one host cause at known
 * moments and log the ground truth, one line per injection window,
 *
 *     t_start_ns t_end_ns cpu cause
 *
 * on CLOCK_MONOTONIC (the clock of the tracers and of the probe's samples).
 *
 *   tc-lab-inject MODE [-o LOG] [-t SECONDS] [-p PERIOD_US] [-b BURST_US]
 *                 [-c CPU] [-T TARGET_CPU] [-n COMM] [-f PRIO] [-H BURN_US] [-P PIDFILE]
 *
 * modes (each waits PERIOD_US, then injects for about BURST_US, until SECONDS
 * have passed or SIGTERM/SIGINT arrives; the first window starts after one period):
 *   hog      spin BURST_US on CPU (pin: -c), comm -n. Logs one window per
 *            stretch it really ran (gaps over 3 us split it). Cause:
 *            preemption:COMM on CPU.
 *   ipi      from CPU, read /dev/cpu/TARGET/cpuid for BURST_US: every read is a
 *            smp_call_function_single to TARGET, logged as its own window.
 *            Cause: ipi:call_function* on TARGET. A read during which the
 *            sender was preempted is logged with cause `uncertain`: its
 *            window holds someone else's time slice, not just the IPI.
 *   disk     from CPU, O_DIRECT 4 KiB reads of -F FILE (at least 1 MiB, on a real
 *            disk) for BURST_US: each read ends with the disk's completion IRQ,
 *            delivered where that IRQ is steered (TARGET), logged as its own
 *            window (`uncertain` when the reader was preempted). Cause:
 *            hardirq:* on TARGET.
 *   udp      from CPU, send 64-byte loopback UDP datagrams for BURST_US (with lo's
 *            RPS steered to TARGET, the NET_RX softirq runs on TARGET; the lab
 *            script sets and restores rps_cpus). Cause: softirq:net_rx on TARGET.
 *   compact  on CPU, write 1 to /proc/sys/vm/compact_memory (compacts every zone;
 *            BURST_US unused: the window is the write). Cause: thp-compaction.
 *   workq    from CPU, write 1 to /proc/sys/vm/stat_refresh: schedule_on_each_cpu
 *            runs refresh_vm_stats on every CPU and waits for it, so the work on
 *            TARGET runs inside the write (BURST_US unused: the window is the
 *            write). Cause: workqueue:refresh_vm_stats on TARGET.
 *   hrtimer  hrtimers on TARGET that wake nobody: from TARGET, arm one one-shot
 *            timerfd per PERIOD_US for SECONDS, then run on CPU and never read
 *            them (a periodic timerfd re-arms only in read(), on the reader's
 *            CPU: never read, it fires once). Each fires once in TARGET's timer
 *            interrupt, running timerfd_tmrproc. Expiries sit a whole number of
 *            milliseconds plus 500 us after TARGET's tick (/proc/timer_list),
 *            so none shares an interrupt with the tick at HZ 100, 250 or 1000.
 *            The window of expiry T is [T, T + BURST_US] (the lab: 50 us; the
 *            callback cannot run before T); written at exit for the expiries
 *            that passed. One descriptor per expiry: as many as RLIMIT_NOFILE
 *            allows (the schedule ends early otherwise, and says so). Cause:
 *            timer:timerfd_tmrproc on TARGET.
 *   probe    a one-thread probe of the lab's own, for `tailcause record -- CMD`
 *            and `report --samples`: on CPU, -N COUNT iterations of a short
 *            fixed loop, each timed and written after the run to -s CSV
 *            (start_ns,end_ns,cpu,tid); with -p PERIOD_US > 0, every PERIOD_US
 *            one iteration also touches -b PAGES fresh anonymous pages, logged
 *            as a window. Cause: page-fault. It leaves the other CPU of a
 *            2-CPU host to the ipi and udp senders. With -H BURN_US, SIGUSR1
 *            runs a handler that burns BURN_US, each run logged as a window
 *            (its own entry to exit). Cause: signal:SIGUSR1. -P PIDFILE: its pid
 *            is written there once the handler is set, for `signal`.
 *   signal   from CPU, every PERIOD_US send SIGUSR1 to the lab probe whose pid
 *            is in -P PIDFILE (a new probe each round: the file is read again
 *            when the last one is gone). Only a process called lab-probe is
 *            signalled, through a pidfd opened before its name was checked: a
 *            reused pid never is. Logs nothing: the probe logs the handler runs.
 *
 * -f PRIO runs any mode at SCHED_FIFO PRIO.
 *
 * The windows are exactly the injection (the spin, the burst of reads or
 * sends, the write); the time the injector itself needs to wake up is not in
 * them. Ground-truth cause names are the lab's expectations, not tailcause's.
 *
 * This file reads the options and runs the mode: inject_periodic.c has the
 * periodic modes, inject_probe.c the probe and the signal sender,
 * inject_hrtimer.c the timers.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "inject.h"

volatile sig_atomic_t inject_stop;

static void on_signal(int sig)
{
	(void)sig;
	inject_stop = 1;
}

void sleep_until(uint64_t t)
{
	struct timespec ts = {(time_t)(t / 1000000000ull), (long)(t % 1000000000ull)};

	while (!inject_stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: tc-lab-inject hog|ipi|disk|udp|compact|workq|hrtimer|probe|signal [-o LOG] "
		"[-t SECONDS] [-p PERIOD_US] [-b BURST_US] [-c CPU] [-T TARGET_CPU] "
		"[-n COMM] [-f PRIO] [-F FILE] [-N COUNT -s CSV] [-H BURN_US] [-P PIDFILE]\n");
	exit(1);
}

static void parse(int argc, char **argv, struct inject_opts *o, const char **log_path)
{
	int opt;

	while ((opt = getopt(argc, argv, "o:t:p:b:c:T:n:f:N:s:F:H:P:")) != -1) {
		switch (opt) {
		case 'o':
			*log_path = optarg;
			break;
		case 't':
			o->seconds = atof(optarg);
			break;
		case 'p':
			o->period_us = atol(optarg);
			break;
		case 'b':
			o->burst_us = atol(optarg);
			break;
		case 'c':
			o->cpu = atoi(optarg);
			break;
		case 'T':
			o->target = atoi(optarg);
			break;
		case 'n':
			o->comm = optarg;
			break;
		case 'f':
			o->fifo = atoi(optarg);
			break;
		case 'N':
			o->count = atol(optarg);
			break;
		case 's':
			o->csv = optarg;
			break;
		case 'F':
			o->file = optarg;
			break;
		case 'H':
			o->burn_ns = (uint64_t)atol(optarg) * 1000;
			break;
		case 'P':
			o->pidfile = optarg;
			break;
		default:
			usage();
		}
	}
}

int main(int argc, char **argv)
{
	struct inject_opts o = {.seconds = 10,
				.period_us = 50000,
				.burst_us = 2000,
				.cpu = -1,
				.target = -1,
				.comm = "lab-hog",
				.count = 1000000,
				.log = stdout};
	const char *log_path = NULL;
	int rc;

	if (argc < 2)
		usage();
	o.mode = argv[1];
	optind = 2;
	parse(argc, argv, &o, &log_path);
	if (log_path && !(o.log = fopen(log_path, "w"))) {
		perror("tc-lab-inject: log");
		return 2;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	pin(o.cpu);
	if (!strcmp(o.mode, "hrtimer")) {
		prctl(PR_SET_NAME, "lab-hrtimer", 0, 0, 0);
		return run_hrtimer(&o);
	}
	if (!strcmp(o.mode, "probe")) {
		prctl(PR_SET_NAME, "lab-probe", 0, 0, 0);
		return run_probe(&o);
	}
	if (!strcmp(o.mode, "signal")) {
		prctl(PR_SET_NAME, "lab-signal", 0, 0, 0);
		return run_signal(&o);
	}
	rc = run_periodic(&o);
	if (rc < 0)
		usage(); /* no such mode */
	return rc;
}
