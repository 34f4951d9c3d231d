// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_audit_host.c - the host checks of user/audit on fixture trees (audit_fixture.h):
 * THP and compaction, the probe CPUs' governor, C-states and isolation, and the
 * hypervisor's steal.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "audit_fixture.h"
#include "lib/str.h"

/* --- THP and compaction ------------------------------------------------------------- */

static void test_thp_never_is_ok(void **state)
{
	(void)state;
	put("/sys/kernel/mm/transparent_hugepage/khugepaged/defrag", "1");
	run();
	expect_status(TC_AUDIT_THP_ENABLED, TC_AUDIT_OK);
	expect_status(TC_AUDIT_THP_DEFRAG, TC_AUDIT_OK);
	/* khugepaged/defrag = 1 does not matter while THP is off */
	expect_status(TC_AUDIT_KHUGEPAGED, TC_AUDIT_OK);
	expect_status(TC_AUDIT_COMPACTION, TC_AUDIT_OK);
	expect_in(TC_AUDIT_THP_ENABLED, evidence, "enabled = always madvise [never]");
}

static void test_thp_always_fails(void **state)
{
	(void)state;
	put("/sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never");
	put("/sys/kernel/mm/transparent_hugepage/defrag",
	    "[always] defer defer+madvise madvise never");
	put("/sys/kernel/mm/transparent_hugepage/khugepaged/defrag", "1");
	run();
	expect_status(TC_AUDIT_THP_ENABLED, TC_AUDIT_FAIL);
	expect_in(TC_AUDIT_THP_ENABLED, fix,
		  "echo never > /sys/kernel/mm/transparent_hugepage/enabled");
	expect_status(TC_AUDIT_THP_DEFRAG, TC_AUDIT_FAIL);
	expect_status(TC_AUDIT_KHUGEPAGED, TC_AUDIT_WARN);
	assert_true(host_audit_failing(&au) > 0);
}

static void test_thp_madvise_and_defer_warn(void **state)
{
	(void)state;
	put("/sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never");
	put("/sys/kernel/mm/transparent_hugepage/defrag",
	    "always [defer] defer+madvise madvise never");
	run();
	expect_status(TC_AUDIT_THP_ENABLED, TC_AUDIT_WARN);
	expect_status(TC_AUDIT_THP_DEFRAG, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_THP_DEFRAG, summary, "defer");
}

static void test_thp_missing_is_unknown(void **state)
{
	(void)state;
	drop("/sys/kernel/mm/transparent_hugepage/enabled");
	drop("/sys/kernel/mm/transparent_hugepage/khugepaged/defrag");
	put("/sys/kernel/mm/transparent_hugepage/defrag", "garbage without brackets");
	run();
	expect_status(TC_AUDIT_THP_ENABLED, TC_AUDIT_UNKNOWN);
	expect_in(TC_AUDIT_THP_ENABLED, evidence, "missing");
	expect_status(TC_AUDIT_THP_DEFRAG, TC_AUDIT_UNKNOWN);
	expect_status(TC_AUDIT_KHUGEPAGED, TC_AUDIT_UNKNOWN);
}

static void test_compaction_stalls_warn(void **state)
{
	(void)state;
	put("/proc/vmstat", "compact_stall 17\ncompact_fail 3\nthp_collapse_alloc 9");
	run();
	expect_status(TC_AUDIT_COMPACTION, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_COMPACTION, summary, "17 direct compaction stalls");
	expect_in(TC_AUDIT_COMPACTION, evidence, "thp_collapse_alloc 9");
}

/* --- CPUs: governor, C-states, isolation -------------------------------------------- */

static void test_governor_performance_is_ok(void **state)
{
	(void)state;
	run();
	expect_status(TC_AUDIT_GOVERNOR, TC_AUDIT_OK);
	expect_in(TC_AUDIT_GOVERNOR, evidence, "cpu3: governor performance, driver intel_pstate");
}

static void test_governor_powersave_warns(void **state)
{
	(void)state;
	put("/sys/devices/system/cpu/cpu3/cpufreq/scaling_governor", "powersave");
	put("/sys/devices/system/cpu/cpu3/cpufreq/energy_performance_preference", "balance_power");
	run();
	expect_status(TC_AUDIT_GOVERNOR, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_GOVERNOR, summary, "probe CPU 3 runs the powersave governor");
	expect_in(TC_AUDIT_GOVERNOR, evidence, "balance_power");
	expect_in(TC_AUDIT_GOVERNOR, fix, "cpupower -c 3 frequency-set -g performance");
}

