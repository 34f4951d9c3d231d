/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * noise.h - per-interval host noise of a traced command (`record -- CMD`
 * without samples), in the spirit of osnoise: for each interval (100 ms by
 * default) and each thread of the command, the time the host took from it.
 * Pure: reads a struct tc_trace, writes a struct tc_noise, prints nothing.
 *
 * Where a thread is known to run. The trace has no thread start or exit
 * records, so a thread is known to be on CPU c between two of its anchors: the
 * end of an off-CPU interval (or a page fault, or its own compaction/reclaim)
 * and the start of its next off-CPU interval (or next page fault...), on the
 * CPU of that later anchor (the CPU it left, or faulted on). The time before
 * its first anchor and after its last is not known and not counted.
 *
 * What counts as noise:
 *   offcpu   it was preempted (the whole off-CPU interval, named like a spike
 *            cause: preemption:<comm>, self, migration, thp-compaction...), or
 *            it was blocked and, once woken, waited for the CPU (the part after
 *            the wake-up: named after the task that ran, idle-exit when that
 *            was the idle task);
 *   irq      hard IRQs, softirqs, the local timer, IPIs and NIC driver work on
 *            its CPU while it ran there; an interval nested in another on the
 *            same CPU (an IRQ inside a softirq) is counted once, in the inner. A
 *            wake-up interrupt (a reschedule IPI, a call-function IPI that ran
 *            queued wake-ups, a timer whose callback only wakes a sleeper) after
 *            which the thread was preempted there, with no other interrupt in
 *            between, brought in the preempting task: it counts as that
 *            preemption (offcpu), as in a spike; not where the preempting task is
 *            a traced thread that was runnable all along, or was woken outside
 *            the interrupt (two threads of a pipe on one CPU wake each other);
 *   mm       its own direct compaction and reclaim;
 *   signal   its own signal handlers while they ran (a profiler's SIGPROF, a
 *            runtime's preemption signal, a timer's SIGALRM): the handler's time
 *            less the time it was off CPU and the IRQs inside it, counted there; a
 *            handler whose end was not traced (recorded without --signal-ends) is
 *            counted, not timed.
 * Blocked time before the wake-up is its own doing (a sleep, a read): shown,
 * never counted as noise. Page faults and migrations are counted (the tracer
 * records faults as instants, without a duration).
 */
#ifndef TAILCAUSE_CORE_NOISE_H
#define TAILCAUSE_CORE_NOISE_H

#include <stddef.h>
#include <stdint.h>

#include "core/attrib/analyze.h"
#include "core/attrib/causes.h"
#include "core/trace/trace.h"

#define TC_NOISE_INTERVAL_DEFAULT 100000000ull /* 100 ms */

enum tc_noise_group {
	TC_NOISE_OFFCPU = 0, /* preempted, or runnable after a wake-up while another ran */
	TC_NOISE_IRQ,	  /* hardirq, softirq, timer, IPI, NMI, NIC work on its CPU while it ran */
	TC_NOISE_MM,	  /* its own direct compaction or reclaim */
	TC_NOISE_SIGNAL,  /* its own signal handlers, while they ran */
	TC_NOISE_BLOCKED, /* asleep: not noise */
	TC_NOISE_FAULT, /* its own page faults: counted, timed where the end was seen; not noise */
	TC_NOISE_GROUPS,
};

/* Groups below this one are noise. */
#define TC_NOISE_NOISY TC_NOISE_BLOCKED

struct tc_noise_opts {
	uint64_t interval_ns;	     /* 0: TC_NOISE_INTERVAL_DEFAULT */
	const char *nic_irq_pattern; /* NULL: TC_NIC_IRQ_PATTERN_DEFAULT */
};

struct tc_noise_cause {
	char name[TC_CAUSE_NAME_LEN]; /* "preemption:cc1", "hardirq:eth0", "blocked"... */
	enum tc_cause_class cls;
	enum tc_noise_group group;
	uint64_t ns;	/* over all threads and intervals */
	uint64_t count; /* intervals (or instants) that contributed */
};

/* One cause's part in one row. */
struct tc_noise_part {
	uint32_t cause; /* index into tc_noise.causes */
	uint32_t pad;
	uint64_t ns;
	uint64_t count;
};

#define TC_NOISE_ROW_CPUS 4

/* One thread in one interval (only intervals where something was seen have a row). */
struct tc_noise_row {
	uint64_t start_ns; /* the interval [start_ns, end_ns) */
	uint64_t end_ns;
	size_t thread;	   /* index into tc_noise.threads */
	uint64_t run_ns;   /* time it is known to have run */
	uint64_t noise_ns; /* offcpu + irq + mm + signal */
	uint64_t group_ns[TC_NOISE_GROUPS];
	uint64_t faults;
	uint64_t migrations;
	uint32_t cpus[TC_NOISE_ROW_CPUS]; /* CPUs it ran on, in the order first seen */
	uint32_t n_cpus;		  /* may exceed TC_NOISE_ROW_CPUS */
	uint32_t pad;
	size_t first_part; /* its parts in tc_noise.parts, most time first */
	size_t n_parts;
};

struct tc_noise_thread {
	uint32_t tid;
	uint32_t role; /* TC_THREAD_TARGET for the command's first thread, or 0 */
	/* escaped (causes_comm()); "?" when the trace never names it */
	char comm[TC_COMM_TEXT_LEN];
	uint64_t run_ns;
	uint64_t noise_ns;
	uint64_t group_ns[TC_NOISE_GROUPS];
	uint64_t faults;
	uint64_t migrations;
	size_t first_row; /* its rows, in time order */
	size_t n_rows;
};

struct tc_noise {
	uint64_t interval_ns;
	uint64_t t0; /* start of the first interval: the trace's start */
	uint64_t t1; /* end of the last traced interval */
	size_t n_intervals;

	struct tc_noise_thread *threads; /* by tid */
	size_t n_threads;
	struct tc_noise_row *rows; /* by thread, then time */
	size_t n_rows;
	struct tc_noise_part *parts;
	size_t n_parts;
	struct tc_noise_cause *causes;
	size_t n_causes;

	uint64_t run_ns; /* totals over every thread and interval */
	uint64_t noise_ns;
	uint64_t group_ns[TC_NOISE_GROUPS];
	uint64_t faults;
	uint64_t migrations;
};

/*
 * Computes the noise of the threads in t: the tids of its off-CPU intervals
 * and its TC_THREAD_TARGET threads (never the recorder's own). t's events
 * must be sorted (trace__sort()). Returns 0 and a new result in *out (an
 * empty one when t has no such thread), -EINVAL when the events are not
 * sorted or the interval is 0 after defaults, -E2BIG when the trace is too
 * long for the interval (more than 2^40 intervals), or -ENOMEM.
 */
int noise__run(const struct tc_trace *t, const struct tc_noise_opts *o, struct tc_noise **out);
void noise__free(struct tc_noise *n);

/* Fills idx with the indices of the k noisiest rows, noisiest first; returns how many. */
size_t noise_worst_rows(const struct tc_noise *n, size_t *idx, size_t k);

/* Fills idx (n->n_causes entries) with cause indices by time, most first; returns n_causes. */
size_t noise_causes_by_time(const struct tc_noise *n, size_t *idx);

/* "offcpu", "irq", "mm", "signal", "blocked", "fault". */
const char *noise_group_name(enum tc_noise_group g);

#endif /* TAILCAUSE_CORE_NOISE_H */
