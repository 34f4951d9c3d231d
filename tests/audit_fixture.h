/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * audit_fixture.h - the fixture tree the audit's tests share: each test
 * builds a small sysfs/procfs/etc under a fresh temporary root (an 8-CPU,
 * two-node host whose probe CPUs are 2,3, tuned by default), changes what it
 * is about, runs the audit with that root and looks at the statuses and texts.
 * The ethtool ioctl and libibverbs come from fake ops. Include after <cmocka.h>;
 * run each test as T(test_...), which makes and removes the tree.
 */
#ifndef TAILCAUSE_TESTS_AUDIT_FIXTURE_H
#define TAILCAUSE_TESTS_AUDIT_FIXTURE_H

#include <errno.h>
#include <ftw.h>
#include <linux/ethtool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/audit_print.h"
#include "audit/host_audit.h"

static char root[PATH_MAX];
static struct tc_audit au;

/* --- fixture tree -------------------------------------------------------------- */

static inline void mkdirs(const char *logical)
{
	char path[PATH_MAX];

	/* put and link_at pass a directory of up to PATH_MAX - 1 bytes: refuse a cut path */
	if (snprintf(path, sizeof(path), "%s%s", root, logical) >= (int)sizeof(path))
		fail_msg("path too long: %s%s", root, logical);
	for (char *p = path + strlen(root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

static inline void put(const char *logical, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Writes a file (its directories made as needed), content as printf, plus a newline. */
static inline void put(const char *logical, const char *fmt, ...)
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

static inline void link_at(const char *logical, const char *target)
{
	char path[PATH_MAX], dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", logical);
	*strrchr(dir, '/') = 0;
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s%s", root, logical);
	assert_int_equal(symlink(target, path), 0);
}

/* Removes a file or an empty directory. */
static inline void drop(const char *logical)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", root, logical);
	assert_int_equal(remove(path), 0);
}

#define STATE "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/"

static inline void cpu_state(int cpu, int s, const char *name, int latency, int disable)
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
static inline void base_host(void)
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
	/* bare metal: no hypervisor flag, no steal */
	put("/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme de pse tsc msr pae\n");
	put("/proc/stat", "cpu  800 0 400 8800 0 0 0 0 0 0\n"
			  "cpu2 100 0 50 1100 0 0 0 0 0 0\ncpu3 100 0 50 1100 0 0 0 0 0 0\n");
}

#define PCI "/sys/devices/pci0000:80/0000:81:00.0"

/*
 * RDMA device mlx5_0 (netdev eth2, MTU mtu) on NUMA node node with IRQs 100..103
 * (mlx5_comp0..3); IRQ 100+i runs on eff[i] and may run on allowed[i].
 */
static inline void add_mlx5(int node, const char *const eff[4], const char *const allowed[4],
			    int mtu)
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

static inline int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* The fake ethtool's global pause (fake_ethtool below): answered when .cmd is set. */
static struct ethtool_pauseparam fake_pause;

/* Removes one fixture file. */
static inline void remove_path(const char *logical)
{
	char path[PATH_MAX + 64];

	assert_true((size_t)snprintf(path, sizeof(path), "%s%s", root, logical) < sizeof(path));
	assert_int_equal(unlink(path), 0);
}

/* eth2 (mlx5_0) as a RoCE port tuned for lossless RoCE on priority 3. */
static inline void add_lossless(void)
{
	put("/sys/class/infiniband/mlx5_0/ports/1/link_layer", "Ethernet");
	put("/sys/class/net/eth2/qos/pfc", "0 0 0 1 0 0 0 0");
	put("/sys/class/net/eth2/qos/trust", "dscp");
	put("/sys/class/net/eth2/ecn/roce_np/enable/3", "1");
	put("/sys/class/net/eth2/ecn/roce_rp/enable/3", "1");
	put("/sys/class/net/eth2/ecn/roce_np/cnp_802p_prio", "6");
	put("/sys/class/net/eth2/ecn/roce_np/cnp_dscp", "48");
}

static inline int setup(void **state)
{
	(void)state;
	fake_pause = (struct ethtool_pauseparam){0};
	snprintf(root, sizeof(root), "/tmp/tc-audit-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	base_host();
	return 0;
}

static inline int teardown(void **state)
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

static inline int fake_ethtool(const char *ifname, void *cmd)
{
	(void)ifname;
	if (fake_ethtool_err)
		return fake_ethtool_err;
	if (*(uint32_t *)cmd == ETHTOOL_GRINGPARAM)
		memcpy(cmd, &fake_ring, sizeof(fake_ring));
	else if (*(uint32_t *)cmd == ETHTOOL_GCOALESCE)
		memcpy(cmd, &fake_coal, sizeof(fake_coal));
	else if (*(uint32_t *)cmd == ETHTOOL_GPAUSEPARAM && fake_pause.cmd)
		memcpy(cmd, &fake_pause, sizeof(fake_pause));
	else
		return -EOPNOTSUPP;
	return 0;
}

static inline int fake_rdma_ports(struct audit_port *out, size_t max, size_t *n, char *why,
				  size_t len)
{
	*n = n_fake_ports < max ? n_fake_ports : max;
	memcpy(out, fake_ports, *n * sizeof(*out));
	if (!*n)
		snprintf(why, len, "no RDMA device (ibv_devinfo lists none)");
	return 0;
}

static const struct audit_ops fake_ops = {fake_ethtool, fake_rdma_ports};

/* --- running and looking ------------------------------------------------------------ */

static inline int run_opts(struct host_audit_opts *o)
{
	char why[256];

	o->root = root;
	if (!o->cpus)
		o->cpus = "2,3";
	return host_audit_run(o, &au, why, sizeof(why));
}

static inline void run(void)
{
	struct host_audit_opts o = {0};

	assert_int_equal(run_opts(&o), 0);
}

static inline void run_nic(const char *nic, const struct audit_ops *ops)
{
	struct host_audit_opts o = {.ops = ops};

	if (nic)
		o.nics[o.n_nics++] = nic;
	assert_int_equal(run_opts(&o), 0);
}

#define expect_status(id, st) check_status(id, st, __LINE__)
static inline void check_status(enum tc_audit_check id, enum tc_audit_status st, int line)
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
static inline void check_in(enum tc_audit_check id, const char *s, const char *field,
			    const char *text, int line)
{
	if (strstr(s, text))
		return;
	print_message("line %d: %s %s lacks '%s': %s\n", line, audit_info(id)->name, field, text,
		      s);
	fail();
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

#endif /* TAILCAUSE_TESTS_AUDIT_FIXTURE_H */
