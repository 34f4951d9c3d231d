// SPDX-License-Identifier: BSD-2-Clause
/*
 * audit_join.c - which checks bear on which measured cause, and the sentence
 * that puts the two together.
 *
 * Causes are grouped by the rule that relates them to checks (all nic-irq:*
 * causes share one line, preemption:khugepaged gets the THP line). A line
 * names the spikes and the CPUs they hit, then either the related checks that
 * warn or fail with their fixes in checklist order (irqbalance before IRQ
 * binding: it would undo it), or, when every related check passed, the
 * catalogue's fix for the cause: the audit cannot explain it.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_join.h"
#include "lib/str.h"
#include "core/util/cpuset.h"

#define THP_CHECKS                                                                                 \
	{TC_AUDIT_THP_ENABLED, TC_AUDIT_THP_DEFRAG, TC_AUDIT_KHUGEPAGED, TC_AUDIT_COMPACTION}, 4
#define NIC_CHECKS {TC_AUDIT_IRQBALANCE, TC_AUDIT_NIC_IRQ, TC_AUDIT_COALESCE}, 3

/* The first rule that matches a cause applies; a NULL pattern matches any name. */
/* clang-format off */
static const struct join_rule {
	enum tc_cause_class cls;
	const char *pattern;
	enum tc_audit_check checks[TC_AUDIT_JOIN_CHECKS];
	size_t n_checks;
} rules[] = {
	{ TC_CAUSE_NIC_IRQ, NULL, NIC_CHECKS },
	{ TC_CAUSE_SOFTIRQ, "softirq:net_*", NIC_CHECKS },
	{ TC_CAUSE_SOFTIRQ, NULL, { TC_AUDIT_ISOLATION }, 1 },
	{ TC_CAUSE_HARDIRQ, NULL, { TC_AUDIT_IRQBALANCE, TC_AUDIT_ISOLATION }, 2 },
	{ TC_CAUSE_PREEMPTION, "preemption:khugepaged", THP_CHECKS },
	{ TC_CAUSE_PREEMPTION, "preemption:kcompactd*", THP_CHECKS },
	{ TC_CAUSE_PREEMPTION, "preemption:irqbalance", { TC_AUDIT_IRQBALANCE }, 1 },
	{ TC_CAUSE_PREEMPTION, NULL, { TC_AUDIT_ISOLATION }, 1 },
	{ TC_CAUSE_IPI, NULL, { TC_AUDIT_ISOLATION }, 1 },
	{ TC_CAUSE_TIMER, NULL, { TC_AUDIT_ISOLATION }, 1 },
	{ TC_CAUSE_MIGRATION, NULL, { TC_AUDIT_ISOLATION }, 1 },
	{ TC_CAUSE_THP_COMPACTION, NULL, THP_CHECKS },
	{ TC_CAUSE_IDLE_EXIT, NULL, { TC_AUDIT_CSTATES, TC_AUDIT_GOVERNOR }, 2 },
	{ TC_CAUSE_PAGE_FAULT, NULL, { TC_AUDIT_MEMLOCK, TC_AUDIT_THP_ENABLED }, 2 },
	{ TC_CAUSE_NIC_EVENT, NULL, { TC_AUDIT_RDMA_PORT }, 1 },
	{ TC_CAUSE_UNATTRIBUTED, NULL, { TC_AUDIT_RDMA_PORT, TC_AUDIT_MTU, TC_AUDIT_RINGS }, 3 },
	{ TC_CAUSE_RECLAIM, NULL, { 0 }, 0 },
	{ TC_CAUSE_SELF, NULL, { 0 }, 0 },
	{ TC_CAUSE_WORKQUEUE, NULL, { TC_AUDIT_ISOLATION }, 1 },
	{ TC_CAUSE_SMT_SIBLING, NULL, { TC_AUDIT_ISOLATION }, 1 },
	{ TC_CAUSE_SIGNAL, NULL, { 0 }, 0 },
	{ TC_CAUSE_NMI, NULL, { 0 }, 0 },
	{ TC_CAUSE_STEAL, NULL, { TC_AUDIT_STEAL }, 1 },
	{ TC_CAUSE_HW_NOISE, NULL, { TC_AUDIT_STEAL }, 1 },
	{ TC_CAUSE_VCPU_HALT, NULL, { TC_AUDIT_CSTATES, TC_AUDIT_STEAL }, 2 },
	{ TC_CAUSE_WAIT, NULL, { 0 }, 0 },
	{ TC_CAUSE_PATH, "path:pfc-pause", { TC_AUDIT_PFC, TC_AUDIT_ECN, TC_AUDIT_TRUST }, 3 },
	{ TC_CAUSE_PATH, "path:ecn", { TC_AUDIT_ECN, TC_AUDIT_PFC }, 2 },
	{ TC_CAUSE_PATH, "path:retransmit", { TC_AUDIT_PFC, TC_AUDIT_TRUST, TC_AUDIT_ECN,
					      TC_AUDIT_RDMA_PORT }, 4 },
	{ TC_CAUSE_PATH, "path:rnr", { 0 }, 0 },
	{ TC_CAUSE_PATH, NULL, { TC_AUDIT_PFC, TC_AUDIT_ECN, TC_AUDIT_RDMA_PORT, TC_AUDIT_MTU }, 4 },
};
/* clang-format on */
#define N_RULES	  (sizeof(rules) / sizeof(rules[0]))
#define TOP_NAMES 3

