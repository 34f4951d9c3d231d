// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_audit.c - every check of user/audit against fixture trees: each test
 * builds a small sysfs/procfs/etc under a fresh temporary root (an 8-CPU,
 * two-node host whose probe CPUs are 2,3, tuned by default), changes what it
 * is about, runs the audit with that root and looks at the statuses and texts.
 * The ethtool ioctl and libibverbs come from fake ops.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <linux/ethtool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit/audit_print.h"
#include "audit/host_audit.h"

static char root[PATH_MAX];
static struct tc_audit au;

/* --- fixture tree -------------------------------------------------------------- */

static void mkdirs(const char *logical)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", root, logical);
	for (char *p = path + strlen(root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

static void put(const char *logical, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes a file (its directories made as needed), content as printf, plus a newline. */
static void put(const char *logical, const char *fmt, ...)
{
	char path[PATH_MAX], dir[PATH_MAX];
	va_list ap;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", logical);
	*strrchr(dir, '/') = 0;
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s%s", root, logical);
	f = fopen(path, "w");
	assert_non_null(f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

static void link_at(const char *logical, const char *target)
{
	char path[PATH_MAX], dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", logical);
	*strrchr(dir, '/') = 0;
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s%s", root, logical);
	assert_int_equal(symlink(target, path), 0);
}

/* Removes a file or an empty directory. */
static void drop(const char *logical)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", root, logical);
	assert_int_equal(remove(path), 0);
}

#define STATE "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/"

static void cpu_state(int cpu, int s, const char *name, int latency, int disable)
{
	char p[128];

	snprintf(p, sizeof(p), STATE "name", cpu, s);
	put(p, "%s", name);
	snprintf(p, sizeof(p), STATE "latency", cpu, s);
	put(p, "%d", latency);
	snprintf(p, sizeof(p), STATE "disable", cpu, s);
	put(p, "%d", disable);
}

/* A tuned 8-CPU host: node0 = CPUs 0-3, node1 = 4-7, no NIC. */
static void base_host(void)
{
	put("/sys/devices/system/cpu/online", "0-7");
	put("/sys/devices/system/node/node0/cpulist", "0-3");
	put("/sys/devices/system/node/node1/cpulist", "4-7");
	put("/proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 isolcpus=managed_irq,domain,2-3 "
			     "nohz_full=2-3 rcu_nocbs=2-3 quiet");
	put("/proc/1/comm", "systemd");
	put("/proc/700/comm", "sshd");
	mkdirs("/etc/systemd/system/multi-user.target.wants");
	put("/sys/kernel/mm/transparent_hugepage/enabled", "always madvise [never]");
	put("/sys/kernel/mm/transparent_hugepage/defrag",
	    "always defer defer+madvise madvise [never]");
	put("/sys/kernel/mm/transparent_hugepage/khugepaged/defrag", "0");
	put("/proc/vmstat", "nr_free_pages 1000\ncompact_stall 0\ncompact_fail 0\n"
			    "thp_collapse_alloc 0");
	put("/sys/devices/system/cpu/cpuidle/current_driver", "intel_idle");
	for (int cpu = 2; cpu <= 3; cpu++) {
		char p[96];

		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
			 cpu);
		put(p, "performance");
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_driver", cpu);
		put(p, "intel_pstate");
		cpu_state(cpu, 0, "POLL", 0, 0);
		cpu_state(cpu, 1, "C1", 2, 0);
	}
	put("/proc/self/limits", "Limit                     Soft Limit           Hard Limit"
				 "           Units     \n"
				 "Max locked memory         unlimited            unlimited"
				 "            bytes     ");
	put("/proc/self/status", "Name:\ttailcause\nCapEff:\t0000000000000000");
}

#define PCI "/sys/devices/pci0000:80/0000:81:00.0"

/*
 * RDMA device mlx5_0 (netdev eth2, MTU mtu) on NUMA node node with IRQs 100..103
 * (mlx5_comp0..3); IRQ 100+i runs on eff[i] and may run on allowed[i].
 */
static void add_mlx5(int node, const char *const eff[4], const char *const allowed[4], int mtu)
{
	put(PCI "/numa_node", "%d", node);
	mkdirs(PCI "/net/eth2");
	link_at("/sys/class/infiniband/mlx5_0/device", "../../../devices/pci0000:80/0000:81:00.0");
	link_at("/sys/class/net/eth2/device", "../../../devices/pci0000:80/0000:81:00.0");
	put("/sys/class/net/eth2/mtu", "%d", mtu);
	put("/sys/class/net/eth2/type", "1");
	for (int i = 0; i < 4; i++) {
		char p[96];

		snprintf(p, sizeof(p), PCI "/msi_irqs/%d", 100 + i);
		put(p, "msix");
		snprintf(p, sizeof(p), "/proc/irq/%d/smp_affinity_list", 100 + i);
		put(p, "%s", allowed[i]);
		snprintf(p, sizeof(p), "/proc/irq/%d/effective_affinity_list", 100 + i);
		put(p, "%s", eff[i]);
		snprintf(p, sizeof(p), "/proc/irq/%d/node", 100 + i);
		put(p, "%d", node);
		snprintf(p, sizeof(p), "/sys/kernel/irq/%d/actions", 100 + i);
		put(p, "mlx5_comp%d@pci:0000:81:00.0", i);
	}
}

static const char *const on_node1[4] = {"4", "5", "6", "7"};
static const char *const node1[4] = {"4-7", "4-7", "4-7", "4-7"};

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/tc-audit-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	base_host();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* --- fake ethtool and verbs ------------------------------------------------------- */

static struct ethtool_ringparam fake_ring;
static struct ethtool_coalesce fake_coal;
static int fake_ethtool_err;
static struct audit_port fake_ports[4];
static size_t n_fake_ports;

static int fake_ethtool(const char *ifname, void *cmd)
{
	(void)ifname;
	if (fake_ethtool_err)
		return fake_ethtool_err;
	if (*(uint32_t *)cmd == ETHTOOL_GRINGPARAM)
		memcpy(cmd, &fake_ring, sizeof(fake_ring));
	else if (*(uint32_t *)cmd == ETHTOOL_GCOALESCE)
		memcpy(cmd, &fake_coal, sizeof(fake_coal));
	else
		return -EOPNOTSUPP;
	return 0;
}

static int fake_rdma_ports(struct audit_port *out, size_t max, size_t *n, char *why, size_t len)
{
	*n = n_fake_ports < max ? n_fake_ports : max;
	memcpy(out, fake_ports, *n * sizeof(*out));
	if (!*n)
		snprintf(why, len, "no RDMA device (ibv_devinfo lists none)");
	return 0;
}

static const struct audit_ops fake_ops = {fake_ethtool, fake_rdma_ports};

/* --- running and looking ------------------------------------------------------------ */

static int run_opts(struct host_audit_opts *o)
{
	char why[256];

	o->root = root;
	if (!o->cpus)
		o->cpus = "2,3";
	return host_audit_run(o, &au, why, sizeof(why));
}

static void run(void)
{
	struct host_audit_opts o = {0};

	assert_int_equal(run_opts(&o), 0);
}

static void run_nic(const char *nic, const struct audit_ops *ops)
{
	struct host_audit_opts o = {.ops = ops};

	if (nic)
		o.nics[o.n_nics++] = nic;
	assert_int_equal(run_opts(&o), 0);
}

#define expect_status(id, st) check_status(id, st, __LINE__)
static void check_status(enum tc_audit_check id, enum tc_audit_status st, int line)
{
	const struct tc_audit_result *r = &au.r[id];

	if (r->present && r->status == st)
		return;
	print_message("line %d: %s is %s (%s | evidence: %s), expected %s\n", line,
		      audit_info(id)->name, audit_status_name(r->status), r->summary, r->evidence,
		      audit_status_name(st));
	fail();
}

#define expect_in(id, field, text) check_in(id, au.r[id].field, #field, text, __LINE__)
static void check_in(enum tc_audit_check id, const char *s, const char *field, const char *text,
		     int line)
{
	if (strstr(s, text))
		return;
	print_message("line %d: %s %s lacks '%s': %s\n", line, audit_info(id)->name, field, text,
		      s);
	fail();
}

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
	assert_int_equal(host_audit_exit_code(&au), 5);
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

/* --- irqbalance ------------------------------------------------------------------------ */

static void test_irqbalance_off_is_ok(void **state)
{
	(void)state;
	put("/lib/systemd/system/irqbalance.service", "[Unit]");
	run();
	expect_status(TC_AUDIT_IRQBALANCE, TC_AUDIT_OK);
	expect_in(TC_AUDIT_IRQBALANCE, evidence, "installed");
}

static void test_irqbalance_running_fails(void **state)
{
	(void)state;
	put("/proc/812/comm", "irqbalance");
	run();
	expect_status(TC_AUDIT_IRQBALANCE, TC_AUDIT_FAIL);
	expect_in(TC_AUDIT_IRQBALANCE, summary, "pid 812");
	expect_in(TC_AUDIT_IRQBALANCE, fix, "systemctl disable --now irqbalance");
}

static void test_irqbalance_enabled_warns(void **state)
{
	(void)state;
	link_at("/etc/systemd/system/multi-user.target.wants/irqbalance.service",
		"/lib/systemd/system/irqbalance.service");
	put("/etc/default/irqbalance", "#comment\nIRQBALANCE_BANNED_CPULIST=2-3");
	run();
	expect_status(TC_AUDIT_IRQBALANCE, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_IRQBALANCE, summary, "multi-user.target.wants");
	expect_in(TC_AUDIT_IRQBALANCE, evidence, "IRQBALANCE_BANNED_CPULIST=2-3");
}

static void test_irqbalance_masked_is_ok(void **state)
{
	(void)state;
	link_at("/etc/systemd/system/irqbalance.service", "/dev/null");
	run();
	expect_status(TC_AUDIT_IRQBALANCE, TC_AUDIT_OK);
	expect_in(TC_AUDIT_IRQBALANCE, evidence, "masked");
}

static void test_irqbalance_hidden_processes_unknown(void **state)
{
	(void)state;
	drop("/proc/1/comm");
	drop("/proc/1");
	run();
	expect_status(TC_AUDIT_IRQBALANCE, TC_AUDIT_UNKNOWN);
	expect_in(TC_AUDIT_IRQBALANCE, evidence, "hidepid");
}

/* --- NIC IRQ placement ------------------------------------------------------------------ */

static void test_nic_irq_on_node_off_probe_is_ok(void **state)
{
	(void)state;
	add_mlx5(1, on_node1, node1, 9000);
	run();
	expect_status(TC_AUDIT_NIC_IRQ, TC_AUDIT_OK);
	expect_in(TC_AUDIT_NIC_IRQ, evidence,
		  "mlx5_0: 4 IRQs (device/msi_irqs), NUMA node 1 = CPUs 4-7");
}

static void test_nic_irq_on_probe_cpu_fails(void **state)
{
	const char *const eff[4] = {"4", "3", "6", "7"};
	const char *const allowed[4] = {"4-7", "3", "4-7", "4-7"};

	(void)state;
	add_mlx5(1, eff, allowed, 9000);
	run();
	expect_status(TC_AUDIT_NIC_IRQ, TC_AUDIT_FAIL);
	expect_in(TC_AUDIT_NIC_IRQ, summary, "1 IRQ of mlx5_0 on probe CPU 3");
	expect_in(TC_AUDIT_NIC_IRQ, evidence, "101 mlx5_comp1@pci:0000:81:00.0 -> 3");
	expect_in(TC_AUDIT_NIC_IRQ, fix, "bind the mlx5_0 IRQs to CPUs 4-7 (NUMA node 1)");
	expect_in(TC_AUDIT_NIC_IRQ, fix, "100-103");
	assert_int_equal(host_audit_exit_code(&au), 5);
}

static void test_nic_irq_off_node_warns(void **state)
{
	const char *const eff[4] = {"0", "1", "0", "1"};
	const char *const allowed[4] = {"0-1", "0-1", "0-1", "0-1"};

	(void)state;
	add_mlx5(1, eff, allowed, 9000);
	run();
	expect_status(TC_AUDIT_NIC_IRQ, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_NIC_IRQ, summary, "4 IRQs of mlx5_0 off its NUMA node 1");
	expect_in(TC_AUDIT_NIC_IRQ, fix, "CPUs 4-7 (NUMA node 1)");
}

static void test_nic_irq_allowed_on_probe_warns(void **state)
{
	const char *const allowed[4] = {"0-7", "4-7", "4-7", "4-7"};

	(void)state;
	add_mlx5(1, on_node1, allowed, 9000);
	run();
	expect_status(TC_AUDIT_NIC_IRQ, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_NIC_IRQ, summary, "may move onto the probe CPUs");
}

static void test_nic_irq_pattern_names_irqs(void **state)
{
	const char *const eff[4] = {"4", "5", "2", "7"};
	struct host_audit_opts o = {.nic_irq_pattern = "mlx5_comp*"};

	(void)state;
	add_mlx5(1, eff, node1, 9000);
	drop("/sys/kernel/irq/101/actions"); /* then the name comes from /proc/interrupts */
	put("/proc/interrupts",
	    "           CPU0 CPU1 CPU2 CPU3 CPU4 CPU5 CPU6 CPU7\n"
	    " 101:  0 0 0 0 0 9 0 0  IR-PCI-MSI 1-edge  mlx5_comp1@pci:0000:81:00.0\n"
	    " NMI:  0 0 0 0 0 0 0 0  Non-maskable interrupts");
	assert_int_equal(run_opts(&o), 0);
	expect_status(TC_AUDIT_NIC_IRQ, TC_AUDIT_FAIL);
	expect_in(TC_AUDIT_NIC_IRQ, evidence, "IRQs named mlx5_comp*: 4 IRQs");
	expect_in(TC_AUDIT_NIC_IRQ, evidence, "102 mlx5_comp2@pci:0000:81:00.0 -> 2");
}

static void test_nic_irq_without_nic_is_unknown(void **state)
{
	(void)state;
	run();
	expect_status(TC_AUDIT_NIC_IRQ, TC_AUDIT_UNKNOWN);
	expect_in(TC_AUDIT_NIC_IRQ, summary, "no RDMA device (/sys/class/infiniband is missing)");
	expect_status(TC_AUDIT_MTU, TC_AUDIT_UNKNOWN);
	expect_status(TC_AUDIT_RINGS, TC_AUDIT_UNKNOWN);
}

static void test_nic_missing_interface_is_unknown(void **state)
{
	(void)state;
	run_nic("eth9", &fake_ops);
	expect_status(TC_AUDIT_NIC_IRQ, TC_AUDIT_UNKNOWN);
	expect_in(TC_AUDIT_NIC_IRQ, summary, "eth9 does not exist");
	expect_status(TC_AUDIT_MTU, TC_AUDIT_UNKNOWN);
	expect_in(TC_AUDIT_MTU, summary, "no interface eth9");
}

/* A virtio NIC: the IRQs are on the parent PCI device, whose node is -1 on a one-node host. */
static void test_nic_irq_virtio_parent_single_node(void **state)
{
	(void)state;
	drop("/sys/devices/system/node/node1/cpulist");
	drop("/sys/devices/system/node/node1");
	put("/sys/devices/system/node/node0/cpulist", "0-7");
	put("/sys/devices/pci0000:00/0000:00:03.0/numa_node", "-1");
	put("/sys/devices/pci0000:00/0000:00:03.0/msi_irqs/38", "msix");
	mkdirs("/sys/devices/pci0000:00/0000:00:03.0/virtio2");
	mkdirs("/sys/bus/virtio");
	link_at("/sys/devices/pci0000:00/0000:00:03.0/virtio2/subsystem", "../../../../bus/virtio");
	link_at("/sys/class/net/eth0/device", "../../../devices/pci0000:00/0000:00:03.0/virtio2");
	put("/sys/class/net/eth0/mtu", "1500");
	put("/proc/irq/38/smp_affinity_list", "0-7");
	put("/proc/irq/38/effective_affinity_list", "1");
	run_nic("eth0", &fake_ops);
	expect_status(TC_AUDIT_NIC_IRQ, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_NIC_IRQ, evidence, "device/../msi_irqs");
	expect_in(TC_AUDIT_NIC_IRQ, evidence, "the host's only node");
	expect_in(TC_AUDIT_NIC_IRQ, fix, "CPUs 0-1,4-7 (NUMA node 0)");
}

/* A PCI NIC without MSI: its legacy IRQ, never the IRQs of the bridge above it. */
static void test_nic_irq_legacy_intx_not_the_bridge(void **state)
{
	(void)state;
	put("/sys/devices/pci0000:00/0000:00:1c.0/msi_irqs/24", "msi");
	put("/sys/devices/pci0000:00/0000:00:1c.0/0000:02:00.0/irq", "17");
	put("/sys/devices/pci0000:00/0000:00:1c.0/0000:02:00.0/numa_node", "0");
	link_at("/sys/class/net/eth1/device",
		"../../../devices/pci0000:00/0000:00:1c.0/0000:02:00.0");
	put("/sys/class/net/eth1/mtu", "9000");
	put("/proc/irq/17/smp_affinity_list", "0-3");
	put("/proc/irq/17/effective_affinity_list", "0");
	run_nic("eth1", &fake_ops);
	expect_status(TC_AUDIT_NIC_IRQ, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_NIC_IRQ, evidence,
		  "eth1: 1 IRQ (device/irq (legacy INTx)), NUMA node 0");
	expect_in(TC_AUDIT_NIC_IRQ, fix, "for each IRQ N in 17");
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

/* --- NIC: MTU, rings, coalescing ------------------------------------------------------- */

static void test_mtu_roce(void **state)
{
	(void)state;
	add_mlx5(1, on_node1, node1, 1500);
	run();
	expect_status(TC_AUDIT_MTU, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_MTU, summary, "eth2: MTU 1500, 9000 recommended for RoCE");
	expect_in(TC_AUDIT_MTU, fix, "ip link set dev eth2 mtu 9000");
	put("/sys/class/net/eth2/mtu", "9000");
	run();
	expect_status(TC_AUDIT_MTU, TC_AUDIT_OK);
}

static void test_mtu_ipoib(void **state)
{
	(void)state;
	add_mlx5(1, on_node1, node1, 2044);
	put("/sys/class/net/eth2/type", "32");
	run();
	expect_status(TC_AUDIT_MTU, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_MTU, summary, "IPoIB MTU 2044");
	put("/sys/class/net/eth2/mtu", "4092");
	run();
	expect_status(TC_AUDIT_MTU, TC_AUDIT_OK);
}

static void test_rings_and_coalescing_via_ethtool(void **state)
{
	(void)state;
	add_mlx5(1, on_node1, node1, 9000);
	fake_ethtool_err = 0;
	fake_ring = (struct ethtool_ringparam){.cmd = ETHTOOL_GRINGPARAM,
					       .rx_pending = 1024,
					       .rx_max_pending = 8192,
					       .tx_pending = 8192,
					       .tx_max_pending = 8192};
	fake_coal = (struct ethtool_coalesce){.cmd = ETHTOOL_GCOALESCE, .rx_coalesce_usecs = 64};
	run_nic(NULL, &fake_ops);
	expect_status(TC_AUDIT_RINGS, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_RINGS, fix, "ethtool -G eth2 rx 8192 tx 8192");
	expect_status(TC_AUDIT_COALESCE, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_COALESCE, summary, "up to 64 us");

	fake_ring.rx_pending = 8192;
	fake_coal.use_adaptive_rx_coalesce = 1;
	run_nic(NULL, &fake_ops);
	expect_status(TC_AUDIT_RINGS, TC_AUDIT_OK);
	expect_status(TC_AUDIT_COALESCE, TC_AUDIT_OK);

	fake_ethtool_err = -EOPNOTSUPP;
	run_nic(NULL, &fake_ops);
	expect_status(TC_AUDIT_RINGS, TC_AUDIT_UNKNOWN);
	expect_in(TC_AUDIT_RINGS, summary, "the driver does not report it");
	fake_ethtool_err = 0;
}

static void test_under_root_without_ops_is_unknown(void **state)
{
	(void)state;
	add_mlx5(1, on_node1, node1, 9000);
	run();
	expect_status(TC_AUDIT_RINGS, TC_AUDIT_UNKNOWN);
	expect_in(TC_AUDIT_RINGS, summary, "not available under --root");
	expect_status(TC_AUDIT_COALESCE, TC_AUDIT_UNKNOWN);
	expect_status(TC_AUDIT_RDMA_PORT, TC_AUDIT_UNKNOWN);
	expect_in(TC_AUDIT_RDMA_PORT, summary, "not available under --root");
}

/* --- RDMA ports, memlock ------------------------------------------------------------------ */

static struct audit_port port(int state, int link_layer, unsigned int mtu)
{
	struct audit_port p = {.dev = "mlx5_0",
			       .port = 1,
			       .state = state,
			       .link_layer = link_layer,
			       .active_mtu = mtu,
			       .max_mtu = 4096,
			       .width = 4,
			       .lane_gbps = 25.78125};

	return p;
}

static void test_rdma_port_states(void **state)
{
	(void)state;
	n_fake_ports = 0;
	run_nic(NULL, &fake_ops);
	expect_status(TC_AUDIT_RDMA_PORT, TC_AUDIT_UNKNOWN);
	assert_string_equal(au.r[TC_AUDIT_RDMA_PORT].summary,
			    "no RDMA device (ibv_devinfo lists none)");

	fake_ports[0] = port(4, 1, 4096);
	n_fake_ports = 1;
	run_nic(NULL, &fake_ops);
	expect_status(TC_AUDIT_RDMA_PORT, TC_AUDIT_OK);
	expect_in(TC_AUDIT_RDMA_PORT, evidence, "state PORT_ACTIVE (4), link_layer InfiniBand");
	expect_in(TC_AUDIT_RDMA_PORT, evidence, "4x 25.7812 Gb/s");

	fake_ports[1] = port(4, 2, 1024);
	fake_ports[1].port = 2;
	n_fake_ports = 2;
	run_nic(NULL, &fake_ops);
	expect_status(TC_AUDIT_RDMA_PORT, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_RDMA_PORT, summary, "port 2 active MTU 1024");

	fake_ports[1] = port(1, 2, 1024);
	run_nic(NULL, &fake_ops);
	expect_status(TC_AUDIT_RDMA_PORT, TC_AUDIT_FAIL);
	expect_in(TC_AUDIT_RDMA_PORT, summary, "is PORT_DOWN, not PORT_ACTIVE");

	fake_ports[0] = (struct audit_port){.dev = "mlx5_1", .err = -EACCES};
	n_fake_ports = 1;
	run_nic(NULL, &fake_ops);
	expect_status(TC_AUDIT_RDMA_PORT, TC_AUDIT_UNKNOWN);
	expect_in(TC_AUDIT_RDMA_PORT, summary, "Permission denied");
	n_fake_ports = 0;
}

static void limits(const char *soft, const char *hard, const char *capeff)
{
	put("/proc/self/limits",
	    "Max cpu time              unlimited            unlimited"
	    "            seconds   \n"
	    "Max locked memory         %-20s %-20s bytes     ",
	    soft, hard);
	put("/proc/self/status", "Name:\ttailcause\nCapEff:\t%s", capeff);
}

static void test_memlock_limits(void **state)
{
	(void)state;
	run();
	expect_status(TC_AUDIT_MEMLOCK, TC_AUDIT_OK);
	limits("8388608", "8388608", "0000000000000000");
	run();
	expect_status(TC_AUDIT_MEMLOCK, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_MEMLOCK, summary, "8192 KiB");
	limits("32768", "65536", "0000000000000000");
	run();
	expect_status(TC_AUDIT_MEMLOCK, TC_AUDIT_FAIL);
	expect_in(TC_AUDIT_MEMLOCK, fix, "ulimit -l unlimited");
	limits("32768", "65536", "000001ffffffffff"); /* root: CAP_IPC_LOCK (bit 14) */
	run();
	expect_status(TC_AUDIT_MEMLOCK, TC_AUDIT_OK);
	expect_in(TC_AUDIT_MEMLOCK, summary, "CAP_IPC_LOCK");
}

/* --- whole runs ----------------------------------------------------------------------------- */

static void test_empty_root_every_check_unknown(void **state)
{
	struct host_audit_opts o = {.root = root, .ops = &fake_ops};
	char empty[PATH_MAX + 8], why[256];

	(void)state;
	snprintf(empty, sizeof(empty), "%s/empty", root);
	mkdirs("/empty");
	o.root = empty;
	n_fake_ports = 0;
	assert_int_equal(host_audit_run(&o, &au, why, sizeof(why)), 0);
	for (int i = 0; i < TC_AUDIT_CHECK_COUNT; i++) {
		expect_status((enum tc_audit_check)i, TC_AUDIT_UNKNOWN);
		assert_true(au.r[i].summary[0]);
	}
	assert_int_equal(host_audit_exit_code(&au), 0);
}

static void test_tuned_host_passes(void **state)
{
	(void)state;
	add_mlx5(1, on_node1, node1, 9000);
	fake_ring = (struct ethtool_ringparam){.rx_pending = 8192,
					       .rx_max_pending = 8192,
					       .tx_pending = 8192,
					       .tx_max_pending = 8192};
	fake_coal = (struct ethtool_coalesce){.use_adaptive_rx_coalesce = 1};
	fake_ports[0] = port(4, 2, 4096);
	n_fake_ports = 1;
	run_nic(NULL, &fake_ops);
	for (int i = 0; i < TC_AUDIT_CHECK_COUNT; i++)
		expect_status((enum tc_audit_check)i, TC_AUDIT_OK);
	assert_int_equal(host_audit_exit_code(&au), 0);
	n_fake_ports = 0;
}

static void test_bad_cpus_and_root_are_errors(void **state)
{
	struct host_audit_opts o = {.cpus = "3,9"};
	char why[256];

	(void)state;
	assert_int_equal(run_opts(&o), -EINVAL);
	o.cpus = "two";
	assert_int_equal(run_opts(&o), -EINVAL);
	o = (struct host_audit_opts){.root = "/nonexistent/tc-audit"};
	assert_int_equal(host_audit_run(&o, &au, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "--root /nonexistent/tc-audit: No such file"));
}

static void test_default_cpus_are_last_two_online(void **state)
{
	struct host_audit_opts o = {.root = root};
	char why[256];

	(void)state;
	put("/sys/devices/system/cpu/online", "0-5,7");
	assert_int_equal(host_audit_run(&o, &au, why, sizeof(why)), 0);
	assert_string_equal(au.cpus, "5,7");
}

/* --- output -------------------------------------------------------------------------------- */

static char *render(int json)
{
	struct audit_print_opts po = {.root = root, .exit_code = host_audit_exit_code(&au)};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (json)
		audit_print_json(f, &au, &po);
	else
		audit_print_text(f, &au, &po);
	fclose(f);
	return buf;
}

static void test_print_lists_every_check(void **state)
{
	char *text, *json;

	(void)state;
	put("/sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never");
	run();
	text = render(0);
	json = render(1);
	for (int i = 0; i < TC_AUDIT_CHECK_COUNT; i++) {
		char want[64];

		snprintf(want, sizeof(want), "\n  %-20s ", audit_info(i)->name);
		assert_non_null(strstr(text, want));
		snprintf(want, sizeof(want), "\"id\": \"%s\"", audit_info(i)->name);
		assert_non_null(strstr(json, want));
	}
	assert_non_null(strstr(text, "exit code 5 (a check fails)"));
	assert_non_null(strstr(json, "\"exit_code\": 5,"));
	assert_non_null(strstr(json, "\"fail\": 1,"));
	free(text);
	free(json);
}

static void test_print_json_escapes(void **state)
{
	char *json;

	(void)state;
	run();
	snprintf(au.r[TC_AUDIT_IRQBALANCE].summary, TC_AUDIT_SUMMARY_LEN,
		 "a \"quote\", a \\ and a\nnewline, bad \xff byte, good \xc3\xa9");
	snprintf(au.r[TC_AUDIT_IRQBALANCE].evidence, TC_AUDIT_EVIDENCE_LEN, "one; two; three");
	json = render(1);
	assert_non_null(strstr(json, "a \\\"quote\\\", a \\\\ and a\\u000anewline, "
				     "bad \\ufffd byte, good \xc3\xa9"));
	assert_non_null(strstr(json, "\"evidence\": [\"one\", \"two\", \"three\"]"));
	free(json);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_thp_never_is_ok),
		T(test_thp_always_fails),
		T(test_thp_madvise_and_defer_warn),
		T(test_thp_missing_is_unknown),
		T(test_compaction_stalls_warn),
		T(test_irqbalance_off_is_ok),
		T(test_irqbalance_running_fails),
		T(test_irqbalance_enabled_warns),
		T(test_irqbalance_masked_is_ok),
		T(test_irqbalance_hidden_processes_unknown),
		T(test_nic_irq_on_node_off_probe_is_ok),
		T(test_nic_irq_on_probe_cpu_fails),
		T(test_nic_irq_off_node_warns),
		T(test_nic_irq_allowed_on_probe_warns),
		T(test_nic_irq_pattern_names_irqs),
		T(test_nic_irq_without_nic_is_unknown),
		T(test_nic_missing_interface_is_unknown),
		T(test_nic_irq_virtio_parent_single_node),
		T(test_nic_irq_legacy_intx_not_the_bridge),
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
		T(test_mtu_roce),
		T(test_mtu_ipoib),
		T(test_rings_and_coalescing_via_ethtool),
		T(test_under_root_without_ops_is_unknown),
		T(test_rdma_port_states),
		T(test_memlock_limits),
		T(test_empty_root_every_check_unknown),
		T(test_tuned_host_passes),
		T(test_bad_cpus_and_root_are_errors),
		T(test_default_cpus_are_last_two_online),
		T(test_print_lists_every_check),
		T(test_print_json_escapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
