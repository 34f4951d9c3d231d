// SPDX-License-Identifier: BSD-2-Clause
/*
 * The streamed analysis (core/stream/analyze_stream.h) against the whole one, on synthetic
 * traces whose answer the whole analysis gives: random spikes with preemptions, IRQs,
 * timer callbacks and steal intervals that reach across segment cuts, the blocks handed
 * over in shuffled order with overlapping time spans, at segment sizes down to 3 round
 * trips. Every total, every cause (with the CPUs of its spikes) and the kept spikes must
 * come out the same.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_fixture.h"
#include "mem_source.h"
#include "core/stream/analyze_stream.h"
#include "core/stats/stats.h"
#include "core/trace/trace_codec.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A trace of n round trips with ~5 % spikes, each with causes, and steal across them. */
static struct tc_trace *random_trace(size_t n)
{
	struct tc_trace *t = new_trace_n(n);
	static const char *const comms[] = {"kworker/2:1", "irqbalance", "sshd", "python3"};

	/* a second timing thread, on the next CPU: some IRQs hit it there */
	assert_int_equal(trace__add_thread(t, PROBE_TID + 1, TC_THREAD_PROBE, PROBE_CPU + 1), 0);
	/* the probe thread is woken by tid 301 from CPU 5, recorded once, before all else: the
	 * waits it ends (core/attrib/wait_chain.h) in any segment are followed through it */
	{
		struct tc_event wk = {.start_ns = SLOT / 2,
				      .cpu = 5,
				      .tid = PROBE_TID,
				      .other_pid = 301,
				      .kind = TC_EV_WAKEUP,
				      .other_comm = "server"};

		assert_int_equal(trace__add_events(t, &wk, 1), 0);
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t s = t0(t, i);

		if (rnd() % 20)
			continue;
		set_rtt(t, i, BASE_RTT + 2000 + rnd() % 6000);
		switch (rnd() % 5) {
		case 0:
			add_preempt(t, s + 100, 1500 + rnd() % 3000, comms[rnd() % 4]);
			break;
		case 4: { /* blocked on tid 301, which hog preempted meanwhile on CPU 5 */
			struct tc_event off = {.start_ns = s + 100,
					       .dur_ns = 1800 + rnd() % 2000,
					       .cpu = PROBE_CPU,
					       .tid = PROBE_TID,
					       .kind = TC_EV_OFFCPU,
					       .other_comm = "swapper/2"};
			struct tc_event hog = {.start_ns = s + 300,
					       .dur_ns = 1000 + rnd() % 1000,
					       .cpu = 5,
					       .tid = 301,
					       .other_pid = 77,
					       .kind = TC_EV_OFFCPU,
					       .flags = TC_OFFCPU_PREEMPTED,
					       .other_comm = "hog"};

			assert_int_equal(trace__add_events(t, &off, 1), 0);
			assert_int_equal(trace__add_events(t, &hog, 1), 0);
			break;
		}
		case 1: {
			uint32_t cpu = PROBE_CPU + (uint32_t)(rnd() % 2);

			t->samples[i].cpu = cpu;
			t->samples[i].tid = PROBE_TID + cpu - PROBE_CPU;
			add_irq(t, TC_EV_HARDIRQ, cpu, s + 200, 1000 + rnd() % 2000, 30);
			break;
		}
		case 2: {
			struct tc_event tm = {.start_ns = s + 300,
					      .dur_ns = 2500,
					      .cpu = PROBE_CPU,
					      .kind = TC_EV_TIMER};
			struct tc_event fn = {.start_ns = s + 400,
					      .dur_ns = 1000,
					      .cpu = PROBE_CPU,
					      .kind = TC_EV_TIMER_FN,
					      .func = 0xffffffff81000000ull};

			assert_int_equal(trace__add_events(t, &tm, 1), 0);
			assert_int_equal(trace__add_events(t, &fn, 1), 0);
			break;
		}
		default:
			break; /* nothing of its own: steal or hw-noise */
		}
	}
	/* steal intervals a few round trips long on the probe CPU, some back to back */
	for (uint64_t s = SLOT; s < (n + 1) * SLOT; s += SLOT * (1 + rnd() % 7)) {
		struct tc_event st = {.start_ns = s + rnd() % SLOT,
				      .dur_ns = SLOT * (1 + rnd() % 5),
				      .cpu = PROBE_CPU,
				      .kind = TC_EV_STEAL,
				      .stolen_ns = 500 + rnd() % 5000};

		assert_int_equal(trace__add_events(t, &st, 1), 0);
	}
	trace__sort(t);
	return t;
}

/* The samples in their order (1: the pool need not sort them), the events of each block
 * backwards: the pool sorts them. */
