// SPDX-License-Identifier: BSD-2-Clause
/*
 * timers.c - tc-timers ARM_CPU AWAY_CPU PERIOD_US COUNT: hrtimers that fire on
 * ARM_CPU with a known callback (timerfd_tmrproc) and wake nobody, for
 * test_timers.sh.
 *
 * A periodic timerfd re-arms only when it is read, on the reader's CPU
 * (fs/timerfd.c: timerfd_read forwards and restarts the hrtimer; its callback
 * returns HRTIMER_NORESTART): one that is never read fires once. So this arms
 * COUNT one-shot timerfds at absolute CLOCK_MONOTONIC times, PERIOD_US apart,
 * from a thread on ARM_CPU (an hrtimer is queued on the CPU that starts it),
 * then moves to AWAY_CPU and never reads them: each fires once, in ARM_CPU's
 * timer interrupt, with no waiter to wake.
 *
 * The schedule starts at least 300 ms from now, a whole number of milliseconds
 * plus 500 us after one of ARM_CPU's ticks (its next expiry from
 * /proc/timer_list; where that is unreadable, after 0: the kernel aligns the
 * tick to its period unless skew_tick is set). At HZ 100, 250 or 1000 and a
 * period of whole milliseconds no expiry then shares an interrupt with the tick. Prints "first_ns
 * period_ns count" on one line once armed, then waits until the last expiry has passed (or
 * SIGTERM).
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "tools.h"

int main(int argc, char **argv)
{
	int arm_cpu, away_cpu;
	long period_us, count;
	uint64_t first, period;
	struct rlimit rl;

	if (argc != 5) {
		fprintf(stderr, "usage: tc-timers ARM_CPU AWAY_CPU PERIOD_US COUNT\n");
		return 1;
	}
	arm_cpu = atoi(argv[1]);
	away_cpu = atoi(argv[2]);
	period_us = atol(argv[3]);
	count = atol(argv[4]);
	if (period_us <= 0 || count <= 0) {
		fprintf(stderr, "tc-timers: PERIOD_US and COUNT must be positive\n");
		return 1;
	}
	period = (uint64_t)period_us * 1000;
	/* One descriptor per expiry: raise the soft limit as far as the hard one allows. */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < (rlim_t)count + 16) {
		rl.rlim_cur = (rlim_t)count + 16 < rl.rlim_max ? (rlim_t)count + 16 : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	tool_pin("tc-timers", arm_cpu);
	first = tool_first_deadline(arm_cpu);
	for (long k = 0; k < count; k++) {
		if (tool_timerfd_at(first + (uint64_t)k * period) < 0) {
			fprintf(stderr, "tc-timers: timerfd %ld of %ld: %s\n", k, count,
				strerror(errno));
			return 2;
		}
	}
	tool_pin("tc-timers", away_cpu);
	printf("%llu %llu %ld\n", (unsigned long long)first, (unsigned long long)period, count);
	fflush(stdout);
	/* Keep the descriptors (closing one cancels its timer) until the last has fired. */
	for (uint64_t end = first + (uint64_t)count * period + 100000000ull; tool_now_ns() < end;)
		usleep(100000);
	return 0;
}