/* What the host holds is quoted escaped: a governor's name with an ESC in it. */
static void test_audit_texts_escaped(void **state)
{
	(void)state;
	put("/sys/devices/system/cpu/cpu3/cpufreq/scaling_governor", "power\x1b[2Jsave");
	run();
	expect_status(TC_AUDIT_GOVERNOR, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_GOVERNOR, summary, "the power\\x1b[2Jsave governor");
	expect_in(TC_AUDIT_GOVERNOR, evidence, "power\\x1b[2Jsave");
	for (int i = 0; i < TC_AUDIT_CHECK_COUNT; i++) {
		assert_false(str_needs_escape(au.r[i].summary));
		assert_false(str_needs_escape(au.r[i].evidence));
		assert_false(str_needs_escape(au.r[i].fix));
	}
}

static void test_governor_without_cpufreq_is_unknown(void **state)
{
	(void)state;
	drop("/sys/devices/system/cpu/cpu2/cpufreq/scaling_governor");
	drop("/sys/devices/system/cpu/cpu3/cpufreq/scaling_governor");
	run();
	expect_status(TC_AUDIT_GOVERNOR, TC_AUDIT_UNKNOWN);
	expect_in(TC_AUDIT_GOVERNOR, summary, "no cpufreq");
}

static void test_cstates_shallow_is_ok(void **state)
{
	(void)state;
	run();
	expect_status(TC_AUDIT_CSTATES, TC_AUDIT_OK);
	expect_in(TC_AUDIT_CSTATES, evidence, "cpu2: POLL 0us, C1 2us");
	expect_in(TC_AUDIT_CSTATES, evidence, "no intel_idle.max_cstate");
}

static void test_cstates_deep_fails(void **state)
{
	(void)state;
	cpu_state(3, 2, "C1E", 10, 0);
	cpu_state(3, 3, "C6", 133, 0);
	run();
	expect_status(TC_AUDIT_CSTATES, TC_AUDIT_FAIL);
	expect_in(TC_AUDIT_CSTATES, summary, "C1E, C6; exit up to 133 us");
	expect_in(TC_AUDIT_CSTATES, fix, "K in 2,3");
	expect_in(TC_AUDIT_CSTATES, fix, "intel_idle.max_cstate=1");
}

static void test_cstates_disabled_deep_c1e_warns(void **state)
{
	(void)state;
	cpu_state(2, 2, "C1E", 10, 0);
	cpu_state(2, 3, "C6", 133, 1);
	put("/proc/cmdline", "quiet intel_idle.max_cstate=2");
	run();
	expect_status(TC_AUDIT_CSTATES, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_CSTATES, evidence, "C6 133us (disabled)");
	expect_in(TC_AUDIT_CSTATES, evidence, "/proc/cmdline: intel_idle.max_cstate=2");
}

static void test_cstates_idle_poll_without_cpuidle_is_ok(void **state)
{
	(void)state;
	for (int cpu = 2; cpu <= 3; cpu++)
		for (int s = 1; s >= 0; s--) {
			static const char *const f[] = {"name", "latency", "disable", ""};
			char p[128];

			for (int i = 0; i < 4; i++) {
				snprintf(p, sizeof(p), STATE "%s", cpu, s, f[i]);
				drop(p);
			}
		}
	run();
	expect_status(TC_AUDIT_CSTATES, TC_AUDIT_UNKNOWN);
	put("/proc/cmdline", "quiet idle=poll");
	run();
	expect_status(TC_AUDIT_CSTATES, TC_AUDIT_OK);
}

static void test_isolation_full_is_ok(void **state)
{
	(void)state;
	run();
	expect_status(TC_AUDIT_ISOLATION, TC_AUDIT_OK);
	expect_in(TC_AUDIT_ISOLATION, evidence, "isolcpus=managed_irq,domain,2-3");
}

static void test_isolation_none_warns(void **state)
{
	(void)state;
	put("/proc/cmdline", "BOOT_IMAGE=/vmlinuz quiet");
	run();
	expect_status(TC_AUDIT_ISOLATION, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_ISOLATION, summary, "probe CPUs 2-3 not isolated");
	expect_in(TC_AUDIT_ISOLATION, fix,
		  "isolcpus=managed_irq,domain,2-3 nohz_full=2-3 rcu_nocbs=2-3");
}

