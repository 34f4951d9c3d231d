// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_peer_join.c - the path and the peer (core/hosts/peer_join.c, analyze_after.c): a path
 * counter that moved in a spike makes it path:<what> (its blocked wait included); the
 * server's trace joined to the client's on a known clock offset names the server's
 * preemption peer:preemption:<comm>; each host's kernel function ids keep their names; what neither
 * host explains is path; a spike smaller than the clock uncertainty is not attributed across hosts;
 * traces that do not belong together are refused with the reason.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "analyze_fixture.h"
#include "core/attrib/causes.h"
#include "core/trace/func_ids.h"
#include "core/hosts/peer_join.h"

#define SRV_TID	 200
#define SRV_CPU	 1
#define OFFSET	 5000000ull /* the server's clock runs 5 ms ahead of the client's */
#define ARRIVES	 400	    /* a request reaches the server 400 ns after it was sent */
#define SPIKE_RT 5000

static void add_counter(struct tc_trace *t, uint64_t start, uint64_t dur, uint16_t what)
{
	struct tc_event e = {.start_ns = start,
			     .dur_ns = dur,
			     .delta = 3,
			     .arg = 0,
			     .kind = TC_EV_COUNTER,
			     .flags = what};

	assert_int_equal(trace__add_events(t, &e, 1), 0);
	assert_int_equal(trace__set_meta(t, "counter.0", "rxe0 port 1 hw_counters/x"), 0);
}

/* Whether the analysis has a cause called name at all. */
static int has_cause(const struct tc_analysis *a, const char *name)
{
	for (size_t i = 0; i < a->n_causes; i++)
		if (!strcmp(a->causes[i].name, name))
			return 1;
	return 0;
}

static uint64_t books(const struct tc_analysis *a)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < a->n_causes; i++)
		sum += a->causes[i].excess_ns;
	return sum;
}

/* The client blocked for its answer through a spike in which a retransmit counter moved. */
static void test_counter_makes_path(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;
	const struct tc_spike *sp;

	(void)state;
	set_rtt(t, K, SPIKE_RT);
	add_offcpu(t, t0(t, K) + 100, SPIKE_RT - 200, 0, 0, "swapper/2"); /* blocked */
	add_counter(t, t0(t, K) - 3000, 5000, TC_PATH_RETRANSMIT);
	a = run(t);
	assert_int_equal(a->n_spikes, 1);
	sp = &a->spikes[0];
	assert_string_equal(cause_name(a, sp->primary), "path:retransmit");
	assert_int_equal(a->causes[sp->primary].cls, TC_CAUSE_PATH);
	assert_int_equal(sp->path_ns, sp->excess_ns);
	assert_int_equal(books(a), a->total_excess_ns);
	analysis__free(a);
	trace__free(t);
}

/* A counter that moved outside the spike says nothing about it. */
static void test_counter_elsewhere_is_not_evidence(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_analysis *a;

	(void)state;
	set_rtt(t, K, SPIKE_RT);
	add_offcpu(t, t0(t, K) + 100, SPIKE_RT - 200, 0, 0, "swapper/2");
	add_counter(t, t0(t, K + 3), 2000, TC_PATH_ECN);
	a = run(t);
	assert_int_equal(a->n_spikes, 1);
	assert_int_equal(a->spikes[0].primary, 0);
	assert_int_equal(a->spikes[0].path_ns, 0);
	assert_false(has_cause(a, "path:ecn"));
	analysis__free(a);
	trace__free(t);
}

/* The client's trace of a two-host run: its probe thread blocked through each wait. */
static struct tc_trace *client_trace(const char *run_id)
{
	struct tc_trace *t = new_trace();

	assert_int_equal(trace__set_meta(t, "run.id", run_id), 0);
	assert_int_equal(trace__set_meta(t, "run.mode", "client"), 0);
	assert_int_equal(trace__set_meta(t, "run.probe", "udp"), 0);
	set_rtt(t, K, SPIKE_RT);
	add_offcpu(t, t0(t, K) + 100, SPIKE_RT - 200, 0, 0, "swapper/2");
	return t;
}

