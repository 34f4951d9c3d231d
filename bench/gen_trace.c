// SPDX-License-Identifier: BSD-2-Clause
/*
 * gen_trace.c - writes a large synthetic .tct trace for the analyzer benchmark.
 *
 * Written by the recorder's own writer (tracefile/trace_file.h) as it writes with
 * --duration (header, meta, threads, EVENTS and SAMPLES blocks of TC_BLOCK_RECORDS
 * as they fill, then counters, RTT_HIST, RTT_SUMMARY, INDEX and END), so `tailcause
 * report` reads it like a recording, and a billion samples take no more memory than ten:
 *   - a verbs-like probe on CPUs 2,3 of a 4-CPU host: round trips of
 *     2.3-2.6 us back to back, timed by tid 4001 on CPU 2 (tid 4002 on CPU 3);
 *   - ~1 % of the round trips are spikes (3-200 us longer), each with the
 *     event(s) that caused it overlapping it: a preemption (named task, with an
 *     IRQ or timer tick nested in it a third of the time), a NIC or virtio
 *     hard IRQ, a softirq, a timer tick, an IPI or a page fault;
 *   - the other events are background noise spread over the run, kinds mixed
 *     as in a real recording of this host (timer ticks ~45 %, IPIs ~20 %,
 *     softirqs ~18 %, off-CPU ~12 %, hard IRQs, page faults, idle, migrations,
 *     compaction and reclaim on the other CPUs), a dozen comms, a few IRQs;
 *   - events sorted by start, as the analyzer expects after trace__sort().
 * Deterministic for a given seed.
 *
 * usage: gen_trace -o FILE -e EVENTS [-s SAMPLES (default = EVENTS)] [-S SEED]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/trace/trace_codec.h"
#include "tracefile/trace_file.h"

#define PROBE_CPU0 2
#define PROBE_CPU1 3
#define TID0	   4001
#define TID1	   4002
#define SELF_TID   4003
#define RTT_BASE   2300
#define RTT_JITTER 300
#define GAP_NS	   60

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static uint64_t range(uint64_t lo, uint64_t hi)
{
	return lo + rnd() % (hi - lo + 1);
}

static const char *const comms[] = {
	"kworker/2:1", "ksoftirqd/2",	  "rcu_preempt", "migration/2",
	"irqbalance",  "systemd-journal", "sshd",	 "python3",
	"kcompactd0",  "kworker/u8:3",	  "containerd",	 "node_exporter",
};
#define N_COMMS (sizeof(comms) / sizeof(comms[0]))

static const struct {
	uint32_t irq;
	const char *name;
} irqs[] = {
	{24, "mlx5_comp0@pci:0000:3b:00.0"},
	{25, "mlx5_comp1@pci:0000:3b:00.0"},
	{26, "mlx5_async0@pci:0000:3b:00.0"},
	{11, "virtio0-input.0"},
	{12, "virtio0-output.0"},
	{4, "ttyS0"},
};
#define N_IRQS (sizeof(irqs) / sizeof(irqs[0]))

struct gen {
	struct trace_writer *w; /* the recorder's writer (tracefile/trace_file.h) */
	struct tc_event *blk;	/* EVENTS block being filled */
	size_t n_blk;
	uint64_t n_events;
	struct tc_event win[64]; /* events starting in the current round trip */
	size_t n_win;
};