static int mem_read(void *arg, const struct stream_block *b, struct tc_trace *t)
{
	const struct mem_src *m = arg;
	size_t from = b->where * m->per;

	if (b->type == TC_BLOCK_SAMPLES)
		return trace__add_samples(t, m->t->samples + from, b->n) ?: 1;
	for (size_t i = b->n; i-- > 0;)
		if (trace__add_events(t, m->t->events + from + i, 1))
			return -ENOMEM;
	return 0;
}

static const struct tc_cause *named(const struct tc_analysis *a, const char *name)
{
	for (size_t i = 0; i < a->n_causes; i++)
		if (!strcmp(a->causes[i].name, name))
			return &a->causes[i];
	return NULL;
}

static const struct tc_cause *of_class(const struct tc_analysis *a, enum tc_cause_class cls)
{
	for (size_t i = 0; i < a->n_causes; i++)
		if (a->causes[i].cls == cls)
			return &a->causes[i];
	fail_msg("no cause of class %d", (int)cls);
	return NULL;
}

static void compare(const struct tc_trace *t, const struct tc_analysis *w, size_t seg, size_t per,
		    size_t keep)
{
	struct mem_src m = {.t = t, .per = per};
	struct tc_analysis_opts ao = {.spike = {TC_SPIKE_MEDIAN_X, 2}};
	struct stream_out out;
	struct stream_params p = {.opts = &ao, .segment_samples = seg, .keep = keep, .out = &out};
	struct stream_source src;
	struct tc_trace *rt = NULL;
	struct tc_analysis *ra = NULL;
	size_t top_w[16], top_s[16], nw, ns;

	m.b = calloc(t->n_samples / per + t->n_events / per + 4, sizeof(*m.b));
	assert_non_null(m.b);
	mem_blocks(&m, TC_BLOCK_SAMPLES, t->n_samples);
	mem_blocks(&m, TC_BLOCK_EVENTS, t->n_events);
	for (size_t i = m.n; i > 1; i--) { /* shuffled */
		size_t j = rnd() % i;
		struct stream_block x = m.b[i - 1];

		m.b[i - 1] = m.b[j];
		m.b[j] = x;
	}
	src = (struct stream_source){m.b, m.n, mem_read, &m};
	p.stats = w->stats;
	p.stats_pct = w->stats.p50; /* a median multiple's percentile is the median */
	assert_int_equal(analysis_stream_run(t, &src, &p, &rt, &ra), 0);
	assert_true(rt->streamed.on);
	assert_int_equal(out.steal_cuts, 0);
	assert_int_equal(ra->n_spikes_run, w->n_spikes);
	assert_int_equal(ra->n_spikes, w->n_spikes < keep ? w->n_spikes : keep);
	assert_int_equal(ra->total_excess_ns, w->total_excess_ns);
	assert_int_equal(ra->threshold_ns, w->threshold_ns);
	for (size_t i = 0; i < w->n_causes; i++) {
		const struct tc_cause *c = named(ra, w->causes[i].name);

		if (!w->causes[i].spikes && !w->causes[i].excess_ns)
			continue;
		assert_non_null(c);
		assert_int_equal(c->spikes, w->causes[i].spikes);
		assert_int_equal(c->excess_ns, w->causes[i].excess_ns);
		assert_int_equal(c->hidden_ns, w->causes[i].hidden_ns);
		assert_memory_equal(&c->cpus, &w->causes[i].cpus, sizeof(c->cpus));
	}
	/* the kept spikes are the largest, in the same order, decided alike */
	nw = analysis_top_spikes(w, top_w, 16);
	ns = analysis_top_spikes(ra, top_s, 16);
	assert_int_equal(ns, nw < keep ? nw : keep);
	for (size_t i = 0; i < ns; i++) {
		const struct tc_spike *a = &w->spikes[top_w[i]], *b = &ra->spikes[top_s[i]];

		assert_int_equal(b->run_sample, a->sample);
		assert_int_equal(b->rtt_ns, a->rtt_ns);
		assert_string_equal(ra->causes[b->primary].name, w->causes[a->primary].name);
		assert_int_equal(b->n_contrib, a->n_contrib);
		assert_true(rt->samples[b->sample].t_start == t->samples[a->sample].t_start);
		for (size_t k = 0; k < b->n_contrib; k++) {
			const struct tc_contrib *x = &w->contribs[a->first_contrib + k],
						*y = &ra->contribs[b->first_contrib + k];

			assert_int_equal(y->attributed_ns, x->attributed_ns);
			assert_true(!memcmp(&rt->events[y->event], &t->events[x->event],
					    sizeof(struct tc_event)));
		}
	}
	analysis__free(ra);
	trace__free(rt);
	free(m.b);
}

