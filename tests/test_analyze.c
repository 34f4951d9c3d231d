// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_analyze.c - spike attribution on synthetic traces with known answers,
 * and the --spike rule parser.
 *
 * The fixture: 1000 samples of 1000 ns RTT every 10 us on the probe thread
 * (CPU 2); a peer probe thread is pinned on CPU 3. With at most 10 spikes,
 * p50 = p99 = 1000, so the default threshold is 2000 and a 5000 ns spike has
 * an excess of 4000 ns.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include "core/analyze.h"

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

static struct tc_trace *new_trace_n(size_t n)
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

static struct tc_trace *new_trace(void)
{
	return new_trace_n(N_SAMPLES);
}

static uint64_t t0(const struct tc_trace *t, size_t i)
{
	return t->samples[i].t_start;
}

static void set_rtt(struct tc_trace *t, size_t i, uint64_t rtt)
{
	t->samples[i].t_end = t->samples[i].t_start + rtt;
}

static void add_offcpu(struct tc_trace *t, uint64_t start, uint64_t dur, uint16_t flags,
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

static void add_preempt(struct tc_trace *t, uint64_t start, uint64_t dur, const char *comm)
{
	add_offcpu(t, start, dur, TC_OFFCPU_PREEMPTED, 555, comm);
}

static void add_irq(struct tc_trace *t, uint16_t kind, uint32_t cpu, uint64_t start, uint64_t dur,
		    uint32_t arg)
{
	struct tc_event e = {
		.start_ns = start, .dur_ns = dur, .cpu = cpu, .kind = kind, .arg = arg};

	assert_int_equal(trace__add_events(t, &e, 1), 0);
}

static struct tc_analysis *run_opts(struct tc_trace *t, const struct tc_analysis_opts *o)
{
	struct tc_analysis *a = NULL;

	trace__sort(t);
	assert_int_equal(analysis__run(t, o, &a), 0);
	assert_non_null(a);
	return a;
}

static struct tc_analysis *run(struct tc_trace *t)
{
	struct tc_analysis_opts o = {.spike = {TC_SPIKE_DEFAULT, 0}};

	return run_opts(t, &o);
}

static const char *cause_name(const struct tc_analysis *a, uint32_t i)
{
	assert_true(i < a->n_causes);
	return a->causes[i].name;
}

static uint32_t find_cause(const struct tc_analysis *a, const char *name)
{
	for (size_t i = 0; i < a->n_causes; i++)
		if (!strcmp(a->causes[i].name, name))
			return (uint32_t)i;
	fail_msg("no cause %s", name);
	return TC_NO_CAUSE;
}

static const struct tc_contrib *contrib(const struct tc_analysis *a, const struct tc_spike *sp,
					size_t i)
{
	assert_true(i < sp->n_contrib);
	return &a->contribs[sp->first_contrib + i];
}

static void assert_excess_adds_up(const struct tc_analysis *a)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < a->n_causes; i++)
		sum += a->causes[i].excess_ns;
	assert_int_equal(sum, a->total_excess_ns);
}

