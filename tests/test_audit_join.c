// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_audit_join.c - the audit model (catalogue, statuses, the snapshot as
 * trace meta keys, kernel command-line lookup) and the join of a snapshot to
 * measured causes, on hand-built analyses: which checks a cause relates to and
 * the exact sentence the report prints.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/model/audit_join.h"

/* --- a hand-built analysis: probe threads on CPUs 2 and 3 ------------------------------- */

static struct tc_trace *t;
static struct tc_analysis an;
static struct tc_cause causes[8];
static struct tc_spike spikes[16];
static struct tc_contrib contribs[16];
static struct tc_audit au;
static struct tc_audit_join j[8];
static size_t nj;

static int setup(void **state)
{
	(void)state;
	memset(&an, 0, sizeof(an));
	memset(&au, 0, sizeof(au));
	t = trace__new();
	if (!t || trace__add_thread(t, 100, TC_THREAD_PROBE, 2) ||
	    trace__add_thread(t, 101, TC_THREAD_PROBE, 3))
		return -1;
	an.causes = causes;
	an.spikes = spikes;
	an.contribs = contribs;
	causes[0] = (struct tc_cause){.name = "unattributed", .cls = TC_CAUSE_UNATTRIBUTED};
	an.n_causes = 1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	trace__free(t);
	return 0;
}

static uint32_t cause(const char *name, enum tc_cause_class cls, uint64_t n_spikes)
{
	struct tc_cause *c = &causes[an.n_causes];

	*c = (struct tc_cause){.cls = cls, .spikes = n_spikes};
	snprintf(c->name, sizeof(c->name), "%s", name);
	return (uint32_t)an.n_causes++;
}

/* One spike record whose primary cause c ran on cpu, as the analysis notes it (the cause's
 * spike count is set apart). */
static void spike_on(uint32_t c, uint32_t cpu)
{
	struct tc_event e = {.start_ns = 1000 * (t->n_events + 1), .dur_ns = 500, .cpu = cpu};

	assert_int_equal(trace__add_events(t, &e, 1), 0);
	contribs[an.n_contribs] =
		(struct tc_contrib){.event = t->n_events - 1, .cause = c, .attributed_ns = 400};
	spikes[an.n_spikes++] = (struct tc_spike){
		.primary = c, .first_contrib = an.n_contribs++, .n_contrib = 1, .explained = 0.8};
	cpuset_add(&causes[c].cpus, cpu);
}

static void check(enum tc_audit_check id, enum tc_audit_status st, const char *summary,
		  const char *fix)
{
	struct tc_audit_result *r = &au.r[id];

	r->present = 1;
	r->status = st;
	snprintf(r->summary, sizeof(r->summary), "%s", summary);
	snprintf(r->fix, sizeof(r->fix), "%s", fix);
	snprintf(r->evidence, sizeof(r->evidence), "read for %s", summary);
}

static void join(size_t max)
{
	assert_int_equal(audit_join(&au, t, &an, j, max, &nj), 0);
}

#define IRQBALANCE_RUNNING "irqbalance is running (pid 812) and will undo manual IRQ affinity"
#define IRQBALANCE_FIX	   "stop and disable irqbalance: systemctl disable --now irqbalance"
#define MLX5_ON_PROBE	   "2 IRQs of mlx5_0 on probe CPU 3"
#define MLX5_BIND	   "bind the mlx5_0 IRQs to CPUs 0-1,4-7 (NUMA node 0)"

/* --- join -------------------------------------------------------------------------------- */

