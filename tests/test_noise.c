// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_noise.c - the per-interval noise report of a traced command, on
 * synthetic traces whose answers are worked out by hand in the comments.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/noise/noise.h"
#include "core/noise/noise_acc.h"

#define US	 1000ull
#define MS	 1000000ull
#define CMD_TID	 100
#define CMD2_TID 101
#define SELF_TID 900
#define CPU	 2

static void add(struct tc_trace *t, uint16_t kind, uint64_t start, uint64_t dur, uint32_t cpu,
		uint32_t tid, uint32_t arg)
{
	struct tc_event e = {
		.start_ns = start, .dur_ns = dur, .cpu = cpu, .tid = tid, .arg = arg, .kind = kind};

	assert_int_equal(trace__add_events(t, &e, 1), 0);
}

static struct tc_event *last(struct tc_trace *t)
{
	return &t->events[t->n_events - 1];
}

static void offcpu(struct tc_trace *t, uint64_t start, uint64_t dur, uint32_t tid, int preempted,
		   uint64_t woken_after, uint32_t other_pid, const char *other)
{
	add(t, TC_EV_OFFCPU, start, dur, CPU, tid, preempted ? 0 : 1);
	last(t)->flags = preempted ? TC_OFFCPU_PREEMPTED : 0;
	last(t)->aux = woken_after;
	last(t)->other_pid = other_pid;
	strncpy(last(t)->other_comm, other, TC_COMM_LEN - 1);
}

static void fault(struct tc_trace *t, uint64_t at, uint32_t tid, const char *comm)
{
	add(t, TC_EV_PAGE_FAULT, at, 0, CPU, tid, 0);
	last(t)->other_pid = tid;
	strncpy(last(t)->other_comm, comm, TC_COMM_LEN - 1);
}

/*
 * One thread "bench" (tid 100) on CPU 2:
 *   0 ms        page fault: it runs                     -> runs [0, 10) on CPU 2
 *   3 ms        hardirq eth0 10 us on CPU 2             -> irq, counted
 *   4 ms        hardirq eth0 10 us on CPU 3             -> another CPU: not counted
 *   10 ms       preempted 5 ms, "hog" ran               -> offcpu preemption:hog 5 ms
 *   12 ms       hardirq, IPI on CPU 2 while it is off   -> not counted (the IPI is no cause)
 *   30 ms       blocked 50 ms, woken at +40 ms, idle    -> runs [15, 30); blocked 40 ms,
 *                                                          idle-exit 10 ms
 *   90 ms       softirq NET_RX 100 us, with a hardirq   -> runs [80, 95): net_rx 80 us,
 *   90.010 ms   eth0 20 us nested in it                    eth0 20 us more
 *   95 ms       page fault
 * and the recorder's own thread preempted (never a thread of the command).
 */
static struct tc_trace *golden(void)
{
	struct tc_trace *t = trace__new();

	assert_non_null(t);
	assert_int_equal(trace__add_thread(t, CMD_TID, TC_THREAD_TARGET, UINT32_MAX), 0);
	assert_int_equal(trace__add_thread(t, SELF_TID, TC_THREAD_SELF, UINT32_MAX), 0);
	assert_int_equal(trace__add_irq_name(t, 30, "eth0"), 0);
	fault(t, 0, CMD_TID, "bench");
	add(t, TC_EV_HARDIRQ, 3 * MS, 10 * US, CPU, 0, 30);
	add(t, TC_EV_HARDIRQ, 4 * MS, 10 * US, 3, 0, 30);
	offcpu(t, 10 * MS, 5 * MS, CMD_TID, 1, 0, 200, "hog");
	add(t, TC_EV_HARDIRQ, 12 * MS, 10 * US, CPU, 0, 30);
	add(t, TC_EV_IPI, 13 * MS, 3 * US, CPU, 0, TC_IPI_RESCHEDULE); /* off too: no cause */
	offcpu(t, 20 * MS, 1 * MS, SELF_TID, 1, 0, 200, "hog");
	offcpu(t, 30 * MS, 50 * MS, CMD_TID, 0, 40 * MS, 0, "swapper/2");
	add(t, TC_EV_SOFTIRQ, 90 * MS, 100 * US, CPU, 0, 3);
	add(t, TC_EV_HARDIRQ, 90 * MS + 10 * US, 20 * US, CPU, 0, 30);
	fault(t, 95 * MS, CMD_TID, "bench");
	trace__sort(t);
	return t;
}