static int rule_for(enum tc_cause_class cls, const char *name)
{
	for (size_t i = 0; i < N_RULES; i++)
		if (rules[i].cls == cls &&
		    (!rules[i].pattern || !fnmatch(rules[i].pattern, name, 0)))
			return (int)i;
	return -1;
}

size_t audit_checks_for_cause(enum tc_cause_class cls, const char *name,
			      enum tc_audit_check out[TC_AUDIT_JOIN_CHECKS])
{
	int r = rule_for(cls, name);

	if (r < 0)
		return 0;
	memcpy(out, rules[r].checks, rules[r].n_checks * sizeof(out[0]));
	return rules[r].n_checks;
}

struct group {
	uint64_t spikes;
	size_t n_causes;
	uint32_t top[TOP_NAMES]; /* causes with the most spikes, most first */
	struct tc_cpuset cpus;	 /* where the primary intervals ran */
};

static void add_cause(struct group *g, const struct tc_analysis *a, uint32_t c)
{
	size_t n = g->n_causes < TOP_NAMES ? g->n_causes : TOP_NAMES;
	size_t i = n;

	g->spikes += a->causes[c].spikes;
	g->n_causes++;
	while (i > 0 && a->causes[g->top[i - 1]].spikes < a->causes[c].spikes) {
		if (i < TOP_NAMES)
			g->top[i] = g->top[i - 1];
		i--;
	}
	if (i < TOP_NAMES)
		g->top[i] = c;
}

/* The CPU of the spike's largest interval of its primary cause, or -1. */
static void probe_cpus(const struct tc_trace *t, struct tc_cpuset *s)
{
	cpuset_zero(s);
	for (size_t i = 0; i < t->n_threads; i++)
		if (t->threads[i].role == TC_THREAD_PROBE && t->threads[i].cpu != UINT32_MAX)
			cpuset_add(s, t->threads[i].cpu);
}

/* "412 spikes were nic-irq:mlx5_comp2" or "415 spikes were nic-irq (mlx5_comp2 412, ...)" */
static void write_head(char *buf, size_t len, const struct group *g, const struct tc_analysis *a)
{
	const struct tc_cause *c0 = &a->causes[g->top[0]];
	size_t prefix = strlen(causes_info(c0->cls)->prefix);
	size_t shown = g->n_causes < TOP_NAMES ? g->n_causes : TOP_NAMES;

	snprintf(buf, len, "%llu spike%s %s ", (unsigned long long)g->spikes,
		 g->spikes == 1 ? "" : "s", g->spikes == 1 ? "was" : "were");
	if (g->n_causes == 1) {
		str_appendf(buf, len, "%s", c0->name);
		return;
	}
	str_appendf(buf, len, "%s (", causes_info(c0->cls)->prefix);
	for (size_t i = 0; i < shown; i++) {
		const char *name = a->causes[g->top[i]].name;

		if (!strncmp(name, causes_info(c0->cls)->prefix, prefix) && name[prefix] == ':')
			name += prefix + 1;
		str_appendf(buf, len, "%s%s %llu", i ? ", " : "", name,
			    (unsigned long long)a->causes[g->top[i]].spikes);
	}
	if (g->n_causes > shown)
		str_appendf(buf, len, ", %zu more", g->n_causes - shown);
	str_appendf(buf, len, ")");
}

static void write_cpus(char *buf, size_t len, const struct group *g, const struct tc_cpuset *probe)
{
	struct tc_cpuset off;
	size_t n = cpuset_count(&g->cpus);
	char list[128];

	if (!n)
		return;
	cpuset_format(&g->cpus, list, sizeof(list));
	cpuset_andnot(&off, &g->cpus, probe);
	str_appendf(buf, len, " on CPU%s %s", n == 1 ? "" : "s", list);
	if (cpuset_empty(&off))
		str_appendf(buf, len, " (%s)", n == 1 ? "a probe CPU" : "probe CPUs");
}

/*
 * "; <finding>; <finding> — <fix>, then <fix>" for the related checks that warn
 * or fail; when none does, the checks that pass (with their findings), those
 * that could not be checked (see 'tailcause audit' for why) and the cause's own
 * fix; a line whose fixes an earlier line gave says so instead of repeating
 * them. Returns the worst status among the related checks present (UNKNOWN
 * when none is).
 */