static void test_join_nic_irq_cites_irqbalance_then_binding(void **state)
{
	uint32_t c;

	(void)state;
	c = cause("nic-irq:mlx5_comp2", TC_CAUSE_NIC_IRQ, 412);
	for (int i = 0; i < 3; i++)
		spike_on(c, 3);
	check(TC_AUDIT_IRQBALANCE, TC_AUDIT_FAIL, IRQBALANCE_RUNNING, IRQBALANCE_FIX);
	check(TC_AUDIT_NIC_IRQ, TC_AUDIT_FAIL, MLX5_ON_PROBE, MLX5_BIND);
	check(TC_AUDIT_COALESCE, TC_AUDIT_OK, "eth2: adaptive RX coalescing", "");
	check(TC_AUDIT_THP_ENABLED, TC_AUDIT_FAIL, "THP enabled = always", "echo never");
	join(8);
	assert_int_equal(nj, 1);
	assert_string_equal(
		j[0].text,
		"412 spikes were nic-irq:mlx5_comp2 on CPU 3 (a probe CPU); " IRQBALANCE_RUNNING
		"; " MLX5_ON_PROBE " \u2014 " IRQBALANCE_FIX ", then " MLX5_BIND);
	assert_int_equal(j[0].cls, TC_CAUSE_NIC_IRQ);
	assert_int_equal(j[0].spikes, 412);
	assert_int_equal(j[0].worst, TC_AUDIT_FAIL);
}

static void test_join_groups_the_causes_of_one_rule(void **state)
{
	uint32_t a, b;

	(void)state;
	a = cause("nic-irq:mlx5_comp2", TC_CAUSE_NIC_IRQ, 3);
	b = cause("nic-irq:mlx5_comp5", TC_CAUSE_NIC_IRQ, 412);
	spike_on(a, 2);
	spike_on(b, 3);
	check(TC_AUDIT_IRQBALANCE, TC_AUDIT_WARN, "irqbalance is enabled", "disable it");
	join(8);
	assert_int_equal(nj, 1);
	assert_string_equal(j[0].text, "415 spikes were nic-irq (mlx5_comp5 412, mlx5_comp2 3) on "
				       "CPUs 2-3 (probe CPUs); irqbalance is enabled \u2014 "
				       "disable it");
}

static void test_join_related_checks_ok_gives_the_cause_fix(void **state)
{
	char want[1024];
	uint32_t c;

	(void)state;
	c = cause("preemption:stress", TC_CAUSE_PREEMPTION, 5);
	spike_on(c, 2);
	check(TC_AUDIT_ISOLATION, TC_AUDIT_OK, "probe CPUs 2-3 in isolcpus", "");
	join(8);
	snprintf(want, sizeof(want),
		 "5 spikes were preemption:stress on CPU 2 (a probe CPU); related checks pass: "
		 "isolation (probe CPUs 2-3 in isolcpus) \u2014 %s",
		 causes_info(TC_CAUSE_PREEMPTION)->fix);
	assert_string_equal(j[0].text, want);
	assert_int_equal(j[0].worst, TC_AUDIT_OK);
}

static void test_join_khugepaged_preemption_is_a_thp_matter(void **state)
{
	uint32_t c;

	(void)state;
	c = cause("preemption:khugepaged", TC_CAUSE_PREEMPTION, 1);
	spike_on(c, 3);
	check(TC_AUDIT_ISOLATION, TC_AUDIT_WARN, "probe CPUs 2-3 not isolated",
	      "boot with isolcpus");
	check(TC_AUDIT_THP_ENABLED, TC_AUDIT_WARN, "THP enabled = madvise", "echo never > enabled");
	check(TC_AUDIT_KHUGEPAGED, TC_AUDIT_WARN, "khugepaged compacts", "echo 0 > defrag");
	join(8);
	assert_string_equal(j[0].text, "1 spike was preemption:khugepaged on CPU 3 (a probe CPU); "
				       "THP enabled = madvise; khugepaged compacts \u2014 "
				       "echo never > enabled, then echo 0 > defrag");
}

static void test_join_softirq_net_rx_goes_with_the_nic(void **state)
{
	uint32_t net, rcu;

	(void)state;
	net = cause("softirq:net_rx", TC_CAUSE_SOFTIRQ, 7);
	rcu = cause("softirq:rcu", TC_CAUSE_SOFTIRQ, 2);
	spike_on(net, 3);
	spike_on(rcu, 2);
	check(TC_AUDIT_NIC_IRQ, TC_AUDIT_WARN, "4 IRQs of mlx5_0 off its NUMA node 1", "bind");
	check(TC_AUDIT_ISOLATION, TC_AUDIT_WARN, "not isolated", "isolate");
	join(8);
	assert_int_equal(nj, 2);
	assert_string_equal(j[0].text, "7 spikes were softirq:net_rx on CPU 3 (a probe CPU); "
				       "4 IRQs of mlx5_0 off its NUMA node 1 \u2014 bind");
	assert_string_equal(j[1].text, "2 spikes were softirq:rcu on CPU 2 (a probe CPU); "
				       "not isolated \u2014 isolate");
}

