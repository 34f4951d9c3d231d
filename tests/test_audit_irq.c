// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_audit_irq.c - the IRQ checks of user/audit on fixture trees (audit_fixture.h):
 * irqbalance, and where the NIC's IRQs run (its NUMA node, the probe CPUs).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "audit_fixture.h"

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
	assert_true(host_audit_failing(&au) > 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