static const struct tc_noise_cause *cause(const struct tc_noise *n, const char *name)
{
	for (size_t i = 0; i < n->n_causes; i++)
		if (!strcmp(n->causes[i].name, name))
			return &n->causes[i];
	fail_msg("no cause %s", name);
	return NULL;
}

static void test_noise_golden_one_interval(void **state)
{
	struct tc_trace *t = golden();
	struct tc_noise_opts o = {0}; /* 100 ms */
	struct tc_noise *n;
	const struct tc_noise_row *r;

	(void)state;
	assert_int_equal(noise__run(t, &o, &n), 0);
	assert_int_equal(n->n_threads, 1); /* the recorder's thread is not the command's */
	assert_int_equal(n->threads[0].tid, CMD_TID);
	assert_int_equal(n->threads[0].role, TC_THREAD_TARGET);
	assert_string_equal(n->threads[0].comm, "bench");
	assert_int_equal(n->n_intervals, 1);
	assert_int_equal(n->n_rows, 1);
	r = &n->rows[0];
	assert_int_equal(r->start_ns, 0);
	assert_int_equal(r->end_ns, 95 * MS); /* the trace ends there */
	assert_int_equal(r->run_ns, 40 * MS); /* 10 + 15 + 15 */
	assert_int_equal(r->group_ns[TC_NOISE_OFFCPU], 15 * MS);
	assert_int_equal(r->group_ns[TC_NOISE_IRQ], 110 * US);
	assert_int_equal(r->group_ns[TC_NOISE_BLOCKED], 40 * MS);
	assert_int_equal(r->noise_ns, 15 * MS + 110 * US);
	assert_int_equal(r->faults, 2);
	assert_int_equal(r->n_cpus, 1);
	assert_int_equal(r->cpus[0], CPU);

	assert_int_equal(cause(n, "preemption:hog")->ns, 5 * MS);
	assert_int_equal(cause(n, "preemption:hog")->group, TC_NOISE_OFFCPU);
	assert_int_equal(cause(n, "idle-exit")->ns, 10 * MS);
	assert_int_equal(cause(n, "hardirq:eth0")->ns, 30 * US); /* 10 + 20; the others missed */
	assert_int_equal(cause(n, "hardirq:eth0")->count, 2);
	assert_int_equal(cause(n, "softirq:net_rx")->ns, 80 * US); /* 100 - the nested 20 */
	assert_int_equal(cause(n, "blocked")->ns, 40 * MS);
	assert_int_equal(cause(n, "page-fault")->count, 2);
	for (size_t i = 0; i < n->n_causes; i++) /* nothing that never happened */
		assert_true(n->causes[i].ns || n->causes[i].count);
	/* parts: most time first */
	assert_string_equal(n->causes[n->parts[r->first_part].cause].name, "blocked");
	assert_int_equal(n->noise_ns, 15 * MS + 110 * US);
	assert_int_equal(n->threads[0].noise_ns, n->noise_ns);
	noise__free(n);
	trace__free(t);
}