static void test_join_does_not_repeat_a_fix(void **state)
{
	(void)state;
	spike_on(cause("preemption:stress", TC_CAUSE_PREEMPTION, 8), 2);
	spike_on(cause("timer", TC_CAUSE_TIMER, 1), 3);
	check(TC_AUDIT_ISOLATION, TC_AUDIT_WARN, "not isolated", "boot with isolcpus=2-3");
	join(8);
	assert_int_equal(nj, 2);
	assert_string_equal(j[0].text, "8 spikes were preemption:stress on CPU 2 (a probe CPU); "
				       "not isolated \u2014 boot with isolcpus=2-3");
	assert_string_equal(j[1].text, "1 spike was timer on CPU 3 (a probe CPU); not isolated "
				       "\u2014 the same fix as above");
}

static void test_join_orders_by_spikes_and_stops_at_max(void **state)
{
	(void)state;
	spike_on(cause("timer", TC_CAUSE_TIMER, 2), 2);
	spike_on(cause("idle-exit", TC_CAUSE_IDLE_EXIT, 9), 2);
	spike_on(cause("thp-compaction", TC_CAUSE_THP_COMPACTION, 4), 3);
	join(2);
	assert_int_equal(nj, 2);
	assert_int_equal(j[0].cls, TC_CAUSE_IDLE_EXIT);
	assert_int_equal(j[1].cls, TC_CAUSE_THP_COMPACTION);
	assert_non_null(
		strstr(j[0].text, "9 spikes were idle-exit on CPU 2 (a probe CPU) \u2014 "));
}

static void test_join_unknown_checks_and_no_checks(void **state)
{
	char want[1024];
	uint32_t c, s;

	(void)state;
	c = cause("idle-exit", TC_CAUSE_IDLE_EXIT, 3);
	s = cause("self", TC_CAUSE_SELF, 1);
	spike_on(c, 2);
	spike_on(s, 3);
	check(TC_AUDIT_CSTATES, TC_AUDIT_OK, "no C-state deeper than 2 us", "");
	check(TC_AUDIT_GOVERNOR, TC_AUDIT_UNKNOWN, "no cpufreq on CPU 2", "");
	join(8);
	assert_int_equal(nj, 2);
	snprintf(
		want, sizeof(want),
		"3 spikes were idle-exit on CPU 2 (a probe CPU); related checks pass: c-states (no "
		"C-state deeper than 2 us); not checked: cpu-governor \u2014 %s",
		causes_info(TC_CAUSE_IDLE_EXIT)->fix);
	assert_string_equal(j[0].text, want);
	assert_int_equal(j[0].worst, TC_AUDIT_UNKNOWN);
	snprintf(want, sizeof(want), "1 spike was self on CPU 3 (a probe CPU) \u2014 %s",
		 causes_info(TC_CAUSE_SELF)->fix);
	assert_string_equal(j[1].text, want);
}

static void test_join_cpu_off_the_probe_is_not_called_a_probe_cpu(void **state)
{
	(void)state;
	spike_on(cause("hardirq:eth0", TC_CAUSE_HARDIRQ, 1), 5);
	join(8);
	assert_non_null(strstr(j[0].text, "1 spike was hardirq:eth0 on CPU 5 \u2014 "));
}

static void test_join_unused_lists_findings_no_cause_cites(void **state)
{
	enum tc_audit_check ids[TC_AUDIT_CHECK_COUNT];
	size_t n;

	(void)state;
	spike_on(cause("nic-irq:mlx5_comp2", TC_CAUSE_NIC_IRQ, 1), 3);
	check(TC_AUDIT_IRQBALANCE, TC_AUDIT_FAIL, IRQBALANCE_RUNNING, IRQBALANCE_FIX);
	check(TC_AUDIT_THP_ENABLED, TC_AUDIT_WARN, "THP enabled = madvise", "echo never");
	check(TC_AUDIT_MEMLOCK, TC_AUDIT_FAIL, "RLIMIT_MEMLOCK 32 KiB", "ulimit -l unlimited");
	check(TC_AUDIT_MTU, TC_AUDIT_OK, "eth2: MTU 9000", "");
	join(8);
	n = audit_join_unused(&au, j, nj, ids);
	assert_int_equal(n, 2);
	assert_int_equal(ids[0], TC_AUDIT_THP_ENABLED);
	assert_int_equal(ids[1], TC_AUDIT_MEMLOCK);
}