static void die(const char *what, int err)
{
	fprintf(stderr, "gen_trace: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static void encode_samples(struct gen *g, const struct tc_sample *s, size_t n)
{
	if (trace_writer__samples(g->w, s, n))
		exit(1); /* the writer said why */
}

static void flush_events(struct gen *g)
{
	if (trace_writer__events(g->w, g->blk, g->n_blk))
		exit(1);
	g->n_events += g->n_blk;
	g->n_blk = 0;
}

static struct tc_event *win_add(struct gen *g, uint16_t kind, uint64_t start, uint64_t dur,
				uint32_t cpu)
{
	struct tc_event *e;

	if (g->n_win == sizeof(g->win) / sizeof(g->win[0]))
		return NULL;
	e = &g->win[g->n_win++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->start_ns = start;
	e->dur_ns = dur;
	e->cpu = cpu;
	return e;
}

static void set_other(struct tc_event *e, uint32_t pid, const char *comm)
{
	e->other_pid = pid;
	snprintf(e->other_comm, sizeof(e->other_comm), "%s", comm);
}

/* A preemption of probe thread tid by a named task. */
static struct tc_event *offcpu(struct gen *g, uint64_t start, uint64_t dur, uint32_t cpu,
			       uint32_t tid)
{
	struct tc_event *e = win_add(g, TC_EV_OFFCPU, start, dur, cpu);
	size_t c = rnd() % N_COMMS;

	if (e) {
		e->tid = tid;
		e->flags = TC_OFFCPU_PREEMPTED;
		set_other(e, 100 + (uint32_t)c * 37, comms[c]);
	}
	return e;
}

/* One event of the background mix, starting at start on a probe CPU. */
static void background(struct gen *g, uint64_t start)
{
	uint32_t cpu = rnd() & 1 ? PROBE_CPU1 : PROBE_CPU0, r = (uint32_t)(rnd() % 1000);
	struct tc_event *e;

	if (r < 450) {
		win_add(g, TC_EV_TIMER, start, range(1500, 8000), cpu);
	} else if (r < 650) {
		e = win_add(g, TC_EV_IPI, start, range(500, 4000), cpu);
		if (e)
			e->arg = (uint32_t)range(TC_IPI_RESCHEDULE, TC_IPI_IRQ_WORK);
	} else if (r < 830) {
		static const uint32_t vec[] = {1, 3, 7, 9}; /* TIMER NET_RX SCHED RCU */

		e = win_add(g, TC_EV_SOFTIRQ, start, range(500, 12000), cpu);
		if (e)
			e->arg = vec[rnd() % 4];
	} else if (r < 950) {
		offcpu(g, start, range(2000, 60000), cpu, cpu == PROBE_CPU0 ? TID0 : TID1);
	} else if (r < 975) {
		e = win_add(g, TC_EV_HARDIRQ, start, range(1000, 20000), cpu);
		if (e)
			e->arg = irqs[rnd() % N_IRQS].irq;
	} else if (r < 987) {
		e = win_add(g, TC_EV_PAGE_FAULT, start, 0, cpu);
		if (e) {
			e->tid = cpu == PROBE_CPU0 ? TID0 : TID1;
			e->arg = 6;
			e->aux = 0x7f0000000000ull + (rnd() & 0xffffff000ull);
		}
	} else if (r < 996) {
		e = win_add(g, TC_EV_IDLE, start, range(1000, 50000), (uint32_t)(rnd() & 1));
		if (e)
			e->arg = 1;
	} else if (r < 998) {
		e = win_add(g, TC_EV_MIGRATE, start, 0, cpu);
		if (e) {
			e->tid = TID1;
			e->arg = PROBE_CPU1;
		}
	} else {
		/* compaction / reclaim by some task on a non-probe CPU */
		int compact = r < 999;

		e = win_add(g, compact ? TC_EV_COMPACTION : TC_EV_RECLAIM, start,
			    range(5000, 50000), (uint32_t)(rnd() & 1));
		if (e) {
			e->tid = 900;
			e->arg = compact ? TC_COMPACT_RUN : 0;
			set_other(e, 900, "python3");
		}
	}
}

/* The cause(s) of a spike of extra ns in the round trip starting at t; returns cause events. */
static size_t spike_causes(struct gen *g, uint64_t t, uint64_t extra)
{
	uint64_t at = t + range(50, RTT_BASE / 2);
	uint32_t r = (uint32_t)(rnd() % 100);
	struct tc_event *e;

	if (r < 40) {
		offcpu(g, at, extra, PROBE_CPU0, TID0);
		if (rnd() % 3 == 0) { /* nested in the preemption: counted once */
			e = win_add(g, TC_EV_TIMER, at + extra / 4, range(1500, 6000), PROBE_CPU0);
			return e ? 2 : 1;
		}
		return 1;
	}
	if (r < 60)
		e = win_add(g, TC_EV_HARDIRQ, at, extra, PROBE_CPU0 + (rnd() & 1));
	else if (r < 75)
		e = win_add(g, TC_EV_SOFTIRQ, at, extra, PROBE_CPU0);
	else if (r < 90)
		e = win_add(g, TC_EV_TIMER, at, extra, PROBE_CPU0 + (rnd() & 1));
	else if (r < 95)
		e = win_add(g, TC_EV_IPI, at, extra, PROBE_CPU0);
	else
		e = win_add(g, TC_EV_PAGE_FAULT, at, 0, PROBE_CPU0);
	if (!e)
		return 0;
	switch (e->kind) {
	case TC_EV_HARDIRQ:
		e->arg = irqs[rnd() % N_IRQS].irq;
		break;
	case TC_EV_SOFTIRQ:
		e->arg = 3;
		break;
	case TC_EV_IPI:
		e->arg = TC_IPI_CALL_FUNCTION_SINGLE;
		break;
	case TC_EV_PAGE_FAULT:
		e->tid = TID0;
		e->arg = 6;
		e->aux = 0x7f0000000000ull + (rnd() & 0xffffff000ull);
		break;
	}
	return 1;
}

static int by_start(const void *a, const void *b)
{
	const struct tc_event *x = a, *y = b;

	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/* Moves the round trip's events, sorted, into the EVENTS block. */
static void win_flush(struct gen *g)
{
	qsort(g->win, g->n_win, sizeof(g->win[0]), by_start);
	for (size_t i = 0; i < g->n_win; i++) {
		g->blk[g->n_blk++] = g->win[i];
		if (g->n_blk == TC_BLOCK_RECORDS)
			flush_events(g);
	}
	g->n_win = 0;
}

static void meta(struct tc_trace *t, const char *k, const char *v)
{
	int err = trace__set_meta(t, k, v);

	if (err)
		die("meta", err);
}

static void describe(struct tc_trace *t, size_t n_samples)
{
	static const char *const progs[] = {
		"sched.tc_sched_switch",    "sched.tc_sched_wakeup",   "irq.tc_irq_entry",
		"irq.tc_irq_exit",	    "irq.tc_softirq_entry",    "irq.tc_softirq_exit",
		"ipi.tc_local_timer_entry", "ipi.tc_local_timer_exit", "mm.tc_page_fault",
		"power.tc_cpu_idle",
	};
	char buf[64];

	meta(t, "host.name", "synthetic");
	meta(t, "host.kernel", "6.1.0-18-amd64 x86_64");
	meta(t, "host.cpus", "4");
	meta(t, "host.numa_nodes", "1");
	meta(t, "host.cpu_model", "synthetic (bench/gen_trace.c)");
	meta(t, "host.cpuidle.state0.name", "POLL");
	meta(t, "host.cpuidle.state0.latency_us", "0");
	meta(t, "host.cpuidle.state1.name", "C1");
	meta(t, "host.cpuidle.state1.latency_us", "2");
	meta(t, "tailcause.version", "bench");
	meta(t, "run.command", "bench/gen_trace");
	meta(t, "run.probe", "verbs");
	meta(t, "run.cpus", "2,3");
	snprintf(buf, sizeof(buf), "%zu", n_samples);
	meta(t, "run.iterations", buf);
	meta(t, "run.completed", buf);
	meta(t, "run.clock", "CLOCK_MONOTONIC (clock_gettime, vDSO)");
	meta(t, "run.interrupted", "no");
	meta(t, "run.drain_ms", "200");
	meta(t, "run.ringbuf_bytes", "16777216");
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		snprintf(buf, sizeof(buf), "tracer.%s", progs[i]);
		meta(t, buf, "attached tp_btf");
	}
	if (trace__add_thread(t, TID0, TC_THREAD_PROBE, PROBE_CPU0) ||
	    trace__add_thread(t, TID1, TC_THREAD_PROBE, PROBE_CPU1) ||
	    trace__add_thread(t, SELF_TID, TC_THREAD_SELF, UINT32_MAX))
		die("threads", ENOMEM);
	for (size_t i = 0; i < N_IRQS; i++)
		if (trace__add_irq_name(t, irqs[i].irq, irqs[i].name) ||
		    trace__add_counter(t, TC_COUNTER_IRQ, irqs[i].irq, PROBE_CPU0, 1000 + i) ||
		    trace__add_counter(t, TC_COUNTER_IRQ, irqs[i].irq, 0, 50000 + i))
			die("irq names", ENOMEM);
}

/* n_samples round trips from *t0 on (at its end after), ~1 % of them spikes with their
 * causes, and n_events events in all, written a block at a time; how many spikes. */
static uint64_t generate(struct gen *g, struct tc_sample *s, uint64_t n_events, uint64_t n_samples,
			 uint64_t *t0)
{
	uint64_t left = n_events, spikes = 0, t = *t0;
	size_t n_s = 0;

	for (uint64_t i = 0; i < n_samples; i++) {
		uint64_t rtt = RTT_BASE + rnd() % RTT_JITTER, bg;
		uint64_t left_samples = n_samples - i;

		if (left && rnd() % 100 == 0) { /* ~1 % spikes */
			uint64_t extra = rnd() % 4 ? range(3000, 30000) : range(30000, 200000);
			size_t c = spike_causes(g, t, extra);

			left -= c < left ? c : left;
			rtt += extra;
			spikes++;
		}
		/* the background events still due, spread evenly over the samples left */
		bg = left / left_samples;
		if (rnd() % left_samples < left % left_samples)
			bg++;
		for (uint64_t k = 0; k < bg; k++)
			background(g, t + rnd() % rtt);
		left -= bg;
		s[n_s++] = (struct tc_sample){t, t + rtt, PROBE_CPU0, TID0};
		t += rtt + GAP_NS;
		win_flush(g);
		if (n_s == TC_BLOCK_RECORDS) {
			encode_samples(g, s, n_s);
			n_s = 0;
		}
	}
	flush_events(g);
	encode_samples(g, s, n_s);
	*t0 = t;
	return spikes;
}

int main(int argc, char **argv)
{
	uint64_t n_events = 0, n_samples = 0, t = 1000000000000ull, spikes = 0;
	const char *out = NULL;
	struct tc_sample *s;
	struct tc_trace *tr;
	struct gen g = {0};
	int opt;

	while ((opt = getopt(argc, argv, "o:e:s:S:")) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'e':
			n_events = strtoull(optarg, NULL, 0);
			break;
		case 's':
			n_samples = strtoull(optarg, NULL, 0);
			break;
		case 'S':
			rng_state ^= strtoull(optarg, NULL, 0) * 0x9e3779b97f4a7c15ull;
			break;
		default:
			goto usage;
		}
	}
	if (!out || !n_events)
		goto usage;
	if (!n_samples)
		n_samples = n_events;
	if (n_events > 32 * n_samples) {
		fprintf(stderr, "gen_trace: at most 32 events per sample\n");
		return 1;
	}
	s = malloc(TC_BLOCK_RECORDS * sizeof(*s));
	g.blk = malloc(TC_BLOCK_RECORDS * sizeof(*g.blk));
	tr = trace__new();
	if (!s || !g.blk || !tr)
		die("allocate", ENOMEM);
	describe(tr, n_samples);
	g.w = trace_writer__open(out, 1, t, 1700000000000000000ull);
	if (!g.w || trace_writer__meta(g.w, tr))
		return 1; /* the writer said why */

	spikes = generate(&g, s, n_events, n_samples, &t);
	if (trace_writer__finish(g.w, tr)) /* IRQ names, counters, RTT_HIST, INDEX, END */
		return 1;
	printf("gen_trace events=%llu samples=%llu spikes=%llu span_ns=%llu file=%s\n",
	       (unsigned long long)g.n_events, (unsigned long long)n_samples,
	       (unsigned long long)spikes, (unsigned long long)(t - 1000000000000ull), out);
	trace__free(tr);
	free(s);
	free(g.blk);
	return 0;

usage:
	fprintf(stderr, "usage: gen_trace -o FILE -e EVENTS [-s SAMPLES] [-S SEED]\n");
	return 1;
}
