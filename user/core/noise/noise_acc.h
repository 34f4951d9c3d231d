/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * noise_acc.h - private to core/noise: the accumulators noise.c fills while it
 * walks the trace (noise_acc.c), and noise_build.c turns into a struct tc_noise.
 */
#ifndef TAILCAUSE_CORE_NOISE_ACC_H
#define TAILCAUSE_CORE_NOISE_ACC_H

#include <stdint.h>

#include "noise.h"
#include "core/util/u64map.h"

/* One (thread, interval). */
struct noise_racc {
	size_t thread;
	uint64_t bin;
	uint64_t run_ns;
	uint64_t faults;
	uint64_t migrations;
	uint32_t cpus[TC_NOISE_ROW_CPUS];
	uint32_t n_cpus;
};

/* One (row, cause). */
struct noise_pacc {
	size_t row; /* index into noise_acc.rows */
	uint32_t cause;
	uint64_t ns;
	uint64_t count;
};

/*
 * The last row and part a thread touched: its events mostly land in the same
 * interval and cause as its previous one, so the hash maps are asked only
 * when that changes.
 */
struct noise_tcache {
	uint64_t bin; /* UINT64_MAX: none yet */
	size_t row;
	size_t part_row; /* SIZE_MAX: none yet */
	size_t part;
	uint32_t part_cause;
};

/* A signal handler of one of the threads (TC_EV_SIGNAL), while it ran. */
struct noise_handler {
	uint64_t start, end; /* end == start: its end was not traced */
	uint32_t thread;
	uint32_t cause;
};

/* The causes with a fixed name, looked up once. */
enum noise_fixed { NOISE_FIXED_FAULT, NOISE_FIXED_BLOCKED, NOISE_FIXED_IDLE, NOISE_FIXED_N };

struct noise_acc {
	const struct tc_trace *t;
	const char *pattern;
	uint64_t t0, t1, iv;
	uint64_t n_bins;

	uint32_t *tids; /* the threads, sorted */
	size_t n_tids;
	struct noise_tcache *tcache;   /* by thread */
	uint32_t fixed[NOISE_FIXED_N]; /* cause index + 1, 0 until first used */

	struct u64map rowmap;	 /* thread << 40 | bin -> rows[] */
	struct u64map partmap;	 /* row << 24 | cause -> parts[] */
	struct u64map causemap;	 /* hash of group and name -> causes[] */
	struct u64map namecache; /* kind << 32 | arg of CPU-wide kinds -> causes[] */
	struct u64map fncache;	 /* a timer callback's function -> causes[] (its parent's) */

	struct noise_handler *handlers; /* by thread, then start */
	size_t n_handlers, cap_handlers;

	struct noise_racc *rows;
	size_t n_rows, cap_rows;
	struct noise_pacc *parts;
	size_t n_parts, cap_parts;
	struct tc_noise_cause *causes; /* ns and count filled by the build */
	size_t n_causes, cap_causes;
};

#define NOISE_MAX_THREADS (1u << 24)
#define NOISE_MAX_CAUSES  (1u << 24)
#define NOISE_MAX_BINS	  (1ull << 40)

/* A stretch of time a thread is known to have run on a CPU. */
struct stretch {
	uint64_t start;
	uint64_t end;
	uint32_t thread; /* below NOISE_MAX_THREADS: 24 bytes, not 32, on arrays of millions */
	uint32_t cpu;
};

/* The index of tid in acc->tids, or SIZE_MAX when it is not one of the threads. */
static inline size_t noise_thread_of(const struct noise_acc *acc, uint32_t tid)
{
	size_t lo = 0, hi = acc->n_tids;

	while (tid && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (acc->tids[mid] == tid)
			return mid;
		if (acc->tids[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

/*
 * Pass 1 of noise.c (noise_stretch.c): the stretches the threads ran, sorted
 * by CPU and start and clipped to be disjoint, in a new array; 0 or -ENOMEM.
 */
int noise_stretch_build(struct noise_acc *acc, struct stretch **out, size_t *n_out);

/* noise_acc.c: the cause (group g, class cls, a fixed name), remembered in acc->fixed[f]
 * after the first time; 0 or -ENOMEM/-E2BIG. */
int noise_acc_fixed_cause(struct noise_acc *acc, enum noise_fixed f, enum tc_noise_group g,
			  enum tc_cause_class cls, const char *name, uint32_t *out);
/* noise_acc.c: thread ran [s, e) on cpu, split at interval boundaries; 0 or -ENOMEM. */
int noise_acc_add_run(struct noise_acc *acc, size_t thread, uint32_t cpu, uint64_t s, uint64_t e);
/* noise_acc.c: counts an instant of a thread, a page fault or a migration; 0 or -ENOMEM. */
int noise_acc_add_instant(struct noise_acc *acc, size_t thread, const struct tc_event *e);
/* noise_acc.c: adds (sub == 0) or takes away the time [s, e) of thread's cause, split at
 * interval boundaries; count goes to the first interval. 0 or -ENOMEM. */
int noise_add_span(struct noise_acc *acc, size_t thread, uint32_t cause, uint64_t s, uint64_t e,
		   uint64_t count, int sub);
/* noise_acc.c: e's cause in group g, named with the callback func that ran inside it (0: none);
 * 0, -ENOMEM or -E2BIG. */
int noise_name_event(struct noise_acc *acc, enum tc_noise_group g, const struct tc_event *e,
		     uint64_t func, uint32_t *cause);

/*
 * noise_context.c: the function of the callbacks of kind (TC_EV_WORK, TC_EV_TIMER_FN)
 * on cpu that start inside [s, end) with the most time there, among the events after
 * t->events[i] (the first CONTEXT_LOOKAHEAD that start inside), or 0.
 */
uint64_t noise_busiest_callback(const struct tc_trace *t, size_t i, uint32_t cpu, uint64_t s,
				uint64_t end, uint16_t kind);
/* noise_context.c: a preemption's cause, a kworker's by the work that ran in [s, end). */
int noise_name_preemption(struct noise_acc *acc, size_t i, const struct tc_event *e, uint64_t s,
			  uint64_t end, uint32_t *cause);
/* noise_acc.c: an interval counted on its CPU for the thread running there (IRQs, IPIs...). */
int noise_is_cpu_wide(const struct tc_event *e);
/*
 * noise_context.c: a wake-up interrupt t->events[i] while stretch x's thread ran, and the
 * thread's preemption it brought in: *cause set to that preemption's, else left. 0 or
 * -ENOMEM/-E2BIG.
 */
int noise_joined_cause(struct noise_acc *acc, size_t i, const struct stretch *x, uint32_t *cause);
/* noise_context.c: the threads' signal handlers, credited whole (before the passes). */
int noise_handler_pass(struct noise_acc *acc);
/* noise_context.c: [lo, hi) of thread th counted elsewhere (off CPU, an IRQ) is taken
 * from the handler it fell in. 0 or -ENOMEM. */
int noise_handler_exclude(struct noise_acc *acc, size_t th, uint64_t lo, uint64_t hi);

/* Turns the accumulators into *out; 0 or -ENOMEM. Leaves acc to be freed by the caller. */
int noise_acc_build(struct noise_acc *acc, struct tc_noise **out);

#endif /* TAILCAUSE_CORE_NOISE_ACC_H */
