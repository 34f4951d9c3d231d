// SPDX-License-Identifier: BSD-2-Clause
/*
 * sigprobe.c - signals to a timed thread, for the system test test_signals.sh:
 *
 *   tc-sigprobe probe -s CSV [-t SECONDS] [-w WORK_US] [-H BURN_US] [-a PERIOD_US]
 *                     [-P PIDFILE] [-W WINDOWS]
 *       a one-thread timed loop (iterations of WORK_US, default 5, of busy work) for
 *       SECONDS (default 1), written after the run as the CSV `tailcause report
 *       --samples` reads (docs/samples-csv.md); SIGALRM and SIGUSR1 run a handler
 *       that burns BURN_US (default 30) and keeps its [entry, exit] on
 *       CLOCK_MONOTONIC, written to WINDOWS as "t_start_ns t_end_ns cpu signo".
 *       -a arms the interval timer (setitimer ITIMER_REAL: SIGALRM every
 *       PERIOD_US); -P writes the probe's pid to PIDFILE once its handler is set.
 *   tc-sigprobe send -P PIDFILE [-p PERIOD_US] [-t SECONDS]
 *       comm tc-sigsend: waits for PIDFILE, then sends SIGUSR1 to that pid every
 *       PERIOD_US (default 2000) until it is gone or SECONDS (default 30) passed.
 *       It signals the process through a pidfd opened while its comm was
 *       tc-sigprobe, so a pid reused by another process is never signalled.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "tools.h"

#define MAX_WIN 100000

static uint64_t burn_ns = 30000;
static uint64_t win[MAX_WIN][2];
static int win_sig[MAX_WIN];
static volatile size_t n_win;

static void on_signal(int sig)
{
	uint64_t t0 = tool_now_ns(), t;
	size_t i = n_win;

	do
		t = tool_now_ns();
	while (t - t0 < burn_ns);
	if (i < MAX_WIN) {
		win[i][0] = t0;
		win[i][1] = t;
		win_sig[i] = sig;
		n_win = i + 1;
	}
}

struct row {
	uint64_t start, end;
	int cpu;
};

static int run_probe(const char *csv, double seconds, uint64_t work_ns, long alarm_us,
		     const char *pidfile, const char *windows)
{
	size_t n = 0, cap = (size_t)(seconds * 1e9 / (double)work_ns) + 1024;
	struct row *rows = calloc(cap, sizeof(*rows));
	struct sigaction sa = {.sa_handler = on_signal};
	uint64_t stop;
	int tid = (int)gettid();
	FILE *f;

	if (!rows || !csv) {
		fprintf(stderr, "tc-sigprobe: probe needs -s CSV (and memory)\n");
		return 1;
	}
	/* Touch the rows and windows now: no page fault of our own in the timed loop or
	 * the handler. */
	memset(rows, 0xff, cap * sizeof(*rows));
	memset(win, 0xff, sizeof(win));
	memset(win_sig, 0xff, sizeof(win_sig));
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) || sigaction(SIGUSR1, &sa, NULL)) {
		perror("tc-sigprobe: sigaction");
		return 2;
	}
	if (pidfile) {
		FILE *p = fopen(pidfile, "w");

		if (!p || fprintf(p, "%d\n", (int)getpid()) < 0 || fclose(p)) {
			perror("tc-sigprobe: pidfile");
			return 2;
		}
	}
	if (alarm_us > 0) {
		struct itimerval it = {{alarm_us / 1000000, alarm_us % 1000000},
				       {alarm_us / 1000000, alarm_us % 1000000}};

		if (setitimer(ITIMER_REAL, &it, NULL)) {
			perror("tc-sigprobe: setitimer");
			return 2;
		}
	}
	stop = tool_now_ns() + (uint64_t)(seconds * 1e9);
	while (n < cap) {
		uint64_t t0 = tool_now_ns(), t1;

		do
			t1 = tool_now_ns();
		while (t1 - t0 < work_ns);
		rows[n++] = (struct row){t0, t1, sched_getcpu()};
		if (t1 >= stop)
			break;
	}
	if (alarm_us > 0) {
		struct itimerval off = {{0, 0}, {0, 0}};

		setitimer(ITIMER_REAL, &off, NULL);
	}
	signal(SIGUSR1, SIG_IGN); /* a last one in flight must not kill us */
	if (pidfile)
		unlink(pidfile);
	if (!(f = fopen(csv, "w")))
		return 2;
	fprintf(f, "# tc-sigprobe: %zu iterations of %llu ns of work\nstart_ns,end_ns,cpu,tid\n", n,
		(unsigned long long)work_ns);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%llu,%llu,%d,%d\n", (unsigned long long)rows[i].start,
			(unsigned long long)rows[i].end, rows[i].cpu, tid);
	if (fclose(f))
		return 2;
	if (windows) {
		if (!(f = fopen(windows, "w")))
			return 2;
		for (size_t i = 0; i < n_win; i++)
			fprintf(f, "%llu %llu %d %d\n", (unsigned long long)win[i][0],
				(unsigned long long)win[i][1], sched_getcpu(), win_sig[i]);
		if (fclose(f))
			return 2;
	}
	return 0;
}