static void test_noise_intervals_split_and_rank(void **state)
{
	struct tc_trace *t = golden();
	struct tc_noise_opts o = {.interval_ns = 10 * MS};
	struct tc_noise *n;
	size_t idx[4];

	(void)state;
	assert_int_equal(noise__run(t, &o, &n), 0);
	assert_int_equal(n->n_intervals, 10); /* [0, 95 ms] in 10 ms steps */
	/* worst: [70, 80) idle-exit 10 ms, [10, 20) hog 5 ms, [90, 100) 100 us, [0, 10) 10 us */
	assert_int_equal(noise_worst_rows(n, idx, 4), 4);
	assert_int_equal(n->rows[idx[0]].start_ns, 70 * MS);
	assert_int_equal(n->rows[idx[0]].noise_ns, 10 * MS);
	assert_int_equal(n->rows[idx[1]].start_ns, 10 * MS);
	assert_int_equal(n->rows[idx[1]].noise_ns, 5 * MS);
	assert_int_equal(n->rows[idx[1]].run_ns, 5 * MS); /* [15, 20) */
	assert_int_equal(n->rows[idx[2]].start_ns, 90 * MS);
	assert_int_equal(n->rows[idx[2]].noise_ns, 100 * US);
	assert_int_equal(n->rows[idx[2]].end_ns, 95 * MS);
	assert_int_equal(n->rows[idx[3]].start_ns, 0);
	assert_int_equal(n->rows[idx[3]].noise_ns, 10 * US);
	/* the blocked 40 ms spread over [30, 70): four rows of 10 ms */
	for (size_t i = 0; i < n->n_rows; i++)
		if (n->rows[i].start_ns >= 30 * MS && n->rows[i].start_ns < 70 * MS)
			assert_int_equal(n->rows[i].group_ns[TC_NOISE_BLOCKED], 10 * MS);
	assert_int_equal(cause(n, "blocked")->count, 1);   /* one interval, counted once */
	assert_int_equal(n->noise_ns, 15 * MS + 110 * US); /* same totals as one interval */
	noise__free(n);
	trace__free(t);
}

/* Two threads share CPU 2: an IRQ is credited to the one running at the time. */
static void test_noise_irq_goes_to_the_running_thread(void **state)
{
	struct tc_trace *t = trace__new();
	struct tc_noise *n;

	(void)state;
	fault(t, 0, CMD_TID, "a");
	offcpu(t, 10 * MS, 20 * MS, CMD_TID, 0, 0, CMD2_TID, "b"); /* blocked, never woken */
	fault(t, 12 * MS, CMD2_TID, "b");
	add(t, TC_EV_TIMER, 5 * MS, 7 * US, CPU, 0, 0);		       /* a runs */
	add(t, TC_EV_IPI, 15 * MS, 3 * US, CPU, 0, TC_IPI_RESCHEDULE); /* b runs */
	add(t, TC_EV_NMI, 16 * MS, 2 * US, CPU, 0, 1);		       /* b runs */
	offcpu(t, 20 * MS, 1 * MS, CMD2_TID, 1, 0, 300, "kworker/2:1");
	trace__sort(t);
	assert_int_equal(noise__run(t, NULL, &n), 0);
	assert_int_equal(n->n_threads, 2);
	assert_int_equal(n->threads[0].tid, CMD_TID);
	assert_int_equal(n->threads[0].group_ns[TC_NOISE_IRQ], 7 * US);	     /* timer */
	assert_int_equal(n->threads[0].group_ns[TC_NOISE_BLOCKED], 20 * MS); /* aux 0: all */
	assert_int_equal(n->threads[1].group_ns[TC_NOISE_IRQ], 5 * US);	     /* ipi, nmi */
	assert_int_equal(n->threads[1].group_ns[TC_NOISE_OFFCPU], 1 * MS);
	assert_int_equal(n->threads[1].run_ns, 8 * MS); /* [12, 20) */
	assert_int_equal(cause(n, "timer")->ns, 7 * US);
	assert_int_equal(cause(n, "ipi:reschedule")->ns, 3 * US);
	assert_int_equal(cause(n, "nmi")->ns, 2 * US);
	assert_int_equal(cause(n, "preemption:kworker/2:1")->ns, 1 * MS);
	noise__free(n);
	trace__free(t);
}