/*
 * The server's: request i arrives ARRIVES after the client sent it, on a clock OFFSET ahead.
 * Its round trips run from one request's read to the next: one fewer than the client's a
 * run, the runs per apart (--duration), or one run where per is 0.
 */
static struct tc_trace *server_trace_runs(struct tc_trace *client, const char *mode, size_t per)
{
	struct tc_trace *t = trace__new();
	size_t n = client->n_samples;

	assert_non_null(t);
	if (trace__meta(client, "run.id"))
		assert_int_equal(trace__set_meta(t, "run.id", trace__meta(client, "run.id")), 0);
	assert_int_equal(trace__set_meta(t, "run.mode", mode), 0);
	assert_int_equal(trace__set_meta(t, "run.probe", "udp"), 0);
	assert_int_equal(trace__set_meta(t, "host.name", "hostA"), 0);
	assert_int_equal(trace__add_thread(t, SRV_TID, TC_THREAD_PROBE, SRV_CPU), 0);
	if (per) {
		assert_int_equal(trace__set_metaf(client, "run.run_samples", "%zu", per), 0);
		assert_int_equal(trace__set_metaf(t, "run.run_samples", "%zu", per - 1), 0);
	}
	for (size_t r = 0; r < n; r += per ? per : n)
		for (size_t i = r; i + 1 < n && i + 1 < r + (per ? per : n); i++) {
			struct tc_sample s = {
				.t_start = client->samples[i].t_start + ARRIVES + OFFSET,
				.t_end = client->samples[i + 1].t_start + ARRIVES + OFFSET,
				.cpu = SRV_CPU,
				.tid = SRV_TID};

			assert_int_equal(trace__add_samples(t, &s, 1), 0);
		}
	return t;
}

static struct tc_trace *server_trace(struct tc_trace *client, const char *mode)
{
	return server_trace_runs(client, mode, 0);
}

/* The server was preempted by a hog while request K waited for it. */
static void add_server_preemption(struct tc_trace *srv, uint64_t client_t)
{
	struct tc_event e = {.start_ns = client_t + ARRIVES - 100 + OFFSET,
			     .dur_ns = SPIKE_RT - BASE_RTT,
			     .cpu = SRV_CPU,
			     .tid = SRV_TID,
			     .other_pid = 4242,
			     .kind = TC_EV_OFFCPU,
			     .flags = TC_OFFCPU_PREEMPTED};

	memcpy(e.other_comm, "hog", 4);
	assert_int_equal(trace__add_events(srv, &e, 1), 0);
}

static void test_peer_preemption_named(void **state)
{
	struct tc_trace *cli = client_trace("00000000000000aa");
	struct tc_trace *srv = server_trace(cli, "server");
	struct tc_analysis *a;
	struct peer_join j;
	const struct tc_spike *sp;

	(void)state;
	add_server_preemption(srv, t0(cli, K));
	assert_int_equal(peer_join(cli, srv, &j), 0);
	assert_true(j.local_is_client);
	assert_int_equal(j.n_pairs, N_SAMPLES - 1);
	/* the true offset within the stated bound, the bound about half the round trip */
	assert_true(fabs(j.sync.offset_ns - (double)OFFSET) <= j.sync.uncertainty_ns + 1);
	assert_true(j.sync.uncertainty_ns <= BASE_RTT / 2 + 1);
	assert_string_equal(trace__meta(cli, "peer.host"), "hostA");
	a = run(cli);
	assert_int_equal(a->n_spikes, 1);
	sp = &a->spikes[0];
	assert_true(sp->cross_host);
	assert_string_equal(cause_name(a, sp->primary), "peer:preemption:hog");
	/* the rest of the wait is neither host's: the path's */
	assert_int_equal(has_cause(a, "path"), sp->path_ns > 0);
	assert_int_equal(books(a), a->total_excess_ns);
	analysis__free(a);
	trace__free(cli);
	trace__free(srv);
}