static void test_stream_matches_whole(void **state)
{
	static const size_t segs[] = {3, 17, 250, 100000};
	static const size_t pers[] = {5, 64, 4096};

	(void)state;
	for (int round = 0; round < 3; round++) {
		struct tc_analysis_opts ao = {.spike = {TC_SPIKE_MEDIAN_X, 2}};
		struct tc_trace *t = random_trace(4000);
		struct tc_analysis *w = run_opts(t, &ao);

		assert_true(w->n_spikes > 50);
		assert_non_null(named(w, "steal"));
		assert_true(named(w, "preemption:hog") && named(w, "preemption:hog")->spikes > 5);
		/* the IRQs' spikes were on both timing threads' CPUs, whichever segment */
		assert_int_equal(cpuset_count(&of_class(w, TC_CAUSE_HARDIRQ)->cpus), 2);
		for (size_t i = 0; i < sizeof(segs) / sizeof(segs[0]); i++)
			for (size_t j = 0; j < sizeof(pers) / sizeof(pers[0]); j++)
				compare(t, w, segs[i], pers[j], i == 1 ? 5 : 20000);
		analysis__free(w);
		trace__free(t);
	}
}

/* No samples, or no statistics: refused. */
static void test_stream_refuses_empty(void **state)
{
	struct tc_trace *t = new_trace_n(0);
	struct tc_analysis_opts ao = {0};
	struct stream_out out;
	struct stream_params p = {.opts = &ao, .out = &out};
	struct stream_source src = {0};
	struct tc_trace *rt = NULL;
	struct tc_analysis *ra = NULL;

	(void)state;
	assert_int_equal(analysis_stream_run(t, &src, &p, &rt, &ra), -EINVAL);
	p.stats.n = 1;
	assert_int_equal(analysis_stream_run(t, &src, &p, &rt, &ra), -EINVAL);
	trace__free(t);
}

/* The spike of the round trip starting at start in t, analyzed whole: its cause's name,
 * its share explained, its intervals. */
static void spike_at(struct tc_trace *t, uint64_t start, char *cause, double *explained,
		     size_t *n_contrib)
{
	struct tc_analysis_opts ao = {.spike = {TC_SPIKE_MEDIAN_X, 2}};
	struct tc_analysis *a = run_opts(t, &ao);
	size_t i;

	for (i = 0; i < a->n_spikes && t->samples[a->spikes[i].sample].t_start != start; i++)
		;
	assert_true(i < a->n_spikes);
	strcpy(cause, a->causes[a->spikes[i].primary].name);
	*explained = a->spikes[i].explained;
	*n_contrib = a->spikes[i].n_contrib;
	analysis__free(a);
}

/* Sample K a 5 us spike with ev[0..n) and, where beside, a 200 us spike of the other
 * thread starting just before it: K's answer is the same either way. */
static void alone_and_beside(const struct tc_event *ev, size_t n)
{
	struct tc_trace *alone = new_trace(), *beside = new_trace();
	struct tc_sample longer = {t0(alone, K) - 100, t0(alone, K) + 200000, PEER_CPU, PEER_TID};
	char c1[TC_CAUSE_NAME_LEN], c2[TC_CAUSE_NAME_LEN];
	double e1, e2;
	size_t n1, n2;

	set_rtt(alone, K, 5000);
	set_rtt(beside, K, 5000);
	assert_int_equal(trace__add_events(alone, ev, n), 0);
	assert_int_equal(trace__add_events(beside, ev, n), 0);
	assert_int_equal(trace__add_samples(beside, &longer, 1), 0);
	spike_at(alone, t0(alone, K), c1, &e1, &n1);
	spike_at(beside, t0(alone, K), c2, &e2, &n2);
	assert_string_equal(c2, c1);
	assert_true(e2 == e1);
	assert_int_equal(n2, n1);
	trace__free(alone);
	trace__free(beside);
}

/*
 * Round trips of two threads overlap: a long spike of the other thread, starting first,
 * takes in events far past the end of the short one after it. The short spike's answer
 * is the one it has alone (and in a streamed segment of its own): an IPI sent inside it
 * but handled past its reach is not weighed in it; the timer interrupt it ends inside is
 * named by its callback that begins after it, as the look past its end finds it.
 */
static void test_spike_alone_beside_a_longer_one(void **state)
{
	uint64_t k = (K + 1) * SLOT; /* sample K's start (new_trace()) */
	const struct tc_event ipi = {.start_ns = k + 6000,
				     .dur_ns = 2000,
				     .sent_ns = k + 2000,
				     .cpu = PROBE_CPU,
				     .kind = TC_EV_IPI};
	const struct tc_event timer[] = {
		{.start_ns = k + 500, .dur_ns = 6500, .cpu = PROBE_CPU, .kind = TC_EV_TIMER},
		{.start_ns = k + 5500,
		 .dur_ns = 500,
		 .func = 0xffffffff81234560ull,
		 .cpu = PROBE_CPU,
		 .kind = TC_EV_TIMER_FN},
	};

	(void)state;
	alone_and_beside(&ipi, 1);
	alone_and_beside(timer, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_matches_whole),
		cmocka_unit_test(test_stream_refuses_empty),
		cmocka_unit_test(test_spike_alone_beside_a_longer_one),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