/*
 * A reschedule IPI while the thread ran, and then its preemption with nothing between:
 * the IPI brought in the preempting task, its time is that preemption's (a spike's
 * wake-up rule). With another interrupt between, a block after, or a preempting thread
 * known to have been woken after the IPI, it stays the IPI's.
 */
static void test_noise_wakeup_ipi_is_the_preemption(void **state)
{
	struct tc_trace *t = trace__new();
	struct tc_noise *n;

	(void)state;
	fault(t, 0, CMD_TID, "a");
	add(t, TC_EV_IPI, 5 * MS, 3 * US, CPU, 0, TC_IPI_RESCHEDULE);
	offcpu(t, 5 * MS + 4 * US, 1 * MS, CMD_TID, 1, 0, 200, "hog");
	add(t, TC_EV_IPI, 10 * MS, 3 * US, CPU, 0, TC_IPI_RESCHEDULE);
	add(t, TC_EV_HARDIRQ, 10 * MS + 5 * US, 2 * US, CPU, 0, 30);
	offcpu(t, 10 * MS + 9 * US, 1 * MS, CMD_TID, 1, 0, 200, "hog");
	add(t, TC_EV_IPI, 20 * MS, 3 * US, CPU, 0, TC_IPI_RESCHEDULE);
	offcpu(t, 20 * MS + 4 * US, 1 * MS, CMD_TID, 0, 0, 0, "swapper/2");
	fault(t, 30 * MS, CMD_TID, "a");
	/* its partner b, asleep, woken by a itself after the IPI (a pipe): not the IPI's */
	offcpu(t, 39 * MS, 1 * MS + 6 * US, CMD2_TID, 0, 1 * MS + 5 * US, 0, "swapper/2");
	add(t, TC_EV_IPI, 40 * MS, 3 * US, CPU, 0, TC_IPI_RESCHEDULE);
	offcpu(t, 40 * MS + 6 * US, 1 * MS, CMD_TID, 1, 0, CMD2_TID, "b");
	fault(t, 50 * MS, CMD_TID, "a");
	trace__sort(t);
	assert_int_equal(noise__run(t, NULL, &n), 0);
	assert_int_equal(cause(n, "preemption:hog")->ns, 2 * MS + 3 * US);
	assert_int_equal(cause(n, "preemption:b")->ns, 1 * MS);
	assert_int_equal(cause(n, "ipi:reschedule")->ns, 9 * US);
	assert_int_equal(n->threads[0].group_ns[TC_NOISE_OFFCPU], 3 * MS + 3 * US);
	assert_int_equal(n->threads[0].group_ns[TC_NOISE_IRQ], 11 * US);
	noise__free(n);
	trace__free(t);
}

/* Its own direct compaction is an mm stall; kcompactd running instead is off-CPU. */
static void test_noise_compaction_stall_and_kcompactd(void **state)
{
	struct tc_trace *t = trace__new();
	struct tc_noise *n;

	(void)state;
	fault(t, 0, CMD_TID, "a");
	add(t, TC_EV_COMPACTION, 1 * MS, 2 * MS, CPU, CMD_TID, TC_COMPACT_RUN);
	offcpu(t, 5 * MS, 1 * MS, CMD_TID, 1, 0, 40, "kcompactd0");
	add(t, TC_EV_MIGRATE, 5 * MS + 10, 0, 1, CMD_TID, CPU);
	trace__sort(t);
	assert_int_equal(noise__run(t, NULL, &n), 0);
	assert_int_equal(n->group_ns[TC_NOISE_MM], 2 * MS);
	assert_int_equal(n->group_ns[TC_NOISE_OFFCPU], 1 * MS);
	assert_int_equal(n->noise_ns, 3 * MS);
	assert_int_equal(n->migrations, 1);
	assert_int_equal(n->run_ns, 5 * MS);
	noise__free(n);
	trace__free(t);
}

