// SPDX-License-Identifier: BSD-2-Clause
/*
 * spin.c - a CPU hog with a chosen name, for the system tests:
 *   tc-spin NAME SECONDS
 * sets its comm to NAME (what sched_switch reports) and burns CPU until
 * SECONDS have passed. Pin it with taskset.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec now, end;
	volatile unsigned long x = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: tc-spin NAME SECONDS\n");
		return 1;
	}
	prctl(PR_SET_NAME, argv[1], 0, 0, 0);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += atol(argv[2]);
	do {
		for (int i = 0; i < 100000; i++)
			x++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec ||
		 (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	return 0;
}
