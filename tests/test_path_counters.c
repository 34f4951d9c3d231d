// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_path_counters.c - the recorder's path counters (record/path_counters.c) on a
 * fixture sysfs tree made here: which RDMA counters are the path's (and what they
 * evidence), their names in the trace, and the sampler turning each rise into one
 * TC_EV_COUNTER event between two readings, with the delta.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/path_counters.h"

static char root[64];

static void put(const char *rel, const char *val)
{
	char path[256], dir[256], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = strchr(dir + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = 0;
		mkdir(dir, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(val, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/tc-pathctr-XXXXXX");
	assert_non_null(mkdtemp(root));
	put("sys/class/infiniband/rxe0/ports/1/hw_counters/completer_retry_err", "5\n");
	put("sys/class/infiniband/rxe0/ports/1/hw_counters/rcvd_rnr_err", "0\n");
	put("sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts",
	    "1000\n"); /* not the path's */
	put("sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent", "7\n");
	put("sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_wait", "0\n");
	put("sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data", "99\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_classify(void **state)
{
	(void)state;
	assert_int_equal(path_counters_classify("local_ack_timeout_err"), TC_PATH_RETRANSMIT);
	assert_int_equal(path_counters_classify("out_of_sequence"), TC_PATH_RETRANSMIT);
	assert_int_equal(path_counters_classify("rnr_nak_retry_err"), TC_PATH_RNR);
	assert_int_equal(path_counters_classify("np_ecn_marked_roce_packets"), TC_PATH_ECN);
	assert_int_equal(path_counters_classify("rp_cnp_handled"), TC_PATH_ECN);
	assert_int_equal(path_counters_classify("port_xmit_wait"), TC_PATH_PFC_PAUSE);
	assert_int_equal(path_counters_classify("rx_prio3_pause"), TC_PATH_PFC_PAUSE);
	assert_int_equal(path_counters_classify("tx_pause_ctrl_phy"), TC_PATH_PFC_PAUSE);
	assert_int_equal(path_counters_classify("rx_prio3_pause_duration"), 0);
	assert_int_equal(path_counters_classify("rx_prio3_pause_transition"), 0);
	assert_int_equal(path_counters_classify("port_rcv_data"), 0);
	assert_int_equal(path_counters_classify("sent_pkts"), 0);
}

struct got {
	struct tc_event ev[16];
	size_t n;
};

static void collect(void *ctx, const struct tc_event *e)
{
	struct got *g = ctx;

	if (g->n < 16)
		g->ev[g->n++] = *e;
}

static const char *name_of(const struct tc_trace *t, uint32_t idx)
{
	char key[32];

	snprintf(key, sizeof(key), "counter.%u", idx);
	return trace__meta(t, key);
}

static void test_found_named_and_sampled(void **state)
{
	struct tc_trace *t = trace__new();
	struct path_counters *pc;
	struct got g = {0};
	int retry = -1;

	(void)state;
	pc = path_counters__open(root, t, 3);
	assert_non_null(pc);
	/* completer_retry_err, rcvd_rnr_err, np_cnp_sent, port_xmit_wait; not the traffic */
	assert_int_equal(path_counters__n(pc), 4);
	for (uint32_t i = 3; i < 7; i++) {
		assert_non_null(name_of(t, i));
		if (!strcmp(name_of(t, i), "rxe0 port 1 hw_counters/completer_retry_err"))
			retry = (int)i;
	}
	assert_true(retry >= 0);
	assert_int_equal(path_counters__start(pc, 5, -1), 0);
	assert_true(path_counters__tid(pc) != 0);
	usleep(30000);
	put("sys/class/infiniband/rxe0/ports/1/hw_counters/completer_retry_err", "8\n");
	usleep(30000);
	path_counters__stop(pc);
	path_counters__take(pc, collect, &g);
	assert_int_equal(g.n, 1); /* one rise, one event */
	assert_int_equal(g.ev[0].kind, TC_EV_COUNTER);
	assert_int_equal(g.ev[0].arg, (uint32_t)retry);
	assert_int_equal(g.ev[0].flags, TC_PATH_RETRANSMIT);
	assert_int_equal(g.ev[0].delta, 3);
	assert_true(g.ev[0].dur_ns > 0);
	/* taken: nothing the second time */
	g.n = 0;
	path_counters__take(pc, collect, &g);
	assert_int_equal(g.n, 0);
	path_counters__free(pc);
	trace__free(t);
}

static void test_nothing_there(void **state)
{
	struct tc_trace *t = trace__new();
	struct path_counters *pc = path_counters__open("/nonexistent-root", t, 0);

	(void)state;
	assert_non_null(pc);
	assert_int_equal(path_counters__n(pc), 0);
	assert_int_equal(path_counters__start(pc, 5, -1), 0); /* no thread for nothing */
	assert_int_equal(path_counters__tid(pc), 0);
	path_counters__free(pc);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_found_named_and_sampled),
		cmocka_unit_test(test_nothing_there),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