/* A page fault whose end was seen is timed in the fault group, not as noise. */
static void test_noise_timed_page_fault(void **state)
{
	struct tc_trace *t = trace__new();
	struct tc_noise *n;

	(void)state;
	fault(t, 0, CMD_TID, "a");
	fault(t, 1 * MS, CMD_TID, "a");
	last(t)->dur_ns = 30 * US;
	offcpu(t, 5 * MS, 1 * MS, CMD_TID, 1, 0, 40, "hog");
	trace__sort(t);
	assert_int_equal(noise__run(t, NULL, &n), 0);
	assert_int_equal(n->faults, 2);
	assert_int_equal(n->group_ns[TC_NOISE_FAULT], 30 * US);
	assert_int_equal(cause(n, "page-fault")->ns, 30 * US);
	assert_int_equal(cause(n, "page-fault")->count, 2);
	assert_int_equal(n->noise_ns, 1 * MS);
	noise__free(n);
	trace__free(t);
}

/* The command's thread "bench" (tid 100), seen running on CPU 2 from a page fault at 0. */
static struct tc_trace *bench_trace(void)
{
	struct tc_trace *t = trace__new();

	assert_non_null(t);
	assert_int_equal(trace__add_thread(t, CMD_TID, TC_THREAD_TARGET, UINT32_MAX), 0);
	fault(t, 0, CMD_TID, "bench");
	return t;
}

#define FN_VMSTAT 0xffffffff81200010ull
#define FN_TICK	  0xffffffff81300020ull
#define FN_POLL	  0xffffffffc0400030ull

static void callback(struct tc_trace *t, uint16_t kind, uint64_t start, uint64_t dur, uint64_t func)
{
	add(t, kind, start, dur, CPU, kind == TC_EV_WORK ? 300 : 0,
	    kind == TC_EV_WORK ? 0 : TC_TIMER_HRTIMER);
	last(t)->func = func;
	if (kind == TC_EV_WORK)
		strncpy(last(t)->other_comm, "kworker/2:1", TC_COMM_LEN - 1);
}

/*
 * Callbacks name what ran them, as in a spike (bench, tid 100, on CPU 2):
 *   0 ms     page fault: it runs
 *   10 ms    preempted 2 ms by kworker/2:1, which ran vmstat_update 1.5 ms -> workqueue:
 *            vmstat_update 2 ms
 *   20 ms    preempted 1 ms by kworker/2:1, no work item seen  -> preemption:kworker/2:1
 *   30 ms    local timer 8 us, tick_sched_timer 5 us inside    -> timer:tick 8 us
 *   40 ms    local timer 9 us, my_poll 6 us and tick 1 us      -> timer:my_poll 9 us
 *   50 ms    local timer 7 us, no callback                     -> timer 7 us
 *   60 ms    TIMER softirq 20 us, my_poll 10 us inside         -> timer:my_poll, 20 us more
 *   61 ms    a callback on another CPU inside nothing of CPU 2 -> no effect
 *   70 ms    page fault
 */