static void test_analyze_preemption_covering_spike_is_primary(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 5000);
	add_preempt(t, t0(t, K) + 1000, 3000, "stress");

	a = run(t);

	assert_int_equal(a->threshold_ns, 2000);
	assert_int_equal(a->n_spikes, 1);
	sp = &a->spikes[0];
	assert_int_equal(sp->sample, K);
	assert_int_equal(sp->rtt_ns, 5000);
	assert_int_equal(sp->excess_ns, 4000);
	assert_string_equal(cause_name(a, sp->primary), "preemption:stress");
	assert_int_equal(a->causes[sp->primary].cls, TC_CAUSE_PREEMPTION);
	assert_int_equal(sp->candidate, TC_NO_CAUSE);
	assert_true(fabs(sp->explained - 0.75) < 1e-9);
	assert_int_equal(sp->n_contrib, 1);
	assert_int_equal(contrib(a, sp, 0)->overlap_ns, 3000);
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 3000);
	assert_int_equal(a->causes[sp->primary].excess_ns, 3000);
	assert_int_equal(a->causes[sp->primary].spikes, 1);
	assert_string_equal(a->causes[0].name, "unattributed");
	assert_int_equal(a->causes[0].excess_ns, 1000);
	assert_int_equal(a->causes[0].spikes, 0);
	assert_int_equal(a->total_excess_ns, 4000);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_irq_nested_in_preemption_counts_once(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;
	uint32_t preempt, irq;

	(void)state;
	set_rtt(t, K, 5000);
	add_preempt(t, t0(t, K) + 500, 4000, "stress");
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) + 1000, 500, 30);

	a = run(t);

	sp = &a->spikes[0];
	preempt = find_cause(a, "preemption:stress");
	irq = find_cause(a, "hardirq:eth0");
	assert_int_equal(sp->primary, preempt);
	assert_int_equal(sp->n_contrib, 2);
	assert_int_equal(contrib(a, sp, 0)->cause, preempt);
	assert_int_equal(contrib(a, sp, 0)->nested, 0);
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 4000);
	assert_int_equal(contrib(a, sp, 1)->cause, irq);
	assert_int_equal(contrib(a, sp, 1)->nested, 1);
	assert_int_equal(contrib(a, sp, 1)->overlap_ns, 500);
	assert_int_equal(contrib(a, sp, 1)->attributed_ns, 0);
	assert_int_equal(a->causes[irq].excess_ns, 0);
	assert_true(fabs(sp->explained - 1.0) < 1e-9);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_partly_overlapping_causes_split(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;
	uint32_t preempt, irq;

	(void)state;
	set_rtt(t, K, 5000);
	/* [0, 2000) preemption alone, [2000, 3000) both, [3000, 4000) the IRQ alone */
	add_preempt(t, t0(t, K), 3000, "stress");
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) + 2000, 2000, 30);

	a = run(t);

	sp = &a->spikes[0];
	preempt = find_cause(a, "preemption:stress");
	irq = find_cause(a, "hardirq:eth0");
	assert_int_equal(sp->primary, preempt);
	assert_int_equal(contrib(a, sp, 0)->nested, 0);
	assert_int_equal(contrib(a, sp, 1)->nested, 0);
	assert_int_equal(a->causes[preempt].excess_ns, 2500);
	assert_int_equal(a->causes[irq].excess_ns, 1500);
	assert_int_equal(a->causes[0].excess_ns, 0);
	assert_true(fabs(sp->explained - 1.0) < 1e-9);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_covered_beyond_excess_scales_down_and_ties_to_first(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;
	uint32_t preempt, irq;

	(void)state;
	set_rtt(t, K, 5000);
	/* Both cover the whole 5000 ns window, on different probe CPUs: 2500 each, scaled 4/5. */
	add_preempt(t, t0(t, K) - 1000, 7000, "stress");
	add_irq(t, TC_EV_HARDIRQ, PEER_CPU, t0(t, K), 5000, 30);

	a = run(t);

	sp = &a->spikes[0];
	preempt = find_cause(a, "preemption:stress");
	irq = find_cause(a, "hardirq:eth0");
	assert_int_equal(contrib(a, sp, 0)->overlap_ns, 5000);
	assert_int_equal(a->causes[preempt].excess_ns, 2000);
	assert_int_equal(a->causes[irq].excess_ns, 2000);
	assert_int_equal(sp->primary, preempt); /* tie: the lower cause index */
	assert_true(preempt < irq);
	assert_true(fabs(sp->explained - 1.0) < 1e-9);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_spike_without_events_is_unattributed(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 5000);

	a = run(t);

	assert_int_equal(a->n_spikes, 1);
	sp = &a->spikes[0];
	assert_int_equal(sp->primary, 0);
	assert_int_equal(sp->candidate, TC_NO_CAUSE);
	assert_int_equal(sp->n_contrib, 0);
	assert_true(sp->explained == 0.0);
	assert_int_equal(a->n_causes, 1);
	assert_int_equal(a->causes[0].spikes, 1);
	assert_int_equal(a->causes[0].excess_ns, 4000);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_under_half_explained_keeps_candidate(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;
	uint32_t irq;

	(void)state;
	set_rtt(t, K, 5000);
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) + 100, 1200, 30); /* 30 % of 4000 */

	a = run(t);

	sp = &a->spikes[0];
	irq = find_cause(a, "hardirq:eth0");
	assert_true(fabs(sp->explained - 0.3) < 1e-9);
	assert_int_equal(sp->primary, 0);
	assert_int_equal(sp->candidate, irq);
	assert_int_equal(a->causes[irq].excess_ns, 1200);
	assert_int_equal(a->causes[irq].spikes, 0);
	assert_int_equal(a->causes[0].excess_ns, 2800);
	assert_int_equal(a->causes[0].spikes, 1);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_half_explained_is_attributed(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 5000);
	add_preempt(t, t0(t, K) - 2000, 4000, "stress"); /* 2000 inside the window: 50 % */

	a = run(t);

	sp = &a->spikes[0];
	assert_true(sp->explained == 0.5);
	assert_string_equal(cause_name(a, sp->primary), "preemption:stress");
	assert_int_equal(contrib(a, sp, 0)->overlap_ns, 2000);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_blocked_offcpu_is_unattributed_candidate(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;
	uint32_t blocked;

	(void)state;
	set_rtt(t, K, 5000);
	add_offcpu(t, t0(t, K) + 1000, 3000, 0, 777, "sshd");

	a = run(t);

	sp = &a->spikes[0];
	blocked = find_cause(a, "blocked, then sshd ran");
	assert_int_equal(a->causes[blocked].cls, TC_CAUSE_UNATTRIBUTED);
	assert_int_equal(sp->primary, 0);
	assert_int_equal(sp->candidate, blocked);
	assert_true(sp->explained == 0.0);
	assert_int_equal(contrib(a, sp, 0)->attributed_ns, 3000);
	assert_int_equal(a->causes[0].excess_ns, 1000);
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_ignores_events_on_other_cpus(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 5000);
	add_irq(t, TC_EV_HARDIRQ, OTHER_CPU, t0(t, K) + 1000, 3000, 30);
	add_irq(t, TC_EV_SOFTIRQ, OTHER_CPU, t0(t, K), 5000, 3);

	a = run(t);

	sp = &a->spikes[0];
	assert_int_equal(sp->n_contrib, 0);
	assert_int_equal(sp->primary, 0);
	assert_int_equal(sp->candidate, TC_NO_CAUSE);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_counts_events_on_the_sample_cpu_only_for_it(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, K, 5000);
	set_rtt(t, K + 1, 5000);
	t->samples[K].cpu = OTHER_CPU; /* timed on an unpinned CPU */
	add_irq(t, TC_EV_SOFTIRQ, OTHER_CPU, t0(t, K) + 1000, 3000, 3);
	add_irq(t, TC_EV_SOFTIRQ, OTHER_CPU, t0(t, K + 1) + 1000, 3000, 3);

	a = run(t);

	assert_int_equal(a->n_spikes, 2);
	assert_string_equal(cause_name(a, a->spikes[0].primary), "softirq:net_rx");
	assert_int_equal(a->spikes[0].n_contrib, 1);
	assert_int_equal(a->spikes[1].n_contrib, 0);
	assert_int_equal(a->spikes[1].primary, 0);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_intervals_touching_the_window_or_empty_are_ignored(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, K, 5000);
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) - 3000, 3000, 30); /* [s, s + dur) */
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) + 5000, 3000, 30); /* starts at t_end */
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) + 2000, 0, 30);	 /* empty */

	a = run(t);

	assert_int_equal(a->spikes[0].n_contrib, 0);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_preemption_by_recorder_is_self(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 5000);
	add_offcpu(t, t0(t, K) + 1000, 3000, TC_OFFCPU_PREEMPTED, SELF_TID, "tailcause");

	a = run(t);

	sp = &a->spikes[0];
	assert_string_equal(cause_name(a, sp->primary), "self");
	assert_int_equal(a->causes[sp->primary].cls, TC_CAUSE_SELF);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_identical_intervals_nest_the_later_event(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, 5000);
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) + 1000, 3000, 30);
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) + 1000, 3000, 77);

	a = run(t);

	sp = &a->spikes[0];
	assert_string_equal(cause_name(a, sp->primary), "hardirq:eth0");
	assert_int_equal(contrib(a, sp, 0)->nested, 0);
	assert_int_equal(contrib(a, sp, 1)->nested, 1);
	assert_string_equal(cause_name(a, contrib(a, sp, 1)->cause),
			    "nic-irq:mlx5_comp3@pci:0000:81:00.0");
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_nic_pattern_option_applies(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis_opts o = {.nic_irq_pattern = "eth*"};
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, K, 5000);
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) + 1000, 3000, 30);

	a = run_opts(t, &o);

	assert_string_equal(cause_name(a, a->spikes[0].primary), "nic-irq:eth0");
	assert_int_equal(a->causes[a->spikes[0].primary].cls, TC_CAUSE_NIC_IRQ);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_long_interval_attributes_every_spike(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	uint32_t preempt;

	(void)state;
	for (size_t i = 0; i < 10; i++)
		set_rtt(t, 100 + 20 * i, 5000);
	/* 2 ms of preemption across all ten, with unrelated short IRQs in between. */
	add_preempt(t, t0(t, 100) - 1000, t0(t, 300) - t0(t, 100), "stress");
	for (size_t i = 0; i < 200; i++)
		add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, 100 + i) + 6000, 100, 30);

	a = run(t);

	preempt = find_cause(a, "preemption:stress");
	assert_int_equal(a->n_spikes, 10);
	for (size_t i = 0; i < 10; i++) {
		assert_int_equal(a->spikes[i].sample, 100 + 20 * i);
		assert_int_equal(a->spikes[i].primary, preempt);
		assert_int_equal(a->spikes[i].n_contrib, 1);
		assert_int_equal(contrib(a, &a->spikes[i], 0)->attributed_ns, 4000);
	}
	assert_int_equal(a->causes[preempt].spikes, 10);
	assert_int_equal(a->causes[preempt].excess_ns, 40000);
	assert_int_equal(a->n_causes, 2); /* the IRQs never overlapped a spike */
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_causes_dedup_by_name(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	uint32_t preempt;

	(void)state;
	set_rtt(t, K, 5000);
	set_rtt(t, K + 50, 5000);
	add_offcpu(t, t0(t, K) + 1000, 3000, TC_OFFCPU_PREEMPTED, 555, "stress");
	add_offcpu(t, t0(t, K + 50) + 1000, 3000, TC_OFFCPU_PREEMPTED, 556, "stress");

	a = run(t);

	preempt = find_cause(a, "preemption:stress");
	assert_int_equal(a->n_causes, 2);
	assert_int_equal(a->spikes[0].primary, preempt);
	assert_int_equal(a->spikes[1].primary, preempt);
	assert_int_equal(a->causes[preempt].spikes, 2);
	assert_int_equal(a->causes[preempt].excess_ns, 6000);
	analysis__free(a);
	trace__free(t);
}