/* Nothing on either host: the whole excess is the path's. */
static void test_neither_host_is_path(void **state)
{
	struct tc_trace *cli = client_trace("00000000000000ab");
	struct tc_trace *srv = server_trace(cli, "server");
	struct tc_analysis *a;
	struct peer_join j;

	(void)state;
	assert_int_equal(peer_join(cli, srv, &j), 0);
	a = run(cli);
	assert_int_equal(a->n_spikes, 1);
	assert_string_equal(cause_name(a, a->spikes[0].primary), "path");
	assert_int_equal(a->spikes[0].path_ns, a->spikes[0].excess_ns);
	analysis__free(a);
	trace__free(cli);
	trace__free(srv);
}

/* A spike below the clock uncertainty: the peer's intervals stay out, and it says why. */
static void test_below_uncertainty_not_cross_host(void **state)
{
	struct tc_trace *cli = client_trace("00000000000000ac");
	struct tc_trace *srv = server_trace(cli, "server");
	struct tc_analysis *a;
	struct peer_join j;

	(void)state;
	add_server_preemption(srv, t0(cli, K));
	assert_int_equal(peer_join(cli, srv, &j), 0);
	cli->peer.uncertainty_ns = 100000; /* as if the clocks were known to 100 us only */
	a = run(cli);
	assert_int_equal(a->n_spikes, 1);
	assert_false(a->spikes[0].cross_host);
	assert_int_equal(a->spikes[0].unexplained, TC_UNEXPLAINED_CLOCK);
	assert_false(has_cause(a, "peer:preemption:hog"));
	analysis__free(a);
	trace__free(cli);
	trace__free(srv);
}

/* The peer's path counters keep their own names beside this host's. */
static void test_peer_counters_keep_their_names(void **state)
{
	struct tc_trace *cli = client_trace("00000000000000af");
	struct tc_trace *srv = server_trace(cli, "server");
	struct tc_analysis *a;
	struct peer_join j;
	char key[32];

	(void)state;
	assert_int_equal(trace__set_meta(cli, "counter.0", "this host's counter"), 0);
	add_counter(srv, t0(cli, K) + OFFSET, 2000, TC_PATH_PFC_PAUSE);
	assert_int_equal(peer_join(cli, srv, &j), 0);
	snprintf(key, sizeof(key), "counter.%u", PEER_COUNTER_BASE);
	assert_string_equal(trace__meta(cli, key), "rxe0 port 1 hw_counters/x");
	assert_string_equal(trace__meta(cli, "counter.0"), "this host's counter");
	a = run(cli);
	assert_int_equal(a->n_spikes, 1);
	/* the path is both hosts': the peer's counter names it too */
	assert_string_equal(cause_name(a, a->spikes[0].primary), "path:pfc-pause");
	analysis__free(a);
	trace__free(cli);
	trace__free(srv);
}

/* A callback of kind at client time at on host t (the server's clock OFFSET ahead). */
static void add_callback(struct tc_trace *t, uint16_t kind, uint64_t at, uint32_t cpu,
			 uint64_t func)
{
	struct tc_event e = {.start_ns = at, .dur_ns = 100, .cpu = cpu, .kind = kind};

	e.func = func;
	assert_int_equal(trace__add_events(t, &e, 1), 0);
}

/* The merged event of kind on the peer's CPU. */
static const struct tc_event *peer_event(const struct tc_trace *t, uint16_t kind)
{
	for (size_t i = 0; i < t->n_events; i++)
		if (t->events[i].kind == kind && t->events[i].cpu == SRV_CPU + PEER_CPU_BASE)
			return &t->events[i];
	fail();
	return NULL;
}