static void test_noise_callbacks_name_kworkers_and_timers(void **state)
{
	struct tc_trace *t = bench_trace();
	struct tc_noise_opts o = {0};
	struct tc_noise *n;

	(void)state;
	assert_int_equal(trace__set_meta(t, "ksym.ffffffff81200010", "vmstat_update"), 0);
	assert_int_equal(trace__set_meta(t, "ksym.ffffffff81300020", "tick_sched_timer"), 0);
	assert_int_equal(trace__set_meta(t, "ksym.ffffffffc0400030", "my_poll"), 0);
	offcpu(t, 10 * MS, 2 * MS, CMD_TID, 1, 0, 300, "kworker/2:1");
	callback(t, TC_EV_WORK, 10 * MS + 100 * US, 1500 * US, FN_VMSTAT);
	offcpu(t, 20 * MS, 1 * MS, CMD_TID, 1, 0, 300, "kworker/2:1");
	add(t, TC_EV_TIMER, 30 * MS, 8 * US, CPU, 0, 0);
	callback(t, TC_EV_TIMER_FN, 30 * MS + 2 * US, 5 * US, FN_TICK);
	add(t, TC_EV_TIMER, 40 * MS, 9 * US, CPU, 0, 0);
	callback(t, TC_EV_TIMER_FN, 40 * MS + 1 * US, 1 * US, FN_TICK);
	callback(t, TC_EV_TIMER_FN, 40 * MS + 2 * US, 6 * US, FN_POLL);
	add(t, TC_EV_TIMER, 50 * MS, 7 * US, CPU, 0, 0);
	add(t, TC_EV_SOFTIRQ, 60 * MS, 20 * US, CPU, 0, 1 /* TIMER */);
	callback(t, TC_EV_TIMER_FN, 60 * MS + 5 * US, 10 * US, FN_POLL);
	add(t, TC_EV_TIMER_FN, 61 * MS, 3 * US, 3, 0, TC_TIMER_HRTIMER);
	last(t)->func = FN_VMSTAT;
	fault(t, 70 * MS, CMD_TID, "bench");
	trace__sort(t);
	assert_int_equal(noise__run(t, &o, &n), 0);
	assert_int_equal(cause(n, "workqueue:vmstat_update")->ns, 2 * MS);
	assert_int_equal(cause(n, "workqueue:vmstat_update")->count, 1);
	assert_int_equal(cause(n, "preemption:kworker/2:1")->ns, 1 * MS);
	assert_int_equal(cause(n, "timer:tick")->ns, 8 * US);
	assert_int_equal(cause(n, "timer:my_poll")->ns, 29 * US);
	assert_int_equal(cause(n, "timer:my_poll")->count, 2);
	assert_int_equal(cause(n, "timer")->ns, 7 * US);
	assert_int_equal(n->threads[0].group_ns[TC_NOISE_IRQ], 44 * US);
	noise__free(n);
	trace__free(t);
}

static void sig_event(struct tc_trace *t, uint64_t start, uint64_t dur, uint32_t signo,
		      uint16_t flags)
{
	add(t, TC_EV_SIGNAL, start, dur, CPU, CMD_TID, signo);
	last(t)->flags = flags;
}

/*
 * Signal handlers are the thread's noise while they ran (bench, tid 100, on CPU 2):
 *   0 ms       page fault: it runs
 *   10 ms      SIGPROF handler 100 us                          -> signal:SIGPROF
 *   10.020 ms  hardirq eth0 10 us inside it                    -> irq 10 us, not the handler's
 *   10.050 ms  preempted 30 us by hog inside it                -> preemption:hog 30 us, not the
 *                                                                 handler's: SIGPROF 60 us
 *   20 ms      SIGUSR1 handler 50 us, SIGALRM 20 us nested     -> SIGUSR1 30 us, SIGALRM 20 us
 *   30 ms      SIGURG, its end not traced                      -> counted, no time
 *   35 ms      SIGCHLD, no handler                             -> not counted
 *   40 ms      page fault
 */
