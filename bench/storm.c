// SPDX-License-Identifier: BSD-2-Clause
/*
 * storm.c - a scheduler-event storm for the benchmarks (bench/README.md).
 *
 * Two threads pinned to one CPU hand the CPU to each other as fast as they can:
 *   pipe   (default) ping-pong a byte over two pipes (benchmark 2):
 *          one round trip = 2 context switches, 2 wake-ups
 *   yield  both threads call sched_yield() in a loop: one round trip = each
 *          thread yields once = 2 context switches and no wake-up
 *   fault  one thread reads one byte of each page of a 16 MiB anonymous
 *          region (no THP), which maps the zero page: one round trip = one
 *          user page fault; MADV_DONTNEED unmaps the region every 4096 pages.
 *          Faults cost less than switches, so this is the mode that reaches
 *          the highest event rate (the recorder-throughput benchmark)
 * With -r the first thread paces itself to RATE round trips per second by
 * spinning on the clock (a sleep would add switches of its own).
 *
 * Prints one line of key=value pairs, e.g.
 *   storm mode=pipe cpu=0 round_trips=300000 elapsed_ns=1496000000 ns_per_rt=4986.7 rate=200534
 *         cpu_ns=1490000000 switches=600012 switches_resumed=600009 switches_before=1
 *         tids=4242,4243 counted_ns=1234567890
 * (cpu_ns: user + system time of both threads; switches: their context switches, voluntary
 * and involuntary (getrusage), each one an off-CPU interval of a thread; switches_resumed:
 * those each thread had made when it last counted them while running, so all of them ended
 * with the thread switched back in (the end, when one thread's exit hands the CPU to the
 * other, is not among them); switches_before: how many were before main() ran, from the fork
 * to the exec; tids: the two threads'; counted_ns: when switches was read, CLOCK_MONOTONIC:
 * what the threads do after it, their exit included, is not in it)
 * Runs -n round trips, or until -d seconds passed, whichever comes first.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

enum { MODE_PIPE, MODE_YIELD, MODE_FAULT };

#define FAULT_PAGES 4096
#define PAGE	    4096

struct storm {
	int mode;
	int cpu;
	uint64_t n;	      /* round trips to run (upper bound) */
	uint64_t deadline_ns; /* stop at this CLOCK_MONOTONIC time (0: none) */
	double rate;	      /* round trips per second, 0: as fast as possible */
	int ab[2], ba[2];     /* pipe mode: ping -> pong, pong -> ping */
	atomic_int stop;
	atomic_int ready;
	uint64_t done;	    /* round trips completed by the ping thread */
	long pong_switches; /* the pong thread's, counted as it returns */
	pid_t pong_tid;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000ull + (uint64_t)tv->tv_usec * 1000ull;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void die(const char *what, int err)
{
	fprintf(stderr, "storm: %s: %s\n", what, strerror(err));
	exit(1);
}

/* Round trip i of the paced schedule may not start before start + i / rate. */
static void pace(const struct storm *s, uint64_t start, uint64_t i)
{
	uint64_t due;

	if (s->rate <= 0)
		return;
	due = start + (uint64_t)((double)i * 1e9 / s->rate);
	while (now_ns() < due)
		__builtin_ia32_pause();
}

/* This thread's context switches so far, voluntary and involuntary. */
static long thread_switches(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? 0 : ru.ru_nvcsw + ru.ru_nivcsw;
}

static void pong_loop(struct storm *s)
{
	char c;

	if (s->mode == MODE_FAULT) {
		if (read(s->ab[0], &c, 1) < 0) /* parked until the end */
			die("read pipe", errno);
		return;
	}
	if (s->mode == MODE_YIELD) {
		while (!atomic_load_explicit(&s->stop, memory_order_relaxed))
			sched_yield();
		return;
	}
	for (;;) {
		if (read(s->ab[0], &c, 1) != 1 || c == 'q')
			return;
		if (write(s->ba[1], &c, 1) != 1)
			die("write pipe", errno);
	}
}

static void *pong_main(void *arg)
{
	struct storm *s = arg;
	int err = pin(s->cpu);

	if (err)
		die("pin pong thread", err);
	s->pong_tid = gettid();
	atomic_fetch_add(&s->ready, 1);
	pong_loop(s);
	s->pong_switches = thread_switches();
	return NULL;
}