static int run_sender(const char *pidfile, long period_us, double seconds)
{
	uint64_t end = tool_now_ns() + (uint64_t)(seconds * 1e9);
	struct timespec period = {period_us / 1000000, (period_us % 1000000) * 1000};
	long sent = 0;
	int fd = -1;

	prctl(PR_SET_NAME, "tc-sigsend", 0, 0, 0);
	if (!pidfile)
		return 1;
	while (tool_now_ns() < end) {
		if (fd < 0)
			fd = tool_open_pidfd(pidfile, "tc-sigprobe");
		if (fd >= 0 && syscall(SYS_pidfd_send_signal, fd, SIGUSR1, NULL, 0) == 0) {
			sent++;
		} else if (fd >= 0) {
			if (sent)
				break; /* it was signalled and is gone: done */
			close(fd);
			fd = -1;
		}
		nanosleep(&period, NULL);
	}
	printf("tc-sigsend: %ld signals sent\n", sent);
	return sent ? 0 : 3;
}

static void usage(void)
{
	fprintf(stderr, "usage: tc-sigprobe probe -s CSV [-t SECONDS] [-w WORK_US] [-H BURN_US] "
			"[-a PERIOD_US] [-P PIDFILE] [-W WINDOWS]\n"
			"       tc-sigprobe send -P PIDFILE [-p PERIOD_US] [-t SECONDS]\n");
	exit(1);
}

int main(int argc, char **argv)
{
	const char *csv = NULL, *pidfile = NULL, *windows = NULL;
	double seconds = -1;
	long work_us = 5, alarm_us = 0, period_us = 2000;
	int opt;

	if (argc < 2)
		usage();
	optind = 2;
	while ((opt = getopt(argc, argv, "s:t:w:H:a:P:W:p:")) != -1) {
		switch (opt) {
		case 's':
			csv = optarg;
			break;
		case 't':
			seconds = atof(optarg);
			break;
		case 'w':
			work_us = atol(optarg);
			break;
		case 'H':
			burn_ns = (uint64_t)atol(optarg) * 1000;
			break;
		case 'a':
			alarm_us = atol(optarg);
			break;
		case 'P':
			pidfile = optarg;
			break;
		case 'W':
			windows = optarg;
			break;
		case 'p':
			period_us = atol(optarg);
			break;
		default:
			usage();
		}
	}
	if (!strcmp(argv[1], "probe"))
		return run_probe(csv, seconds > 0 ? seconds : 1, (uint64_t)work_us * 1000, alarm_us,
				 pidfile, windows);
	if (!strcmp(argv[1], "send"))
		return run_sender(pidfile, period_us, seconds > 0 ? seconds : 30);
	usage();
	return 1;
}