/* Both hosts number their kernel functions 1, 2, ...: the peer's move above this host's,
 * their names with them, and each host's callbacks keep their own names. */
static void test_peer_function_ids_keep_their_names(void **state)
{
	struct tc_trace *cli = client_trace("00000000000000b2");
	struct tc_trace *srv = server_trace(cli, "server");
	const struct tc_event *e;
	struct peer_join j;
	char buf[96], key[32];

	(void)state;
	add_callback(cli, TC_EV_WORK, t0(cli, K), 0, 1);
	assert_int_equal(func_ids_name(cli, 1, "vmstat_update"), 0);
	add_callback(srv, TC_EV_TIMER_FN, t0(cli, K) + OFFSET, SRV_CPU, 1);
	add_callback(srv, TC_EV_NMI, t0(cli, K) + OFFSET, SRV_CPU, 2);
	assert_int_equal(func_ids_name(srv, 1, "watchdog_timer_fn"), 0);
	assert_int_equal(func_ids_name(srv, 2, NULL), 0);
	assert_int_equal(peer_join(cli, srv, &j), 0);

	assert_string_equal(causes_ksym(cli, 1), "vmstat_update");
	e = peer_event(cli, TC_EV_TIMER_FN);
	assert_true(e->func == PEER_FUNC_BASE + 1);
	assert_string_equal(causes_ksym(cli, e->func), "watchdog_timer_fn");
	causes_name_event(cli, e, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "peer:timer:watchdog_timer_fn");
	e = peer_event(cli, TC_EV_NMI);
	assert_true(e->func == PEER_FUNC_BASE + 2);
	func_ids_key(e->func, key, sizeof(key));
	assert_string_equal(key, "ksym.100000002");
	assert_string_equal(trace__meta(cli, key), "unnamed#2");
	assert_null(trace__meta(cli, "ksym.2")); /* this host has no function 2 */
	trace__free(cli);
	trace__free(srv);
}

/* An older peer trace's addresses stay addresses, named where this trace does not name
 * them, as they always were. */
static void test_peer_older_trace_addresses_kept(void **state)
{
	struct tc_trace *cli = client_trace("00000000000000b3");
	struct tc_trace *srv = server_trace(cli, "server");
	struct peer_join j;

	(void)state;
	assert_int_equal(trace__set_meta(cli, "ksym.ffffffff81234560", "vmstat_update"), 0);
	add_callback(srv, TC_EV_WORK, t0(cli, K) + OFFSET, SRV_CPU, 0xffffffff81234560ull);
	add_callback(srv, TC_EV_TIMER_FN, t0(cli, K) + OFFSET, SRV_CPU, 0xffffffff81487ce0ull);
	assert_int_equal(trace__set_meta(srv, "ksym.ffffffff81234560", "other_name"), 0);
	assert_int_equal(trace__set_meta(srv, "ksym.ffffffff81487ce0", "watchdog_timer_fn"), 0);
	assert_int_equal(peer_join(cli, srv, &j), 0);
	assert_true(peer_event(cli, TC_EV_WORK)->func == 0xffffffff81234560ull);
	assert_true(peer_event(cli, TC_EV_TIMER_FN)->func == 0xffffffff81487ce0ull);
	assert_string_equal(trace__meta(cli, "ksym.ffffffff81234560"), "vmstat_update");
	assert_string_equal(trace__meta(cli, "ksym.ffffffff81487ce0"), "watchdog_timer_fn");
	trace__free(cli);
	trace__free(srv);
}

/* Every round trip's way there and back, the last of each run's too: the server's last
 * round trip of a run ended when it read that request. */
