/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * analyze_fixture.h - synthetic traces with known answers for the analyzer's
 * tests. Include after <cmocka.h>.
 *
 * The fixture: 1000 samples of 1000 ns RTT every 10 us on the probe thread
 * (CPU 2); a peer probe thread is pinned on CPU 3. With at most 10 spikes,
 * p50 = p99 = 1000, so the default threshold is 2000 and a 5000 ns spike has
 * an excess of 4000 ns.
 */
#ifndef TAILCAUSE_TESTS_ANALYZE_FIXTURE_H
#define TAILCAUSE_TESTS_ANALYZE_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "core/attrib/analyze.h"

#define PROBE_TID 100
#define PEER_TID  101
#define SELF_TID  900
#define PROBE_CPU 2
#define PEER_CPU  3
#define OTHER_CPU 7
#define N_SAMPLES 1000
#define SLOT	  10000
#define BASE_RTT  1000
#define K	  500 /* the sample most tests turn into a spike */

static inline struct tc_trace *new_trace_n(size_t n)
{
	struct tc_trace *t = trace__new();

	assert_non_null(t);
	assert_int_equal(trace__add_thread(t, PROBE_TID, TC_THREAD_PROBE, PROBE_CPU), 0);
	assert_int_equal(trace__add_thread(t, PEER_TID, TC_THREAD_PROBE, PEER_CPU), 0);
	assert_int_equal(trace__add_thread(t, SELF_TID, TC_THREAD_SELF, UINT32_MAX), 0);
	assert_int_equal(trace__add_irq_name(t, 30, "eth0"), 0);
	assert_int_equal(trace__add_irq_name(t, 77, "mlx5_comp3@pci:0000:81:00.0"), 0);
	for (size_t i = 0; i < n; i++) {
		struct tc_sample s = {
			.t_start = (i + 1) * SLOT, .cpu = PROBE_CPU, .tid = PROBE_TID};

		s.t_end = s.t_start + BASE_RTT;
		assert_int_equal(trace__add_samples(t, &s, 1), 0);
	}
	return t;
}

static inline struct tc_trace *new_trace(void)
{
	return new_trace_n(N_SAMPLES);
}

static inline uint64_t t0(const struct tc_trace *t, size_t i)
{
	return t->samples[i].t_start;
}

static inline void set_rtt(struct tc_trace *t, size_t i, uint64_t rtt)
{
	t->samples[i].t_end = t->samples[i].t_start + rtt;
}

static inline void add_offcpu(struct tc_trace *t, uint64_t start, uint64_t dur, uint16_t flags,
			      uint32_t other_pid, const char *comm)
{
	struct tc_event e = {.start_ns = start,
			     .dur_ns = dur,
			     .cpu = PROBE_CPU,
			     .tid = PROBE_TID,
			     .other_pid = other_pid,
			     .kind = TC_EV_OFFCPU,
			     .flags = flags};

	memcpy(e.other_comm, comm, strlen(comm) + 1);
	assert_int_equal(trace__add_events(t, &e, 1), 0);
}

static inline void add_preempt(struct tc_trace *t, uint64_t start, uint64_t dur, const char *comm)
{
	add_offcpu(t, start, dur, TC_OFFCPU_PREEMPTED, 555, comm);
}

static inline void add_irq(struct tc_trace *t, uint16_t kind, uint32_t cpu, uint64_t start,
			   uint64_t dur, uint32_t arg)
{
	struct tc_event e = {
		.start_ns = start, .dur_ns = dur, .cpu = cpu, .kind = kind, .arg = arg};

	assert_int_equal(trace__add_events(t, &e, 1), 0);
}

static inline struct tc_analysis *run_opts(struct tc_trace *t, const struct tc_analysis_opts *o)
{
	struct tc_analysis *a = NULL;

	trace__sort(t);
	assert_int_equal(analysis__run(t, o, &a), 0);
	assert_non_null(a);
	return a;
}

static inline struct tc_analysis *run(struct tc_trace *t)
{
	struct tc_analysis_opts o = {.spike = {TC_SPIKE_DEFAULT, 0}};

	return run_opts(t, &o);
}

static inline const char *cause_name(const struct tc_analysis *a, uint32_t i)
{
	assert_true(i < a->n_causes);
	return a->causes[i].name;
}

static inline uint32_t find_cause(const struct tc_analysis *a, const char *name)
{
	for (size_t i = 0; i < a->n_causes; i++)
		if (!strcmp(a->causes[i].name, name))
			return (uint32_t)i;
	fail_msg("no cause %s", name);
	return TC_NO_CAUSE;
}

static inline const struct tc_contrib *contrib(const struct tc_analysis *a,
					       const struct tc_spike *sp, size_t i)
{
	assert_true(i < sp->n_contrib);
	return &a->contribs[sp->first_contrib + i];
}

static inline void assert_excess_adds_up(const struct tc_analysis *a)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < a->n_causes; i++)
		sum += a->causes[i].excess_ns;
	assert_int_equal(sum, a->total_excess_ns);
}

/* Any event: kind on cpu by tid over [start, start + dur), with arg. */
static inline void add_event(struct tc_trace *t, uint16_t kind, uint32_t cpu, uint32_t tid,
			     uint64_t start, uint64_t dur, uint32_t arg)
{
	struct tc_event e = {
		.start_ns = start, .dur_ns = dur, .cpu = cpu, .tid = tid, .kind = kind, .arg = arg};

	assert_int_equal(trace__add_events(t, &e, 1), 0);
}

/* The tracer status of a recording where every tracer that sees OS events attached. */
static inline void complete_coverage(struct tc_trace *t)
{
	static const char *const progs[] = {
		"sched.tc_sched_switch",
		"irq.tc_irq_entry",
		"irq.tc_softirq_entry",
		"ipi.tc_local_timer_entry",
		"ipi.tc_local_timer_exit",
		"ipi.tc_reschedule_entry",
		"ipi.tc_reschedule_exit",
		"ipi.tc_call_function_entry",
		"ipi.tc_call_function_exit",
		"ipi.tc_call_function_single_entry",
		"ipi.tc_call_function_single_exit",
		"ipi.tc_irq_work_entry",
		"ipi.tc_irq_work_exit",
		"mm.tc_page_fault",
		"power.tc_cpu_idle",
		"signal.tc_signal_deliver",
		"workqueue.tc_work_start",
		"timer.tc_hrtimer_entry",
	};
	char key[96];

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		snprintf(key, sizeof(key), "tracer.%s", progs[i]);
		assert_int_equal(trace__set_meta(t, key, "attached tp_btf/x"), 0);
	}
}

#endif /* TAILCAUSE_TESTS_ANALYZE_FIXTURE_H */