static void test_noise_signal_handlers(void **state)
{
	struct tc_trace *t = bench_trace();
	struct tc_noise_opts o = {0};
	struct tc_noise *n;

	(void)state;
	assert_int_equal(trace__add_irq_name(t, 30, "eth0"), 0);
	sig_event(t, 10 * MS, 100 * US, 27, 0);
	add(t, TC_EV_HARDIRQ, 10 * MS + 20 * US, 10 * US, CPU, 0, 30);
	offcpu(t, 10 * MS + 50 * US, 30 * US, CMD_TID, 1, 0, 200, "hog");
	sig_event(t, 20 * MS, 50 * US, 10, 0);
	sig_event(t, 20 * MS + 10 * US, 20 * US, 14, 0);
	sig_event(t, 30 * MS, 0, 23, TC_SIGNAL_END_UNTRACED);
	sig_event(t, 35 * MS, 0, 17, TC_SIGNAL_NO_HANDLER);
	fault(t, 40 * MS, CMD_TID, "bench");
	trace__sort(t);
	assert_int_equal(noise__run(t, &o, &n), 0);
	assert_int_equal(cause(n, "signal:SIGPROF")->ns, 60 * US);
	assert_int_equal(cause(n, "signal:SIGPROF")->group, TC_NOISE_SIGNAL);
	assert_int_equal(cause(n, "hardirq:eth0")->ns, 10 * US);
	assert_int_equal(cause(n, "preemption:hog")->ns, 30 * US);
	assert_int_equal(cause(n, "signal:SIGUSR1")->ns, 30 * US);
	assert_int_equal(cause(n, "signal:SIGALRM")->ns, 20 * US);
	assert_int_equal(cause(n, "signal:SIGURG")->ns, 0);
	assert_int_equal(cause(n, "signal:SIGURG")->count, 1);
	for (size_t i = 0; i < n->n_causes; i++)
		assert_string_not_equal(n->causes[i].name, "signal:SIGCHLD");
	assert_int_equal(n->threads[0].group_ns[TC_NOISE_SIGNAL], 110 * US);
	assert_int_equal(n->threads[0].noise_ns, 150 * US);
	noise__free(n);
	trace__free(t);
}

/* The thread's name and a preempting task's are escaped in the noise report too. */
static void test_noise_escapes_task_names(void **state)
{
	struct tc_trace *t = trace__new();
	struct tc_noise_opts o = {0};
	struct tc_noise *n;

	(void)state;
	assert_non_null(t);
	assert_int_equal(trace__add_thread(t, CMD_TID, TC_THREAD_TARGET, UINT32_MAX), 0);
	fault(t, 0, CMD_TID, "b\x1b[2J");
	offcpu(t, 10 * MS, 5 * MS, CMD_TID, 1, 0, 200, "h\x9bx");
	fault(t, 20 * MS, CMD_TID, "b\x1b[2J");
	trace__sort(t);
	assert_int_equal(noise__run(t, &o, &n), 0);
	assert_string_equal(n->threads[0].comm, "b\\x1b[2J");
	assert_int_equal(cause(n, "preemption:h\\x9bx")->ns, 5 * MS);
	noise__free(n);
	trace__free(t);
}

static void test_noise_empty_trace(void **state)
{
	struct tc_trace *t = trace__new();
	struct tc_noise *n;
	size_t idx[1];

	(void)state;
	assert_int_equal(noise__run(t, NULL, &n), 0);
	assert_int_equal(n->n_threads, 0);
	assert_int_equal(n->n_rows, 0);
	assert_int_equal(n->noise_ns, 0);
	assert_int_equal(noise_worst_rows(n, idx, 1), 0);
	noise__free(n);
	/* events but no thread of a command */
	add(t, TC_EV_HARDIRQ, 5, 5, CPU, 0, 1);
	assert_int_equal(noise__run(t, NULL, &n), 0);
	assert_int_equal(n->n_threads, 0);
	noise__free(n);
	trace__free(t);
}

static void test_noise_unsorted_is_einval(void **state)
{
	struct tc_trace *t = trace__new();
	struct tc_noise *n = NULL;

	(void)state;
	add(t, TC_EV_HARDIRQ, 50, 5, CPU, 0, 1);
	add(t, TC_EV_HARDIRQ, 10, 5, CPU, 0, 1);
	assert_int_equal(noise__run(t, NULL, &n), -EINVAL);
	assert_null(n);
	trace__free(t);
}

/* The stretches as a comparison sort of all of them by (CPU, start) orders them, stably. */
static int cmp_stretch_ref(const void *x, const void *y)
{
	const struct stretch *a = x, *b = y;

	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->thread < b->thread ? -1 : a->thread > b->thread; /* the stable order */
}

