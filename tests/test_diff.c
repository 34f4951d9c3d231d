// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_diff.c - two runs compared (core/compare/summary.c, core/compare/diff.c): intervals that
 * hold for runs of one distribution and catch a shift, the spike-count test, the
 * cause verdicts and the audit changes joined to the causes that moved.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "analyze_fixture.h"
#include "core/compare/diff.h"

#define RUN_N 20000

/* A run of RUN_N round trips of BASE_RTT * scale, jittered by a seeded LCG. */
static struct tc_trace *jittered(uint64_t seed, double scale)
{
	struct tc_trace *t = new_trace_n(RUN_N);

	for (size_t i = 0; i < RUN_N; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		set_rtt(t, i, (uint64_t)(BASE_RTT * scale) + (seed >> 33) % 200);
	}
	return t;
}

/* Two runs, analysed and summarized; the pair owns the traces. */
struct pair {
	struct tc_trace *t[2];
	struct tc_analysis *a[2];
	struct summary s[2];
};

static void summarize(struct pair *p, struct tc_trace *before, struct tc_trace *after)
{
	p->t[0] = before;
	p->t[1] = after;
	for (int i = 0; i < 2; i++) {
		p->a[i] = run(p->t[i]);
		assert_int_equal(summary_from_analysis(&p->s[i], p->t[i], p->a[i], 2, 500), 0);
		assert_int_equal(p->s[i].blocks.n, RUN_N / 500);
	}
}

static void pair_free(struct pair *p)
{
	for (int i = 0; i < 2; i++) {
		summary__free(&p->s[i]);
		analysis__free(p->a[i]);
		trace__free(p->t[i]);
	}
}

static struct diff *compare(const struct summary *b, const struct summary *a)
{
	struct diff_opts o = {.resamples = 400, .seed = 42};
	struct diff *d = NULL;

	assert_int_equal(diff__run(b, a, &o, &d), 0);
	return d;
}

/* Two runs of one distribution: no percentile moves significantly. */
static void test_diff_same_distribution_unchanged(void **state)
{
	struct tc_trace *t1 = jittered(1, 1.0), *t2 = jittered(2, 1.0);
	struct pair p;
	struct diff *d;

	(void)state;
	summarize(&p, t1, t2);
	d = compare(&p.s[0], &p.s[1]);
	assert_true(d->same_probe);
	for (int f = 0; f < SM_MAX; f++) {
		assert_true(d->figs[f].has_ci);
		assert_true(d->figs[f].lo_ns <= d->figs[f].hi_ns);
		assert_int_equal(d->figs[f].verdict, DF_UNCHANGED);
	}
	assert_false(d->figs[SM_MAX].has_ci);
	diff__free(d);
	/* and a run against itself */
	d = compare(&p.s[0], &p.s[0]);
	for (int f = 0; f < SM_MAX; f++)
		assert_int_equal(d->figs[f].verdict, DF_UNCHANGED);
	diff__free(d);
	pair_free(&p);
}

/* 20 % slower everywhere: every percentile worse, the interval around the shift. */
static void test_diff_shift_is_significant(void **state)
{
	struct tc_trace *t1 = jittered(1, 1.0), *t2 = jittered(2, 1.2);
	struct pair p;
	struct diff *d, *back;

	(void)state;
	summarize(&p, t1, t2);
	d = compare(&p.s[0], &p.s[1]);
	for (int f = 0; f <= SM_P99; f++) {
		assert_int_equal(d->figs[f].verdict, DF_WORSE);
		assert_true(d->figs[f].lo_ns > 0);
		/* one way: (1200 - 1000) / 2 = 100 ns, at the histogram's 1/128 resolution */
		assert_true(d->figs[f].lo_ns < 100 * 1.05 && d->figs[f].hi_ns > 100 * 0.95);
	}
	back = compare(&p.s[1], &p.s[0]);
	for (int f = 0; f <= SM_P99; f++)
		assert_int_equal(back->figs[f].verdict, DF_BETTER);
	diff__free(d);
	diff__free(back);
	pair_free(&p);
}

/* The exact test of two counts: equal rates are not significant, 100 against 0 is, 1 against 0 is
 * not. */
static void test_diff_rate_pvalue(void **state)
{
	(void)state;
	assert_true(diff_rate_pvalue(10, 1000000, 10, 1000000) > 0.99);
	assert_true(diff_rate_pvalue(100, 1000000, 0, 1000000) < 1e-20);
	assert_true(diff_rate_pvalue(1, 1000000, 0, 1000000) > 0.5);
	/* two-sided, as the binomial's: 10 against 0 is 2 x 2^-10 */
	assert_true(fabs(diff_rate_pvalue(10, 1000, 0, 1000) - 2.0 / 1024) < 1e-9);
	/* the rate, not the count: 20 of 2 M is the rate of 10 of 1 M */
	assert_true(diff_rate_pvalue(10, 1000000, 20, 2000000) > 0.99);
	/* large counts take the normal law and agree with the symmetry */
	assert_true(diff_rate_pvalue(5000, 1000000, 5000, 1000000) > 0.95);
	assert_true(diff_rate_pvalue(6000, 1000000, 4000, 1000000) < 1e-6);
}

/* A hog's preemptions before, none after, and irqbalance fixed: the causes' verdicts and the join.
 */
