// SPDX-License-Identifier: BSD-2-Clause
/*
 * inject_probe.c - the lab's one-thread probe (mode probe: timed iterations,
 * fresh-page touches, a SIGUSR1 handler that burns a while) and the sender of
 * those signals (mode signal); inject.c says what each logs.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "inject.h"

#define MAX_WIN 100000

/* probe -H: SIGUSR1's handler burns this long and keeps its [entry, exit]. */
static uint64_t burn_ns;
static uint64_t sig_win[2 * MAX_WIN];
static volatile long n_sig_win;

static void on_usr1(int sig)
{
	uint64_t t0 = now_ns(), t;
	long i = n_sig_win;

	(void)sig;
	do
		t = now_ns();
	while (t - t0 < burn_ns);
	if (i < 2 * MAX_WIN) {
		sig_win[i] = t0;
		sig_win[i + 1] = t;
		n_sig_win = i + 2;
	}
}

/* probe -H, -P: the handler, then the pid where `signal` looks for it. */
static int probe_signals(const char *pidfile)
{
	struct sigaction sa = {.sa_handler = on_usr1};
	FILE *f;

	memset(sig_win, 0xff, sizeof(sig_win)); /* no page fault in the handler */
	sigemptyset(&sa.sa_mask);
	if (burn_ns && sigaction(SIGUSR1, &sa, NULL)) {
		perror("tc-lab-inject: sigaction");
		return 2;
	}
	if (!pidfile)
		return 0;
	if (!(f = fopen(pidfile, "w")) || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
		perror("tc-lab-inject: pidfile");
		return 2;
	}
	return 0;
}

/* The samples, then the windows of the faults and of the handler's runs. */
static int write_results(const struct inject_opts *o, const uint64_t *t, const uint64_t *win,
			 long nw)
{
	long tid = (long)gettid();
	FILE *out = fopen(o->csv, "w");

	if (!out)
		return 2;
	fprintf(out, "start_ns,end_ns,cpu,tid\n");
	for (long i = 0; i < o->count; i++)
		fprintf(out, "%llu,%llu,%d,%ld\n", (unsigned long long)t[2 * i],
			(unsigned long long)t[2 * i + 1], o->cpu, tid);
	fclose(out);
	for (long i = 0; i < nw; i += 2)
		fprintf(o->log, "%llu %llu %d page-fault\n", (unsigned long long)win[i],
			(unsigned long long)win[i + 1], o->cpu);
	for (long i = 0; i < n_sig_win; i += 2)
		fprintf(o->log, "%llu %llu %d signal:SIGUSR1\n", (unsigned long long)sig_win[i],
			(unsigned long long)sig_win[i + 1], o->cpu);
	fclose(o->log);
	return 0;
}

int run_probe(const struct inject_opts *o)
{
	uint64_t *t = malloc(sizeof(*t) * 2 * (size_t)o->count), next;
	volatile unsigned long x = 0;
	long nw = 0, pages = o->burst_us; /* -b: pages per touch */
	static uint64_t win[2 * MAX_WIN]; /* fault windows: logged after the run */

	if (!t || !o->csv) {
		fprintf(stderr, "tc-lab-inject: probe needs -s CSV (and memory)\n");
		return 1;
	}
	/* No faults of our own in the loop. Not zero: malloc + memset(0) may become a
	 * calloc that leaves fresh pages untouched. */
	memset(t, 0xff, sizeof(*t) * 2 * (size_t)o->count);
	burn_ns = o->burn_ns;
	if (probe_signals(o->pidfile))
		return 2;
	next = now_ns() + (uint64_t)o->period_us * 1000;
	for (long i = 0; i < o->count; i++) {
		uint64_t t0 = now_ns();

		for (int k = 0; k < 100; k++)
			x++;
		if (o->period_us > 0 && t0 >= next) {
			size_t len = (size_t)pages * 4096;
			char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			uint64_t f0 = now_ns();

			if (p == MAP_FAILED)
				return 4;
			for (size_t off = 0; off < len; off += 4096)
				p[off] = 1;
			if (nw < 2 * MAX_WIN) {
				win[nw++] = f0;
				win[nw++] = now_ns();
			}
			munmap(p, len);
			next = now_ns() + (uint64_t)o->period_us * 1000;
		}
		t[2 * i] = t0;
		t[2 * i + 1] = now_ns();
	}
	if (burn_ns)
		signal(SIGUSR1, SIG_IGN); /* one still in flight must not kill the probe */
	if (o->pidfile)
		unlink(o->pidfile);
	return write_results(o, t, win, nw);
}

/* signal: SIGUSR1 to the current lab probe every period, until SECONDS or SIGTERM. */
int run_signal(const struct inject_opts *o)
{
	uint64_t end = now_ns() + (uint64_t)(o->seconds * 1e9), next = now_ns();
	int fd = -1;

	if (!o->pidfile) {
		fprintf(stderr, "tc-lab-inject: signal needs -P PIDFILE\n");
		return 1;
	}
	while (!inject_stop && next < end) {
		next += (uint64_t)o->period_us * 1000;
		sleep_until(next);
		if (fd < 0)
			fd = tool_open_pidfd(o->pidfile, "lab-probe");
		if (fd >= 0 && syscall(SYS_pidfd_send_signal, fd, SIGUSR1, NULL, 0)) {
			close(fd); /* that probe is gone: the next one's pid comes */
			fd = -1;
		}
	}
	fclose(o->log);
	return 0;
}
