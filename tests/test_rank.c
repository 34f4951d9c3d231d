// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_rank.c - many nodes ranked (core/compare/rank.c): the order, a planted outlier,
 * the causes the worst nodes share, failing checks, a mismatch of probes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/compare/rank.h"

#define NODES 9

static struct sm_cause causes[NODES][2];

/* Node i: p99.9 of values[i] us, its top cause named cause, no audit. */
static void node(struct summary *s, size_t i, double us, const char *cause)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->host, sizeof(s->host), "node%zu", i);
	snprintf(s->source, sizeof(s->source), "node%zu.json", i);
	snprintf(s->probe, sizeof(s->probe), "verbs");
	s->div = 2;
	s->n = 1000000;
	s->pct[SM_P999] = us * 1000;
	s->pct[SM_P99] = us * 500;
	s->total_excess_ns = 1000;
	snprintf(causes[i][0].name, sizeof(causes[i][0].name), "%s", cause);
	causes[i][0].excess_ns = 700;
	causes[i][0].spikes = 7;
	snprintf(causes[i][1].name, sizeof(causes[i][1].name), "timer");
	causes[i][1].excess_ns = 300;
	s->causes = causes[i];
	s->n_causes = 2;
}

static void fleet(struct summary *s)
{
	static const double us[NODES] = {3.0, 3.2, 2.9, 3.1, 41.0, 3.0, 3.3, 2.8, 9.0};

	for (size_t i = 0; i < NODES; i++)
		node(&s[i], i, us[i], i == 4 || i == 8 ? "nic-irq:mlx5_comp2" : "preemption:cc1");
}

static void test_rank_order_and_outlier(void **state)
{
	struct summary s[NODES];
	struct rank *r = NULL;

	(void)state;
	fleet(s);
	assert_int_equal(rank__run(s, NODES, SM_P999, &r), 0);
	assert_int_equal(r->n, NODES);
	for (size_t i = 1; i < r->n; i++)
		assert_true(r->nodes[i - 1].value_ns >= r->nodes[i].value_ns);
	assert_string_equal(r->nodes[0].s->host, "node4");
	assert_string_equal(r->nodes[1].s->host, "node8");
	assert_true(r->median_ns == 3100);
	assert_int_equal(r->nodes[0].outlier, 1);
	assert_int_equal(r->nodes[1].outlier, 1);
	for (size_t i = 2; i < r->n; i++)
		assert_int_equal(r->nodes[i].outlier, 0);
	assert_int_equal(r->n_outliers, 2);
	assert_true(r->same_probe);
	rank__free(r);
	/* by another figure, the same order here (p99 is half of p99.9 in every node) */
	assert_int_equal(rank__run(s, NODES, SM_P99, &r), 0);
	assert_string_equal(r->nodes[0].s->host, "node4");
	rank__free(r);
}

/* The worst two share the NIC's IRQ; the rest share cc1, which is not among the worst. */
static void test_rank_shared_causes(void **state)
{
	struct summary s[NODES];
	struct rank *r = NULL;

	(void)state;
	fleet(s);
	assert_int_equal(rank__run(s, NODES, SM_P999, &r), 0);
	assert_int_equal(r->n_worst, 2);
	assert_int_equal(r->n_shared, 2);
	assert_string_equal(r->shared[0].name, "nic-irq:mlx5_comp2");
	assert_int_equal(r->shared[0].worst_nodes, 2);
	assert_int_equal(r->shared[0].all_nodes, 2);
	assert_string_equal(r->shared[1].name, "timer"); /* every node's second cause */
	assert_int_equal(r->shared[1].all_nodes, NODES);
	rank__free(r);
}

/* No spread (every node alike): no outlier, z 0. One node: ranked alone. */
static void test_rank_no_spread(void **state)
{
	struct summary s[3];
	struct rank *r = NULL;

	(void)state;
	for (size_t i = 0; i < 3; i++)
		node(&s[i], i, 5.0, "timer");
	assert_int_equal(rank__run(s, 3, SM_P999, &r), 0);
	assert_int_equal(r->n_outliers, 0);
	assert_true(r->nodes[0].z == 0);
	rank__free(r);
	assert_int_equal(rank__run(s, 1, SM_P999, &r), 0);
	assert_int_equal(r->n, 1);
	rank__free(r);
	assert_int_equal(rank__run(s, 0, SM_P999, &r), -EINVAL);
}

/* Failing checks come from the audit; a node of another probe is a mismatch. */
static void test_rank_checks_and_mismatch(void **state)
{
	struct summary s[NODES];
	struct rank *r = NULL;

	(void)state;
	fleet(s);
	s[4].has_audit = 1;
	s[4].audit.r[TC_AUDIT_IRQBALANCE].present = 1;
	s[4].audit.r[TC_AUDIT_IRQBALANCE].status = TC_AUDIT_FAIL;
	s[4].audit.r[TC_AUDIT_MTU].present = 1;
	s[4].audit.r[TC_AUDIT_MTU].status = TC_AUDIT_WARN;
	snprintf(s[7].probe, sizeof(s[7].probe), "shm");
	assert_int_equal(rank__run(s, NODES, SM_P999, &r), 0);
	assert_int_equal(r->nodes[0].n_failing, 1);
	assert_int_equal(r->nodes[0].failing[0], TC_AUDIT_IRQBALANCE);
	assert_false(r->same_probe);
	assert_non_null(strstr(r->mismatch, "node7.json"));
	rank__free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rank_order_and_outlier),
		cmocka_unit_test(test_rank_shared_causes),
		cmocka_unit_test(test_rank_no_spread),
		cmocka_unit_test(test_rank_checks_and_mismatch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