static void test_checks_for_cause(void **state)
{
	enum tc_audit_check ids[TC_AUDIT_JOIN_CHECKS];

	(void)state;
	assert_int_equal(audit_checks_for_cause(TC_CAUSE_NIC_IRQ, "nic-irq:mlx5_comp0", ids), 3);
	assert_int_equal(ids[0], TC_AUDIT_IRQBALANCE);
	assert_int_equal(ids[1], TC_AUDIT_NIC_IRQ);
	assert_int_equal(audit_checks_for_cause(TC_CAUSE_SOFTIRQ, "softirq:timer", ids), 1);
	assert_int_equal(ids[0], TC_AUDIT_ISOLATION);
	assert_int_equal(audit_checks_for_cause(TC_CAUSE_PREEMPTION, "preemption:kcompactd0", ids),
			 4);
	assert_int_equal(ids[0], TC_AUDIT_THP_ENABLED);
	assert_int_equal(audit_checks_for_cause(TC_CAUSE_IDLE_EXIT, "idle-exit", ids), 2);
	assert_int_equal(ids[0], TC_AUDIT_CSTATES);
	assert_int_equal(audit_checks_for_cause(TC_CAUSE_SELF, "self", ids), 0);
}

/* --- the model ---------------------------------------------------------------------------- */

static void test_meta_round_trip(void **state)
{
	struct tc_audit back;

	(void)state;
	assert_int_equal(audit_from_meta(t, &back), -ENOENT);
	snprintf(au.cpus, sizeof(au.cpus), "2-3");
	check(TC_AUDIT_IRQBALANCE, TC_AUDIT_FAIL, IRQBALANCE_RUNNING, IRQBALANCE_FIX);
	check(TC_AUDIT_MEMLOCK, TC_AUDIT_OK, "RLIMIT_MEMLOCK unlimited", "");
	assert_int_equal(audit_to_meta(&au, t), 0);
	assert_string_equal(trace__meta(t, "audit.irqbalance.status"), "fail");
	assert_string_equal(trace__meta(t, "audit.memlock.evidence"),
			    "read for RLIMIT_MEMLOCK unlimited");
	assert_null(trace__meta(t, "audit.thp-enabled.status"));
	assert_int_equal(audit_from_meta(t, &back), 0);
	assert_memory_equal(&back, &au, sizeof(au));

	/* a status a newer writer invented reads as unknown */
	assert_int_equal(trace__set_meta(t, "audit.memlock.status", "excellent"), 0);
	assert_int_equal(audit_from_meta(t, &back), 0);
	assert_int_equal(back.r[TC_AUDIT_MEMLOCK].status, TC_AUDIT_UNKNOWN);
}

static void test_catalogue_and_status_names(void **state)
{
	enum tc_audit_status st;

	(void)state;
	for (int i = 0; i < TC_AUDIT_CHECK_COUNT; i++) {
		const struct tc_audit_info *info = audit_info((enum tc_audit_check)i);

		assert_int_equal(info->id, i);
		assert_int_equal(audit_check_by_name(info->name), i);
		assert_true(info->title[0] && info->why[0]);
	}
	assert_null(audit_info(TC_AUDIT_CHECK_COUNT));
	assert_int_equal(audit_check_by_name("nope"), -ENOENT);
	assert_int_equal(audit_status_parse("warn", &st), 0);
	assert_int_equal(st, TC_AUDIT_WARN);
	assert_string_equal(audit_status_name(TC_AUDIT_UNKNOWN), "unknown");
	assert_int_equal(audit_status_parse("WARN", &st), -EINVAL);
}

