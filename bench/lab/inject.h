/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * inject.h - what the lab injector's modes share (inject.c says what each does):
 * the options, the stop flag, the clock, and one entry point per kind of mode.
 */
#ifndef TAILCAUSE_LAB_INJECT_H
#define TAILCAUSE_LAB_INJECT_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "tools.h"

struct inject_opts {
	const char *mode;
	double seconds;
	long period_us, burst_us;
	int cpu, target; /* -1: not given */
	const char *comm;
	int fifo;	  /* SCHED_FIFO priority, 0: none */
	long count;	  /* probe: iterations */
	const char *csv;  /* probe: the samples */
	const char *file; /* disk: what to read */
	const char *pidfile;
	uint64_t burn_ns; /* probe: SIGUSR1's handler burns this long */
	FILE *log;	  /* the ground truth, one window a line */
};

/* Set by SIGTERM and SIGINT: every mode ends at its next wake-up. */
extern volatile sig_atomic_t inject_stop;

static inline uint64_t now_ns(void)
{
	return tool_now_ns();
}

static inline void pin(int cpu)
{
	tool_pin("tc-lab-inject", cpu);
}

/* Sleeps until t on CLOCK_MONOTONIC, or until stopped. */
void sleep_until(uint64_t t);

/* inject_periodic.c: hog, ipi, disk, udp, compact, workq; 0, or the exit code. */
int run_periodic(const struct inject_opts *o);
/* inject_probe.c: the lab's one-thread probe, and the signal sender that targets it. */
int run_probe(const struct inject_opts *o);
int run_signal(const struct inject_opts *o);
/* inject_hrtimer.c: one-shot timerfds on the target CPU. */
int run_hrtimer(const struct inject_opts *o);

#endif /* TAILCAUSE_LAB_INJECT_H */