/* 98 samples at 1000, one at 1500, one at 3000: p50 = 1000, p99 = 1500. */
static size_t spikes_for(const char *rule, uint64_t *threshold)
{
	struct tc_trace *t = new_trace_n(100);
	struct tc_analysis_opts o = {0};
	struct tc_analysis *a;
	size_t n;

	set_rtt(t, 10, 1500);
	set_rtt(t, 20, 3000);
	assert_int_equal(spike_rule_parse(rule, &o.spike), 0);
	a = run_opts(t, &o);
	n = a->n_spikes;
	*threshold = a->threshold_ns;
	analysis__free(a);
	trace__free(t);
	return n;
}

static void test_analyze_threshold_for_each_rule(void **state)
{
	uint64_t thr;

	(void)state;
	assert_int_equal(spikes_for("default", &thr), 1); /* max(p99, 2 x p50) */
	assert_int_equal(thr, 2000);
	assert_int_equal(spikes_for("p98", &thr), 2);
	assert_int_equal(thr, 1000);
	assert_int_equal(spikes_for("p100", &thr), 0);
	assert_int_equal(thr, 3000);
	assert_int_equal(spikes_for("600ns", &thr), 2); /* one way: RTT above 1200 */
	assert_int_equal(thr, 1200);
	assert_int_equal(spikes_for("1us", &thr), 1);
	assert_int_equal(thr, 2000);
	assert_int_equal(spikes_for("1.4x", &thr), 2);
	assert_int_equal(thr, 1400);
	assert_int_equal(spikes_for("3x", &thr), 0); /* strictly above */
	assert_int_equal(thr, 3000);
}