static enum tc_audit_status write_checks(char *buf, size_t len, const struct tc_audit *au,
					 const struct join_rule *r, enum tc_cause_class cls,
					 int repeated)
{
	enum tc_audit_status worst = TC_AUDIT_OK;
	size_t present = 0, bad = 0, fixes = 0;

	for (size_t i = 0; i < r->n_checks; i++) {
		const struct tc_audit_result *res = &au->r[r->checks[i]];

		if (!res->present)
			continue;
		present++;
		if (res->status > worst)
			worst = res->status;
		if (res->status >= TC_AUDIT_WARN) {
			str_appendf(buf, len, "; %s", res->summary);
			bad++;
		}
	}
	if (bad && repeated) {
		str_appendf(buf, len, " \u2014 the same fix as above");
		return worst;
	}
	if (bad) {
		str_appendf(buf, len, " \u2014 ");
		for (size_t i = 0; i < r->n_checks; i++) {
			const struct tc_audit_result *res = &au->r[r->checks[i]];

			if (!res->present || res->status < TC_AUDIT_WARN || !res->fix[0])
				continue;
			str_appendf(buf, len, "%s%s", fixes++ ? ", then " : "", res->fix);
		}
		return worst;
	}
	for (size_t i = 0, k = 0; i < r->n_checks; i++) {
		const struct tc_audit_result *res = &au->r[r->checks[i]];

		if (res->present && res->status == TC_AUDIT_OK)
			str_appendf(buf, len, "%s %s (%s)", k++ ? "," : "; related checks pass:",
				    audit_info(r->checks[i])->name, res->summary);
	}
	for (size_t i = 0, k = 0; i < r->n_checks; i++) {
		const struct tc_audit_result *res = &au->r[r->checks[i]];

		if (res->present && res->status == TC_AUDIT_UNKNOWN)
			str_appendf(buf, len, "%s %s",
				    k++ ? "," : "; not checked:", audit_info(r->checks[i])->name);
	}
	str_appendf(buf, len, " \u2014 %s", causes_info(cls)->fix);
	return present ? worst : TC_AUDIT_UNKNOWN;
}

static void gather(const struct tc_analysis *a, struct group *groups, int *rule_of)
{
	for (size_t c = 0; c < a->n_causes; c++) {
		struct group *g;

		rule_of[c] = rule_for(a->causes[c].cls, a->causes[c].name);
		if (rule_of[c] < 0 || !a->causes[c].spikes)
			continue;
		g = &groups[rule_of[c]];
		add_cause(g, a, (uint32_t)c);
		cpuset_or(&g->cpus, &g->cpus, &a->causes[c].cpus);
	}
}

/* Whether an earlier line cited the same checks and gave their fixes. */
static int said_before(const struct tc_audit_join *out, size_t n, const struct join_rule *r)
{
	for (size_t i = 0; i < n; i++)
		if (out[i].worst >= TC_AUDIT_WARN && out[i].n_checks == r->n_checks &&
		    !memcmp(out[i].checks, r->checks, r->n_checks * sizeof(r->checks[0])))
			return 1;
	return 0;
}

int audit_join(const struct tc_audit *au, const struct tc_trace *t, const struct tc_analysis *a,
	       struct tc_audit_join *out, size_t max, size_t *n)
{
	struct group *groups = calloc(N_RULES, sizeof(*groups));
	int *rule_of = calloc(a->n_causes ? a->n_causes : 1, sizeof(*rule_of));
	struct tc_cpuset probe;

	*n = 0;
	if (!groups || !rule_of) {
		free(groups);
		free(rule_of);
		return -ENOMEM;
	}
	gather(a, groups, rule_of);
	probe_cpus(t, &probe);
	while (*n < max) {
		struct tc_audit_join *j = &out[*n];
		size_t best = N_RULES;

		for (size_t r = 0; r < N_RULES; r++)
			if (groups[r].spikes &&
			    (best == N_RULES || groups[r].spikes > groups[best].spikes))
				best = r;
		if (best == N_RULES)
			break;
		memset(j, 0, sizeof(*j));
		j->cls = rules[best].cls;
		j->spikes = groups[best].spikes;
		j->n_checks = rules[best].n_checks;
		memcpy(j->checks, rules[best].checks, sizeof(j->checks));
		write_head(j->text, sizeof(j->text), &groups[best], a);
		write_cpus(j->text, sizeof(j->text), &groups[best], &probe);
		j->worst = write_checks(j->text, sizeof(j->text), au, &rules[best], j->cls,
					said_before(out, *n, &rules[best]));
		groups[best].spikes = 0;
		(*n)++;
	}
	free(groups);
	free(rule_of);
	return 0;
}

size_t audit_join_unused(const struct tc_audit *au, const struct tc_audit_join *j, size_t n,
			 enum tc_audit_check *out)
{
	size_t k = 0;

	for (int c = 0; c < TC_AUDIT_CHECK_COUNT; c++) {
		int cited = 0;

		if (!au->r[c].present || au->r[c].status < TC_AUDIT_WARN)
			continue;
		for (size_t i = 0; i < n && !cited; i++)
			for (size_t m = 0; m < j[i].n_checks && !cited; m++)
				cited = j[i].checks[m] == (enum tc_audit_check)c;
		if (!cited)
			out[k++] = (enum tc_audit_check)c;
	}
	return k;
}