static void test_isolation_partial_names_what_lacks(void **state)
{
	(void)state;
	put("/proc/cmdline", "isolcpus=2,3,5 nohz_full=3");
	run();
	expect_status(TC_AUDIT_ISOLATION, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_ISOLATION, summary, "not in nohz_full, rcu_nocbs");
	/* the probe CPUs are 2,3: only 3 in nohz_full is not enough */
	expect_in(TC_AUDIT_ISOLATION, fix, "nohz_full=2-3 rcu_nocbs=2-3");
}

static void test_isolation_after_init_separator_ignored(void **state)
{
	(void)state;
	put("/proc/cmdline", "quiet -- isolcpus=2-3 nohz_full=2-3 rcu_nocbs=2-3");
	run();
	expect_status(TC_AUDIT_ISOLATION, TC_AUDIT_WARN);
}

static void test_isolation_other_cpus_warn(void **state)
{
	struct host_audit_opts o = {.cpus = "4,5"};

	(void)state;
	assert_int_equal(run_opts(&o), 0);
	expect_status(TC_AUDIT_ISOLATION, TC_AUDIT_WARN);
	assert_string_equal(au.cpus, "4-5");
}

/* --- steal --------------------------------------------------------------------------- */

static void vm_with_steal(unsigned int steal2, unsigned int steal3)
{
	put("/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme de pse tsc msr hypervisor\n");
	put("/proc/stat",
	    "cpu  800 0 400 8800 0 0 0 0 0 0\ncpu2 100 0 50 10000 0 0 0 %u 0 0\n"
	    "cpu3 100 0 50 10000 0 0 0 %u 0 0\n",
	    steal2, steal3);
}

static void test_steal_bare_metal_is_ok(void **state)
{
	(void)state;
	run();
	expect_status(TC_AUDIT_STEAL, TC_AUDIT_OK);
	expect_in(TC_AUDIT_STEAL, summary, "bare metal");
}

static void test_steal_vm_without_steal_is_ok(void **state)
{
	(void)state;
	vm_with_steal(0, 0);
	run();
	expect_status(TC_AUDIT_STEAL, TC_AUDIT_OK);
	expect_in(TC_AUDIT_STEAL, summary, "a VM");
	expect_in(TC_AUDIT_STEAL, evidence, "cpu3: steal 0.00 s");
}

static void test_steal_some_warns_much_fails(void **state)
{
	(void)state;
	/* 5 ticks of 10155 on CPU 2 (0.05 %): a warning */
	vm_with_steal(5, 0);
	run();
	expect_status(TC_AUDIT_STEAL, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_STEAL, summary, "probe CPU 2");
	expect_in(TC_AUDIT_STEAL, fix, "dedicated, pinned vCPUs");
	/* 300 ticks of 10450 on CPU 3 (2.9 %): the worst CPU decides */
	vm_with_steal(5, 300);
	run();
	expect_status(TC_AUDIT_STEAL, TC_AUDIT_FAIL);
	expect_in(TC_AUDIT_STEAL, summary, "2.87 % of probe CPU 3");
	expect_in(TC_AUDIT_STEAL, evidence, "cpu3: steal 3.00 s of 104 s since boot");
}

static void test_steal_cpu_missing_is_unknown(void **state)
{
	(void)state;
	vm_with_steal(0, 0);
	put("/proc/stat", "cpu  800 0 400 8800 0 0 0 0 0 0\ncpu2 100 0 50 10000 0 0 0 0 0 0\n");
	run();
	expect_status(TC_AUDIT_STEAL, TC_AUDIT_UNKNOWN);
	expect_in(TC_AUDIT_STEAL, summary, "CPU 3");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_thp_never_is_ok),
		T(test_audit_texts_escaped),
		T(test_thp_always_fails),
		T(test_thp_madvise_and_defer_warn),
		T(test_thp_missing_is_unknown),
		T(test_compaction_stalls_warn),
		T(test_governor_performance_is_ok),
		T(test_governor_powersave_warns),
		T(test_governor_without_cpufreq_is_unknown),
		T(test_cstates_shallow_is_ok),
		T(test_cstates_deep_fails),
		T(test_cstates_disabled_deep_c1e_warns),
		T(test_cstates_idle_poll_without_cpuidle_is_ok),
		T(test_isolation_full_is_ok),
		T(test_isolation_none_warns),
		T(test_isolation_partial_names_what_lacks),
		T(test_isolation_after_init_separator_ignored),
		T(test_isolation_other_cpus_warn),
		T(test_steal_bare_metal_is_ok),
		T(test_steal_vm_without_steal_is_ok),
		T(test_steal_some_warns_much_fails),
		T(test_steal_cpu_missing_is_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