static void test_analyze_threshold_default_takes_p99_when_higher(void **state)
{
	struct tc_trace *t = new_trace_n(100);
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, 10, 5000);
	set_rtt(t, 20, 5000);
	set_rtt(t, 30, 5000);

	a = run(t);

	assert_int_equal(a->stats.p50, 1000);
	assert_int_equal(a->threshold_ns, 5000);
	assert_int_equal(a->n_spikes, 0);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_top_spikes_largest_first(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	size_t idx[10];

	(void)state;
	set_rtt(t, 100, 3000);
	set_rtt(t, 200, 5000);
	set_rtt(t, 300, 4000);
	set_rtt(t, 400, 5000);
	a = run(t);
	assert_int_equal(a->n_spikes, 4);

	assert_int_equal(analysis_top_spikes(a, idx, 3), 3);
	assert_int_equal(idx[0], 1); /* 5000, the earlier one first */
	assert_int_equal(idx[1], 3);
	assert_int_equal(idx[2], 2);
	assert_int_equal(analysis_top_spikes(a, idx, 10), 4);
	assert_int_equal(idx[0], 1);
	assert_int_equal(idx[1], 3);
	assert_int_equal(idx[2], 2);
	assert_int_equal(idx[3], 0);
	assert_int_equal(analysis_top_spikes(a, idx, 0), 0);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_causes_by_excess_largest_first(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	size_t idx[8];

	(void)state;
	set_rtt(t, K, 5000);
	add_preempt(t, t0(t, K), 3000, "stress");
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, t0(t, K) + 2000, 2000, 30);
	set_rtt(t, K + 50, 5000);
	add_irq(t, TC_EV_SOFTIRQ, PROBE_CPU, t0(t, K + 50), 100, 1);
	a = run(t);
	assert_int_equal(a->n_causes, 4);

	/* unattributed 3900, preemption 2500, hardirq 1500, softirq:timer 100 */
	assert_int_equal(analysis_causes_by_excess(a, idx), 4);
	assert_int_equal(idx[0], 0);
	assert_string_equal(cause_name(a, idx[1]), "preemption:stress");
	assert_string_equal(cause_name(a, idx[2]), "hardirq:eth0");
	assert_string_equal(cause_name(a, idx[3]), "softirq:timer");
	assert_excess_adds_up(a);
	analysis__free(a);
	trace__free(t);
}