static volatile char *fault_region(void)
{
	void *p = mmap(NULL, (size_t)FAULT_PAGES * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap", errno);
	/* One fault per 4 KiB page, not one per 2 MiB huge zero page. */
	madvise(p, (size_t)FAULT_PAGES * PAGE, MADV_NOHUGEPAGE);
	return p;
}

static void ping_loop(struct storm *s)
{
	volatile char *region = s->mode == MODE_FAULT ? fault_region() : NULL;
	uint64_t start = now_ns(), i;
	char c = 'p';

	for (i = 0; i < s->n; i++) {
		pace(s, start, i);
		if ((i & 255) == 0 && s->deadline_ns && now_ns() >= s->deadline_ns)
			break;
		if (s->mode == MODE_FAULT) {
			uint64_t pg = i % FAULT_PAGES;

			if (pg == 0 && i)
				madvise((void *)region, (size_t)FAULT_PAGES * PAGE, MADV_DONTNEED);
			(void)region[pg * PAGE];
			continue;
		}
		if (s->mode == MODE_YIELD) {
			sched_yield();
			continue;
		}
		if (write(s->ab[1], &c, 1) != 1)
			die("write pipe", errno);
		if (read(s->ba[0], &c, 1) != 1)
			die("read pipe", errno);
	}
	s->done = i;
}

static void usage(void)
{
	fprintf(stderr, "usage: storm [-m pipe|yield|fault] [-c CPU] [-n ROUND_TRIPS] [-d SECONDS]"
			" [-r ROUND_TRIPS_PER_S]\n");
	exit(1);
}

int main(int argc, char **argv)
{
	struct storm s = {.mode = MODE_PIPE, .n = 300000};
	struct rusage ru, ru0;
	double secs = 0;
	uint64_t t0, t1, counted;
	long ping_switches;
	pthread_t pong;
	int opt, err;

	if (getrusage(RUSAGE_SELF, &ru0))
		memset(&ru0, 0, sizeof(ru0));
	while ((opt = getopt(argc, argv, "m:c:n:d:r:")) != -1) {
		switch (opt) {
		case 'm':
			if (!strcmp(optarg, "pipe"))
				s.mode = MODE_PIPE;
			else if (!strcmp(optarg, "yield"))
				s.mode = MODE_YIELD;
			else if (!strcmp(optarg, "fault"))
				s.mode = MODE_FAULT;
			else
				usage();
			break;
		case 'c':
			s.cpu = atoi(optarg);
			break;
		case 'n':
			s.n = strtoull(optarg, NULL, 0);
			break;
		case 'd':
			secs = atof(optarg);
			break;
		case 'r':
			s.rate = atof(optarg);
			break;
		default:
			usage();
		}
	}
	if (secs > 0 && s.n == 300000)
		s.n = UINT64_MAX; /* -d alone: bounded by time */
	if (pipe(s.ab) || pipe(s.ba))
		die("pipe", errno);
	err = pin(s.cpu);
	if (err)
		die("pin ping thread", err);
	err = pthread_create(&pong, NULL, pong_main, &s);
	if (err)
		die("start pong thread", err);
	while (!atomic_load(&s.ready))
		sched_yield();
	t0 = now_ns();
	if (secs > 0)
		s.deadline_ns = t0 + (uint64_t)(secs * 1e9);
	ping_loop(&s);
	t1 = now_ns();
	ping_switches = thread_switches();
	atomic_store(&s.stop, 1);
	if (s.mode != MODE_YIELD && write(s.ab[1], "q", 1) != 1)
		die("write pipe", errno);
	pthread_join(pong, NULL);
	if (getrusage(RUSAGE_SELF, &ru))
		memset(&ru, 0, sizeof(ru));
	counted = now_ns();
	printf("storm mode=%s cpu=%d round_trips=%llu elapsed_ns=%llu ns_per_rt=%.1f rate=%.0f"
	       " cpu_ns=%llu switches=%ld switches_resumed=%ld switches_before=%ld tids=%d,%d"
	       " counted_ns=%llu\n",
	       s.mode == MODE_PIPE    ? "pipe"
	       : s.mode == MODE_YIELD ? "yield"
				      : "fault",
	       s.cpu, (unsigned long long)s.done, (unsigned long long)(t1 - t0),
	       s.done ? (double)(t1 - t0) / (double)s.done : 0.0,
	       t1 > t0 ? (double)s.done * 1e9 / (double)(t1 - t0) : 0.0,
	       (unsigned long long)(tv_ns(&ru.ru_utime) + tv_ns(&ru.ru_stime)),
	       ru.ru_nvcsw + ru.ru_nivcsw, ping_switches + s.pong_switches,
	       ru0.ru_nvcsw + ru0.ru_nivcsw, (int)gettid(), (int)s.pong_tid,
	       (unsigned long long)counted);
	return 0;
}
