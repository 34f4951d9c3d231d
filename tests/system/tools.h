/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tools.h - what the programs that cause host events on purpose share: the system
 * tests' tc-* tools (tests/system/) and the attribution lab's injector
 * (bench/lab/). Header-only: each is one small program.
 */
#ifndef TAILCAUSE_TESTS_SYSTEM_TOOLS_H
#define TAILCAUSE_TESTS_SYSTEM_TOOLS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/* CLOCK_MONOTONIC in ns: the clock of the tracers and of the probe's samples. */
static inline uint64_t tool_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Pins the calling thread to cpu (none when cpu < 0); exits 2 saying so when it cannot. */
static inline void tool_pin(const char *prog, int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "%s: sched_setaffinity: cpu %d: ", prog, cpu);
		perror(NULL);
		exit(2);
	}
}

/* The next expiry of cpu's tick from /proc/timer_list, or 0 when it does not say. */
static inline uint64_t tool_next_tick(int cpu)
{
	FILE *f = fopen("/proc/timer_list", "re");
	char line[256], want[32];
	unsigned long long at = 0;
	int in_cpu = 0, tick = 0;

	if (!f)
		return 0;
	snprintf(want, sizeof(want), "cpu: %d\n", cpu);
	while (!at && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "cpu: ", 5))
			in_cpu = !strcmp(line, want);
		else if (in_cpu && strstr(line, ", tick_"))
			tick = 1; /* tick_nohz_handler, tick_sched_timer */
		else if (tick && sscanf(line, " # expires at %llu-", &at) != 1)
			tick = 0;
	}
	fclose(f);
	return at;
}

/*
 * The first of a train of timer deadlines on cpu (call it pinned there): 300 ms from now,
 * half a millisecond past one of the CPU's ticks, so no expiry meets a tick.
 */
static inline uint64_t tool_first_deadline(int cpu)
{
	uint64_t first = tool_now_ns() + 300000000ull, tick = tool_next_tick(cpu);

	if (tick > first)
		tick = 0; /* unknown: the kernel aligns the tick to its period (no skew_tick) */
	return tick + ((first - tick) / 1000000ull + 1) * 1000000ull + 500000ull;
}

/* A timerfd that expires once, at CLOCK_MONOTONIC time t (ns); -1 with errno set. */
static inline int tool_timerfd_at(uint64_t t)
{
	struct itimerspec its = {
		.it_value = {(time_t)(t / 1000000000ull), (long)(t % 1000000000ull)}};
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);

	if (fd >= 0 && timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * A pidfd for the pid in pidfile if that process's comm starts with comm, else -1.
 * The comm is checked after the pidfd was opened: the pidfd holds the process the
 * comm is of, or one that is gone (a signal through it then fails with ESRCH), so a
 * pid reused by another process is never signalled.
 */
static inline int tool_open_pidfd(const char *pidfile, const char *comm)
{
	char path[64], seen[32] = "";
	FILE *f = fopen(pidfile, "r");
	int pid = 0, fd;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &pid) != 1 || pid <= 0) {
		fclose(f);
		return -1;
	}
	fclose(f);
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f || !fgets(seen, sizeof(seen), f) || strncmp(seen, comm, strlen(comm))) {
		if (f)
			fclose(f);
		close(fd);
		return -1;
	}
	fclose(f);
	return fd;
}

#endif /* TAILCAUSE_TESTS_SYSTEM_TOOLS_H */
