/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pair.h - the thread skeleton every probe shares, private to user/probe: one
 * or two pinned side threads, created and parked by open, released together by
 * each run, joined by close. What a side does in a run is the probe's.
 *
 * A side thread pins itself, runs the probe's init (on its own CPU: a clock
 * calibration), reports its tid, then parks; pair__run() wakes every side for
 * one run and returns when all of them finished it.
 */
#ifndef TAILCAUSE_PROBE_PAIR_H
#define TAILCAUSE_PROBE_PAIR_H

#include <pthread.h>
#include <stdint.h>

struct pair {
	/* set by the probe before pair__start() */
	int sides;  /* 1 or 2 */
	int cpu[2]; /* the CPU each side is pinned to */
	void *arg;  /* the probe's state, passed to the callbacks */
	/* Optional: runs once on the pinned side thread before it parks. */
	void (*init)(void *arg, int side);
	/* Runs one side of one run; returns 0 or -errno (the run's first error wins). */
	int (*run_side)(void *arg, int side);

	/* private */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int generation; /* bumped by run and stop; side threads wake on change */
	int quit;
	int running; /* sides still inside the current run */
	int started;
	int run_err;
	int pin_err[2];
	int made[2];
	uint32_t tid[2];
	pthread_t thr[2];
};

/*
 * Starts p->sides threads, each pinned to p->cpu[side], and waits until every
 * one has run init and parked. 0, or -errno after one "tailcause:" line (the
 * probe's name in what); the caller then calls pair__stop().
 */
int pair__start(struct pair *p, const char *what);
/* One run: every side's run_side, concurrently. Returns the first side's error, or 0. */
int pair__run(struct pair *p);
/* The tid of side (valid once pair__start() returned 0). */
uint32_t pair__tid(const struct pair *p, int side);
/* Wakes the parked sides to quit and joins them; safe on a pair never started. */
void pair__stop(struct pair *p);

#endif /* TAILCAUSE_PROBE_PAIR_H */