static void test_cmdline_param(void **state)
{
	const char *cl = "BOOT_IMAGE=/vmlinuz nohz isolcpus=1 isolcpus_x=9 isolcpus=domain,2-3 "
			 "quiet foo=\"a b\" -- isolcpus=7 nohz_full=7";
	char v[64];

	(void)state;
	assert_int_equal(audit_cmdline_param(cl, "isolcpus", v, sizeof(v)), 1);
	assert_string_equal(v, "domain,2-3"); /* the last one wins, as in the kernel */
	assert_int_equal(audit_cmdline_param(cl, "nohz", v, sizeof(v)), 1);
	assert_string_equal(v, "");
	assert_int_equal(audit_cmdline_param(cl, "foo", v, sizeof(v)), 1);
	assert_string_equal(v, "a b");
	assert_int_equal(audit_cmdline_param(cl, "nohz_full", v, sizeof(v)), 0);
	assert_int_equal(audit_cmdline_param(cl, "isolcpus_", v, sizeof(v)), 0);
	assert_int_equal(audit_cmdline_param("", "quiet", v, sizeof(v)), 0);
}

/* A trace keeps the parameters that bear on latency, the audit's among them, and no other. */
static void test_cmdline_latency_keeps_only_tuning(void **state)
{
	const char *cl =
		"BOOT_IMAGE=/vmlinuz-6.8 root=UUID=0c4e-77 ro quiet isolcpus=managed_irq,2-3 "
		"nohz_full=2-3 rcu_nocbs=2-3 idle=poll intel_idle.max_cstate=0 "
		"processor.max_cstate=1 transparent_hugepage=never nohz irqaffinity=0-1 "
		"mitigations=off isolcpus_x=9 cryptdevice=/dev/sda2:root "
		"foo=\"isolcpus=1 b\" -- nohz_full=7 --secret";
	static const char *const audit_reads[] = {"isolcpus",
						  "nohz_full",
						  "rcu_nocbs",
						  "idle",
						  "intel_idle.max_cstate",
						  "processor.max_cstate"};
	char out[512], small[24];
	size_t n;

	(void)state;
	n = audit_cmdline_latency(cl, out, sizeof(out));
	assert_int_equal(n, strlen(out));
	assert_string_equal(out, "isolcpus=managed_irq,2-3 nohz_full=2-3 rcu_nocbs=2-3 idle=poll "
				 "intel_idle.max_cstate=0 processor.max_cstate=1 "
				 "transparent_hugepage=never nohz irqaffinity=0-1 mitigations=off");
	/* what the audit reads of the command line reads the same from what is kept */
	for (size_t i = 0; i < sizeof(audit_reads) / sizeof(audit_reads[0]); i++) {
		char a[64], b[64];

		assert_int_equal(audit_cmdline_param(out, audit_reads[i], a, sizeof(a)),
				 audit_cmdline_param(cl, audit_reads[i], b, sizeof(b)));
		assert_string_equal(a, b);
	}
	/* a parameter that does not fit is left out, not cut */
	assert_int_equal(audit_cmdline_latency(cl, small, sizeof(small)), 23);
	assert_string_equal(small, "nohz_full=2-3 idle=poll");
	assert_int_equal(audit_cmdline_latency("root=/dev/vda rw", out, sizeof(out)), 0);
	assert_string_equal(out, "");
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_join_nic_irq_cites_irqbalance_then_binding),
		T(test_join_groups_the_causes_of_one_rule),
		T(test_join_related_checks_ok_gives_the_cause_fix),
		T(test_join_khugepaged_preemption_is_a_thp_matter),
		T(test_join_softirq_net_rx_goes_with_the_nic),
		T(test_join_does_not_repeat_a_fix),
		T(test_join_orders_by_spikes_and_stops_at_max),
		T(test_join_unknown_checks_and_no_checks),
		T(test_join_cpu_off_the_probe_is_not_called_a_probe_cpu),
		T(test_join_unused_lists_findings_no_cause_cites),
		T(test_checks_for_cause),
		T(test_meta_round_trip),
		T(test_catalogue_and_status_names),
		T(test_cmdline_param),
		T(test_cmdline_latency_keeps_only_tuning),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