static void test_diff_causes_and_audit(void **state)
{
	struct tc_trace *t1 = jittered(1, 1.0), *t2 = jittered(2, 1.0);
	struct pair p;
	struct diff *d;
	int gone = 0, nic = 0;

	(void)state;
	for (size_t k = 0; k < 12; k++) {
		size_t i = 1000 + 1500 * k;

		set_rtt(t1, i, 9000);
		add_preempt(t1, t0(t1, i) + 100, 8000, "hog");
		set_rtt(t1, i + 700, 6000);
		add_irq(t1, TC_EV_HARDIRQ, PROBE_CPU, t0(t1, i + 700) + 100, 5000, 77);
	}
	assert_int_equal(trace__set_meta(t1, "audit.irqbalance.status", "fail"), 0);
	assert_int_equal(trace__set_meta(t1, "audit.irqbalance.summary", "irqbalance running"), 0);
	assert_int_equal(trace__set_meta(t2, "audit.irqbalance.status", "ok"), 0);
	assert_int_equal(trace__set_meta(t2, "audit.irqbalance.summary", "irqbalance not running"),
			 0);
	assert_int_equal(trace__set_meta(t1, "audit.memlock.status", "ok"), 0);
	assert_int_equal(trace__set_meta(t2, "audit.memlock.status", "ok"), 0);
	summarize(&p, t1, t2);
	d = compare(&p.s[0], &p.s[1]);
	for (size_t i = 0; i < d->n_causes; i++) {
		const struct df_cause *c = &d->causes[i];

		if (!strcmp(c->name, "preemption:hog")) {
			assert_int_equal(c->spikes[0], 12);
			assert_int_equal(c->spikes[1], 0);
			assert_true(fabs(c->spikes_pm[0] - 12e6 / RUN_N) < 1e-6);
			assert_int_equal(c->verdict, DF_GONE);
			gone = 1;
		}
		if (!strncmp(c->name, "nic-irq:mlx5_comp3", 18)) {
			assert_int_equal(c->verdict, DF_GONE);
			nic = (int)i + 1;
		}
	}
	assert_true(gone && nic);
	/* irqbalance changed and bears on the NIC's IRQs; memlock did not change */
	assert_int_equal(d->n_checks, 1);
	assert_int_equal(d->checks[0].id, TC_AUDIT_IRQBALANCE);
	assert_int_equal(d->checks[0].status[0], TC_AUDIT_FAIL);
	assert_int_equal(d->checks[0].status[1], TC_AUDIT_OK);
	assert_int_equal(d->checks[0].n_causes, 1);
	assert_int_equal(d->checks[0].causes[0], (size_t)(nic - 1));
	diff__free(d);
	pair_free(&p);
}

/* The same seed gives the same intervals; another seed, another draw of them. */
static void test_diff_seeded(void **state)
{
	struct tc_trace *t1 = jittered(1, 1.0), *t2 = jittered(2, 1.1);
	struct pair p;
	struct diff *d1, *d2;

	(void)state;
	summarize(&p, t1, t2);
	d1 = compare(&p.s[0], &p.s[1]);
	d2 = compare(&p.s[0], &p.s[1]);
	for (int f = 0; f < SM_MAX; f++) {
		assert_true(d1->figs[f].lo_ns == d2->figs[f].lo_ns);
		assert_true(d1->figs[f].hi_ns == d2->figs[f].hi_ns);
	}
	diff__free(d1);
	diff__free(d2);
	pair_free(&p);
}

/* A JSON report's names may hold anything (\u001b): the summary keeps them escaped. */
static void test_summary_from_json_escapes_text(void **state)
{
	static const char text[] =
		"{\"schema\": \"tailcause-report\", \"schema_version\": 1, \"report\": \"latency\","
		" \"host\": {\"name\": \"n\\u001b]0;x\\u0007\", \"kernel\": \"6\\u009b1\"},"
		" \"run\": {\"probe\": \"shm\\n\"},"
		" \"latency\": {\"stats\": {\"n\": 2, \"one_way\": true},"
		" \"histogram\": {\"buckets\": []},"
		" \"causes\": [{\"name\": \"preemption:hx\\u001b[2J\", \"class\": \"preemption\"}]},"
		" \"meta\": {\"audit.irqbalance.status\": \"warn\","
		" \"audit.irqbalance.summary\": \"on\\u001b[2J\"}}";
	struct jv_error je = {0};
	struct summary s;
	struct jv *root;
	char why[128];

	(void)state;
	assert_int_equal(jv_parse(text, sizeof(text) - 1, &root, &je), 0);
	assert_int_equal(summary_from_json(&s, root, why, sizeof(why)), 0);
	assert_string_equal(s.host, "n\\x1b]0;x\\x07");
	assert_string_equal(s.kernel, "6\\xc2\\x9b1");
	assert_string_equal(s.probe, "shm\\x0a");
	assert_int_equal(s.n_causes, 1);
	assert_string_equal(s.causes[0].name, "preemption:hx\\x1b[2J");
	assert_true(s.has_audit);
	assert_string_equal(s.audit.r[TC_AUDIT_IRQBALANCE].summary, "on\\x1b[2J");
	summary__free(&s);
	jv__free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_same_distribution_unchanged),
		cmocka_unit_test(test_summary_from_json_escapes_text),
		cmocka_unit_test(test_diff_shift_is_significant),
		cmocka_unit_test(test_diff_rate_pvalue),
		cmocka_unit_test(test_diff_causes_and_audit),
		cmocka_unit_test(test_diff_seeded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
