// SPDX-License-Identifier: BSD-2-Clause
/*
 * spin.c - a CPU hog with a chosen name, for the system tests:
 *   tc-spin NAME SECONDS [RUN_US SLEEP_US]
 * sets its comm to NAME (what sched_switch reports) and burns CPU until
 * SECONDS have passed; with RUN_US and SLEEP_US (under a second) it burns
 * RUN_US, sleeps SLEEP_US, and again: every wake-up takes the CPU from what runs
 * there. Pin it with taskset.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	volatile unsigned long x = 0;
	uint64_t end, run_ns = 0, sleep_ns = 0;

	if (argc != 3 && argc != 5) {
		fprintf(stderr, "usage: tc-spin NAME SECONDS [RUN_US SLEEP_US]\n");
		return 1;
	}
	prctl(PR_SET_NAME, argv[1], 0, 0, 0);
	end = now_ns() + (uint64_t)atol(argv[2]) * 1000000000ull;
	if (argc == 5) {
		run_ns = (uint64_t)atol(argv[3]) * 1000;
		sleep_ns = (uint64_t)atol(argv[4]) * 1000;
		prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0); /* wake when asked, not 50 us later */
	}
	for (;;) {
		uint64_t t = now_ns(), until = run_ns ? t + run_ns : end;

		if (t >= end)
			return 0;
		while (now_ns() < until)
			for (int i = 0; i < (run_ns ? 100 : 100000); i++)
				x++;
		if (sleep_ns) {
			struct timespec ts = {0, (long)sleep_ns};

			nanosleep(&ts, NULL);
		}
	}
}