static void expect_every_direction(struct tc_trace *cli, struct tc_trace *srv)
{
	struct peer_join j;
	uint64_t to, back;

	assert_int_equal(peer_join(cli, srv, &j), 0);
	assert_int_equal(cli->peer.n_arrivals, cli->n_samples);
	for (size_t i = 0; i < cli->n_samples; i++) {
		const struct tc_sample *s = &cli->samples[i];

		assert_int_equal(peer_direction(cli, s, &to, &back), 0);
		assert_int_equal(to + back, s->t_end - s->t_start);
		assert_true(fabs((double)to - ARRIVES) <= j.sync.uncertainty_ns + 1);
	}
	trace__free(cli);
	trace__free(srv);
}

static void test_last_round_trip_of_a_run_has_a_direction(void **state)
{
	struct tc_trace *cli = client_trace("00000000000000b0");

	(void)state;
	set_rtt(cli, N_SAMPLES - 1, SPIKE_RT); /* the run's last round trip is a spike */
	expect_every_direction(cli, server_trace(cli, "server"));
	cli = client_trace("00000000000000b1");
	expect_every_direction(cli, server_trace_runs(cli, "server", N_SAMPLES / 4));
}

static void expect_refused(struct tc_trace *cli, struct tc_trace *srv, const char *why)
{
	struct peer_join j;

	assert_int_equal(peer_join(cli, srv, &j), -EINVAL);
	if (!strstr(j.why, why)) {
		fprintf(stderr, "why: %s\n", j.why);
		fail();
	}
}

/* Two record --iter traces (no run id): joined when their iterations pair up, not otherwise. */
static void test_marked_benchmark_ends(void **state)
{
	struct tc_trace *cli = new_trace(), *srv, *other;
	struct peer_join j;

	(void)state;
	assert_int_equal(trace__set_meta(cli, "iter.spec", "sockperf"), 0);
	srv = server_trace(cli, "server");
	other = server_trace(cli, "server");
	assert_int_equal(trace__set_meta(srv, "iter.spec", "sockperf"), 0);
	assert_int_equal(trace__set_meta(other, "iter.spec", "sockperf"), 0);
	/* another run's server: its requests came at their own irregular times */
	for (size_t i = 0; i < other->n_samples; i++) {
		other->samples[i].t_start += (i * 7919) % 5000;
		other->samples[i].t_end = other->samples[i].t_start + SLOT;
	}
	expect_refused(cli, other, "do not pair up as one run's round trips");
	expect_refused(cli, cli, "the same trace twice");
	assert_int_equal(peer_join(cli, srv, &j), 0);
	assert_true(j.unverified);
	assert_true(j.local_is_client);
	assert_non_null(strstr(trace__meta(cli, "peer.paired_by"), "marked iterations"));
	trace__free(cli);
	trace__free(srv);
	trace__free(other);
}

static void test_refusals(void **state)
{
	struct tc_trace *cli = client_trace("00000000000000ad");
	struct tc_trace *same = server_trace(cli, "client");
	struct tc_trace *other = client_trace("00000000000000ae");
	struct tc_trace *other_srv = server_trace(other, "server");
	struct tc_trace *loop = new_trace();

	(void)state;
	expect_refused(cli, other_srv,
		       "different runs (run ids 00000000000000ad and 00000000000000ae)");
	expect_refused(cli, same, "one trace must be the client's and one the server's");
	expect_refused(cli, loop, "was not recorded as one side of a two-host run");
	trace__free(cli);
	trace__free(same);
	trace__free(other);
	trace__free(other_srv);
	trace__free(loop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_makes_path),
		cmocka_unit_test(test_counter_elsewhere_is_not_evidence),
		cmocka_unit_test(test_peer_preemption_named),
		cmocka_unit_test(test_neither_host_is_path),
		cmocka_unit_test(test_below_uncertainty_not_cross_host),
		cmocka_unit_test(test_peer_counters_keep_their_names),
		cmocka_unit_test(test_peer_function_ids_keep_their_names),
		cmocka_unit_test(test_peer_older_trace_addresses_kept),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_marked_benchmark_ends),
		cmocka_unit_test(test_last_round_trip_of_a_run_has_a_direction),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
