// SPDX-License-Identifier: BSD-2-Clause
/*
 * bench.c - a stand-in for a user's own benchmark, for the system tests:
 *   tc-bench FILE SECONDS [WORK_US]
 * times iterations of WORK_US (default 20) microseconds of busy work for
 * SECONDS, keeping start and end (CLOCK_MONOTONIC), CPU and thread id in
 * memory, and writes them at the end to FILE as the CSV that
 * `tailcause report --samples` reads (docs/samples-csv.md).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct row {
	uint64_t start, end;
	int cpu;
};

int main(int argc, char **argv)
{
	uint64_t work, stop;
	size_t n = 0, cap = 1 << 20;
	struct row *rows;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: tc-bench FILE SECONDS [WORK_US]\n");
		return 1;
	}
	work = (argc > 3 ? strtoull(argv[3], NULL, 10) : 20) * 1000;
	rows = calloc(cap, sizeof(*rows));
	if (!rows)
		return 1;
	stop = now_ns() + strtoull(argv[2], NULL, 10) * 1000000000ull;
	while (n < cap) {
		uint64_t t0 = now_ns(), t1;

		do
			t1 = now_ns();
		while (t1 - t0 < work);
		rows[n++] = (struct row){t0, t1, sched_getcpu()};
		if (t1 >= stop)
			break;
	}
	f = fopen(argv[1], "w");
	if (!f)
		return 1;
	fprintf(f, "# tc-bench: %zu iterations of %llu ns of work\nstart_ns,end_ns,cpu,tid\n", n,
		(unsigned long long)work);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%llu,%llu,%d,%d\n", (unsigned long long)rows[i].start,
			(unsigned long long)rows[i].end, rows[i].cpu, (int)gettid());
	return fclose(f) ? 1 : 0;
}
