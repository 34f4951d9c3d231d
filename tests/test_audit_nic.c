// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_audit_nic.c - the NIC checks of user/audit on fixture trees (audit_fixture.h):
 * MTU, rings, coalescing, RDMA ports, memlock; whole runs (options, an empty or
 * tuned host) and the text and JSON output.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "audit_fixture.h"

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
	assert_int_equal(host_audit_failing(&au), 0);
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
	add_lossless();
	run_nic(NULL, &fake_ops);
	for (int i = 0; i < TC_AUDIT_CHECK_COUNT; i++)
		expect_status((enum tc_audit_check)i, TC_AUDIT_OK);
	assert_int_equal(host_audit_failing(&au), 0);
	n_fake_ports = 0;
}

/* --- lossless RoCE: PFC, trust, ECN --------------------------------------------------- */

static void test_lossless_pfc(void **state)
{
	(void)state;
	add_mlx5(1, on_node1, node1, 9000);
	add_lossless();
	run();
	expect_status(TC_AUDIT_PFC, TC_AUDIT_OK);
	expect_in(TC_AUDIT_PFC, summary, "eth2: PFC on priority 3 only");
	put("/sys/class/net/eth2/qos/pfc", "0,0,0,0,0,0,0,0");
	run();
	expect_status(TC_AUDIT_PFC, TC_AUDIT_FAIL);
	expect_in(TC_AUDIT_PFC, summary, "no PFC: the network is not lossless");
	expect_in(TC_AUDIT_PFC, fix, "mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0");
	fake_pause = (struct ethtool_pauseparam){
		.cmd = ETHTOOL_GPAUSEPARAM, .rx_pause = 1, .tx_pause = 1};
	run_nic(NULL, &fake_ops);
	expect_status(TC_AUDIT_PFC, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_PFC, summary, "global pause instead of PFC");
	expect_in(TC_AUDIT_PFC, evidence, "global pause rx on, tx on (ETHTOOL_GPAUSEPARAM)");
	put("/sys/class/net/eth2/qos/pfc", "0 0 0 1 1 0 0 0");
	run();
	expect_status(TC_AUDIT_PFC, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_PFC, summary, "PFC on 2 priorities (3,4)");
	remove_path("/sys/class/net/eth2/qos/pfc");
	run();
	expect_status(TC_AUDIT_PFC, TC_AUDIT_UNKNOWN);
	expect_in(TC_AUDIT_PFC, summary, "PFC not exposed in sysfs");
}

static void test_lossless_trust_and_ecn(void **state)
{
	(void)state;
	add_mlx5(1, on_node1, node1, 9000);
	add_lossless();
	put("/sys/class/net/eth2/qos/trust", "pcp");
	put("/sys/class/net/eth2/ecn/roce_rp/enable/3", "0");
	run();
	expect_status(TC_AUDIT_TRUST, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_TRUST, fix, "mlnx_qos -i eth2 --trust dscp");
	expect_status(TC_AUDIT_ECN, TC_AUDIT_WARN);
	expect_in(TC_AUDIT_ECN, summary, "ECN notification point only for priority 3");
	expect_in(TC_AUDIT_ECN, evidence, "CNPs sent on priority 6, DSCP 48");
	put("/sys/class/net/eth2/ecn/roce_np/enable/3", "0");
	run();
	expect_status(TC_AUDIT_ECN, TC_AUDIT_FAIL);
	expect_in(TC_AUDIT_ECN, fix, "echo 1 > /sys/class/net/eth2/ecn/roce_np/enable/3");
	/* the RoCE priority follows PFC when exactly one is on */
	put("/sys/class/net/eth2/qos/pfc", "0 0 0 0 1 0 0 0");
	put("/sys/class/net/eth2/ecn/roce_np/enable/4", "1");
	put("/sys/class/net/eth2/ecn/roce_rp/enable/4", "1");
	run();
	expect_status(TC_AUDIT_ECN, TC_AUDIT_OK);
	expect_in(TC_AUDIT_ECN, summary, "ECN on for priority 4");
}

static void test_lossless_without_roce(void **state)
{
	(void)state;
	add_mlx5(1, on_node1, node1, 9000); /* no link_layer: not known to be RoCE */
	run();
	expect_status(TC_AUDIT_PFC, TC_AUDIT_UNKNOWN);
	expect_in(TC_AUDIT_ECN, summary, "no RoCE device to check");
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
	struct audit_print_opts po = {.root = root, .exit_code = host_audit_failing(&au) ? 5 : 0};
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
	assert_non_null(strstr(json, "\"evidence\": [ \"one\", \"two\", \"three\" ]"));
	free(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_mtu_roce),
		T(test_mtu_ipoib),
		T(test_rings_and_coalescing_via_ethtool),
		T(test_under_root_without_ops_is_unknown),
		T(test_rdma_port_states),
		T(test_memlock_limits),
		T(test_empty_root_every_check_unknown),
		T(test_tuned_host_passes),
		T(test_lossless_pfc),
		T(test_lossless_trust_and_ecn),
		T(test_lossless_without_roce),
		T(test_bad_cpus_and_root_are_errors),
		T(test_default_cpus_are_last_two_online),
		T(test_print_lists_every_check),
		T(test_print_json_escapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