static void test_analyze_no_samples_is_einval(void **state)
{
	struct tc_trace *t = trace__new();
	struct tc_analysis *a = NULL;

	(void)state;
	assert_non_null(t);
	assert_int_equal(analysis__run(t, NULL, &a), -EINVAL);
	assert_null(a);
	assert_int_equal(analysis__run(NULL, NULL, &a), -EINVAL);
	trace__free(t);
}

static void test_analyze_invalid_rule_is_einval(void **state)
{
	struct tc_trace *t = new_trace_n(10);
	struct tc_analysis_opts o = {.spike = {TC_SPIKE_PERCENTILE, 150.0}};
	struct tc_analysis *a = NULL;

	(void)state;
	assert_int_equal(analysis__run(t, &o, &a), -EINVAL);
	o.spike = (struct tc_spike_rule){TC_SPIKE_ABSOLUTE, -1.0};
	assert_int_equal(analysis__run(t, &o, &a), -EINVAL);
	assert_null(a);
	trace__free(t);
}

static void test_analyze_unsorted_events_is_einval(void **state)
{
	struct tc_trace *t = new_trace_n(10);
	struct tc_analysis *a = NULL;

	(void)state;
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, 5000, 10, 30);
	add_irq(t, TC_EV_HARDIRQ, PROBE_CPU, 1000, 10, 30); /* no trace__sort() */

	assert_int_equal(analysis__run(t, NULL, &a), -EINVAL);
	assert_null(a);
	trace__free(t);
}

static void test_spike_rule_parse_accepts_each_form(void **state)
{
	struct tc_spike_rule r;

	(void)state;
	assert_int_equal(spike_rule_parse("default", &r), 0);
	assert_int_equal(r.mode, TC_SPIKE_DEFAULT);
	assert_int_equal(spike_rule_parse("p99.9", &r), 0);
	assert_int_equal(r.mode, TC_SPIKE_PERCENTILE);
	assert_true(r.value == 99.9);
	assert_int_equal(spike_rule_parse("p100", &r), 0);
	assert_true(r.value == 100.0);
	assert_int_equal(spike_rule_parse("20us", &r), 0);
	assert_int_equal(r.mode, TC_SPIKE_ABSOLUTE);
	assert_true(r.value == 20000.0);
	assert_int_equal(spike_rule_parse("1.5ms", &r), 0);
	assert_true(r.value == 1500000.0);
	assert_int_equal(spike_rule_parse("800ns", &r), 0);
	assert_true(r.value == 800.0);
	assert_int_equal(spike_rule_parse("0.1us", &r), 0);
	assert_true(r.value == 100.0);
	assert_int_equal(spike_rule_parse("2s", &r), 0);
	assert_true(r.value == 2e9);
	assert_int_equal(spike_rule_parse("3x", &r), 0);
	assert_int_equal(r.mode, TC_SPIKE_MEDIAN_X);
	assert_true(r.value == 3.0);
	assert_int_equal(spike_rule_parse("2.5x", &r), 0);
	assert_true(r.value == 2.5);
}