/*
 * Three threads whose page faults interleave on three CPUs: the stretches come
 * out sorted by CPU and start, disjoint, and are those a comparison sort
 * followed by the same clipping gives.
 */
static void assert_stretches_as_sorted(const uint32_t cpus[3])
{
	uint32_t tids[3] = {CMD_TID, CMD2_TID, CMD2_TID + 1};
	struct tc_trace *t = trace__new();
	struct noise_acc acc = {.t = t, .tids = tids, .n_tids = 3};
	struct stretch *s, *ref;
	size_t n, m = 0, i;
	uint64_t x = 12345;

	assert_non_null(t);
	for (i = 0; i < 3000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		/* equal starts now and then, a thread sometimes moving CPU */
		add(t, TC_EV_PAGE_FAULT, 10 * US * (i / 3), 0,
		    cpus[(x >> 40) % 5 == 0 ? 2 : (x >> 50) % 2], tids[(x >> 33) % 3], 0);
	}
	assert_int_equal(noise_stretch_build(&acc, &s, &n), 0);
	assert_true(n > 100);
	/* the reference: every stretch from (thread, time)-ordered anchors, compared and clipped */
	ref = malloc(3000 * sizeof(*ref));
	assert_non_null(ref);
	for (size_t th = 0; th < 3; th++) {
		const struct tc_event *p = NULL;

		for (i = 0; i < t->n_events; i++) {
			const struct tc_event *q = &t->events[i];

			if (q->tid != tids[th])
				continue;
			if (p && q->start_ns > p->start_ns)
				ref[m++] = (struct stretch){p->start_ns, q->start_ns, th, q->cpu};
			p = q;
		}
	}
	qsort(ref, m, sizeof(*ref), cmp_stretch_ref);
	for (size_t k = 0, j = 0; k < m; k++) {
		if (j && ref[j - 1].cpu == ref[k].cpu && ref[k].start < ref[j - 1].end)
			ref[k].start = ref[j - 1].end;
		if (ref[k].start < ref[k].end)
			ref[j++] = ref[k];
		if (k + 1 == m)
			m = j;
	}
	assert_int_equal(n, m);
	for (i = 0; i < n; i++) {
		assert_int_equal(s[i].start, ref[i].start);
		assert_int_equal(s[i].end, ref[i].end);
		assert_int_equal(s[i].thread, ref[i].thread);
		assert_int_equal(s[i].cpu, ref[i].cpu);
	}
	for (i = 1; i < n; i++)
		assert_true(s[i - 1].cpu < s[i].cpu ||
			    (s[i - 1].cpu == s[i].cpu && s[i - 1].end <= s[i].start));
	free(ref);
	free(s);
	trace__free(t);
}

static void test_noise_stretches_sorted_without_comparison_sort(void **state)
{
	static const uint32_t counted[] = {1, 0, 3}, compared[] = {1, 0, 70000};

	(void)state;
	assert_stretches_as_sorted(counted);
	assert_stretches_as_sorted(compared); /* a CPU number past the counting array */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_noise_golden_one_interval),
		cmocka_unit_test(test_noise_intervals_split_and_rank),
		cmocka_unit_test(test_noise_irq_goes_to_the_running_thread),
		cmocka_unit_test(test_noise_wakeup_ipi_is_the_preemption),
		cmocka_unit_test(test_noise_compaction_stall_and_kcompactd),
		cmocka_unit_test(test_noise_timed_page_fault),
		cmocka_unit_test(test_noise_callbacks_name_kworkers_and_timers),
		cmocka_unit_test(test_noise_signal_handlers),
		cmocka_unit_test(test_noise_escapes_task_names),
		cmocka_unit_test(test_noise_empty_trace),
		cmocka_unit_test(test_noise_unsorted_is_einval),
		cmocka_unit_test(test_noise_stretches_sorted_without_comparison_sort),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