static void test_spike_rule_parse_rejects_garbage(void **state)
{
	static const char *const bad[] = {
		"",	   "p",	    "p0",     "p-1",   "p100.1",
		"p99.",	   "p99x",  "-5us",   "0us",   "0x",
		"0.0ms",   "20",    "20 us",  " 20us", "20us ",
		"20usx",   "1e3ns", "1..5ms", ".5ms",  "abc",
		"inf",	   "nanx",  "+3x",    "20µs",  "12345678901234567ns",
		"Default",
	};
	struct tc_spike_rule r = {TC_SPIKE_MEDIAN_X, 7.0};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (spike_rule_parse(bad[i], &r) != -EINVAL)
			fail_msg("accepted \"%s\"", bad[i]);
	}
	assert_int_equal(spike_rule_parse(NULL, &r), -EINVAL);
	assert_int_equal(r.mode, TC_SPIKE_MEDIAN_X); /* untouched on failure */
	assert_true(r.value == 7.0);
}

static void test_spike_rule_describe_each_mode(void **state)
{
	struct tc_spike_rule r;
	char buf[64];

	(void)state;
	r = (struct tc_spike_rule){TC_SPIKE_DEFAULT, 0};
	spike_rule_describe(&r, buf, sizeof(buf));
	assert_string_equal(buf, "above p99 and above 2x median");
	r = (struct tc_spike_rule){TC_SPIKE_PERCENTILE, 99.9};
	spike_rule_describe(&r, buf, sizeof(buf));
	assert_string_equal(buf, "above p99.9");
	r = (struct tc_spike_rule){TC_SPIKE_ABSOLUTE, 20000};
	spike_rule_describe(&r, buf, sizeof(buf));
	assert_string_equal(buf, "one-way latency above 20 us");
	r = (struct tc_spike_rule){TC_SPIKE_ABSOLUTE, 1500000};
	spike_rule_describe(&r, buf, sizeof(buf));
	assert_string_equal(buf, "one-way latency above 1.5 ms");
	r = (struct tc_spike_rule){TC_SPIKE_ABSOLUTE, 800};
	spike_rule_describe(&r, buf, sizeof(buf));
	assert_string_equal(buf, "one-way latency above 800 ns");
	r = (struct tc_spike_rule){TC_SPIKE_MEDIAN_X, 2.5};
	spike_rule_describe(&r, buf, sizeof(buf));
	assert_string_equal(buf, "above 2.5x median");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_analyze_preemption_covering_spike_is_primary),
		cmocka_unit_test(test_analyze_irq_nested_in_preemption_counts_once),
		cmocka_unit_test(test_analyze_partly_overlapping_causes_split),
		cmocka_unit_test(test_analyze_covered_beyond_excess_scales_down_and_ties_to_first),
		cmocka_unit_test(test_analyze_spike_without_events_is_unattributed),
		cmocka_unit_test(test_analyze_under_half_explained_keeps_candidate),
		cmocka_unit_test(test_analyze_half_explained_is_attributed),
		cmocka_unit_test(test_analyze_blocked_offcpu_is_unattributed_candidate),
		cmocka_unit_test(test_analyze_ignores_events_on_other_cpus),
		cmocka_unit_test(test_analyze_counts_events_on_the_sample_cpu_only_for_it),
		cmocka_unit_test(test_analyze_intervals_touching_the_window_or_empty_are_ignored),
		cmocka_unit_test(test_analyze_preemption_by_recorder_is_self),
		cmocka_unit_test(test_analyze_identical_intervals_nest_the_later_event),
		cmocka_unit_test(test_analyze_nic_pattern_option_applies),
		cmocka_unit_test(test_analyze_long_interval_attributes_every_spike),
		cmocka_unit_test(test_analyze_causes_dedup_by_name),
		cmocka_unit_test(test_analyze_threshold_for_each_rule),
		cmocka_unit_test(test_analyze_threshold_default_takes_p99_when_higher),
		cmocka_unit_test(test_analyze_top_spikes_largest_first),
		cmocka_unit_test(test_analyze_causes_by_excess_largest_first),
		cmocka_unit_test(test_analyze_no_samples_is_einval),
		cmocka_unit_test(test_analyze_invalid_rule_is_einval),
		cmocka_unit_test(test_analyze_unsorted_events_is_einval),
		cmocka_unit_test(test_spike_rule_parse_accepts_each_form),
		cmocka_unit_test(test_spike_rule_parse_rejects_garbage),
		cmocka_unit_test(test_spike_rule_describe_each_mode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
