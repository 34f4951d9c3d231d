// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_coll.c - collective instances from the ranks' records (core/iter/coll.h): the
 * last arrival is the straggler, late by its arrival less the others' median; every
 * call is kept, an instance with a rank missing is counted; each rank's steps between
 * its calls are samples of its thread, one ending at each call but the rank's first.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core/iter/coll.h"
#include "core/iter/coll_event.h"

#define COMM  0xabcdef12345ull
#define RANKS 3
#define STEPS 5

/* rank r's call number seq: entered at in, returned at out (ns). */
static struct tc_event call(int r, uint32_t seq, uint64_t in, uint64_t out)
{
	struct tc_coll_rec rec = {.t_in = in,
				  .t_out = out,
				  .comm = COMM,
				  .seq = seq,
				  .bytes = 8,
				  .tid = 100 + (uint32_t)r,
				  .op = TC_COLL_ALLREDUCE,
				  .cpu = (uint32_t)r};
	struct tc_event e;

	tc_coll_event_pack(&e, &rec, r);
	return e;
}

/*
 * RANKS ranks, STEPS Allreduces 1 ms apart: rank r arrives r us after the step's
 * start, and all leave 10 us after the last arrival; in step 3 rank 1 arrives 500 us
 * late. Returns the number of events written to ev.
 */
static size_t loop(struct tc_event *ev)
{
	size_t n = 0;

	for (uint32_t k = 0; k < STEPS; k++) {
		uint64_t base = 1000000ull * (k + 1), last = base + 1000 * (RANKS - 1);

		if (k == 3)
			last = base + 500000;
		for (int r = 0; r < RANKS; r++) {
			uint64_t in = base + 1000 * (uint64_t)r;

			if (k == 3 && r == 1)
				in = base + 500000;
			ev[n++] = call(r, k, in, last + 10000);
		}
	}
	return n;
}

/* A trace of ev[0..n), and the size of COMM (RANKS) in its meta as the recorder puts it. */
static struct tc_trace *trace_of(const struct tc_event *ev, size_t n)
{
	struct tc_trace *t = trace__new();
	char key[COLL_SIZE_KEY_LEN];

	assert_non_null(t);
	tc_coll_size_key(key, COMM);
	assert_int_equal(trace__set_metaf(t, key, "%d", RANKS), 0);
	assert_int_equal(trace__add_events(t, ev, n), 0);
	return t;
}

static void test_coll_straggler(void **state)
{
	struct tc_event ev[RANKS * STEPS + 1];
	size_t n = loop(ev);
	struct coll_model m;
	struct tc_trace *t;

	(void)state;
	ev[n] = (struct tc_event){.kind = TC_EV_OFFCPU, .start_ns = 5}; /* other kinds skipped */
	t = trace_of(ev, n + 1);
	assert_int_equal(coll_build(t, &m), 0);
	assert_int_equal(m.n_calls, RANKS * STEPS);
	assert_int_equal(m.n_inst, STEPS);
	assert_int_equal(m.incomplete, 0);
	assert_int_equal(m.odd, 0);
	for (size_t i = 0; i < m.n_inst; i++) {
		const struct coll_instance *in = &m.inst[i];
		const struct coll_call *s = &m.calls[in->straggler];

		assert_int_equal(in->n_calls, RANKS);
		assert_int_equal(in->comm_size, RANKS);
		assert_int_equal(in->bytes, 8);
		assert_string_equal(coll_op_name(in->op), "allreduce");
		if (in->seq == 3) {
			/* rank 1 arrived at +500 us; the others at +0 and +2 us: median +2 us */
			assert_int_equal(s->rank, 1);
			assert_int_equal(in->late_ns, 500000 - 2000);
			assert_int_equal(coll_duration(in), 500000 + 10000);
		} else {
			/* the last of the usual order, 1 us after the median */
			assert_int_equal(s->rank, RANKS - 1);
			assert_int_equal(in->late_ns, 1000);
		}
	}
	coll_model_free(&m);
	trace__free(t);
}

static void test_coll_missing_rank(void **state)
{
	struct tc_event ev[RANKS * STEPS];
	size_t n = loop(ev);
	struct coll_model m;
	struct tc_trace *t;

	(void)state;
	/* rank 2 died before its last call; a lone call of a communicator of three */
	ev[n - 1] = call(0, 0, 9000000, 9000100);
	ev[n - 1].aux = 7;
	t = trace_of(ev, n);
	assert_int_equal(trace__set_meta(t, "coll.size.0000000000000007", "3"), 0);
	assert_int_equal(coll_build(t, &m), 0);
	assert_int_equal(m.n_calls, n);
	assert_int_equal(m.n_inst, STEPS + 1);
	assert_int_equal(m.incomplete, 2); /* step 4 lacks rank 2; comm 7 lacks two */
	for (size_t i = 0; i < m.n_inst; i++)
		if (m.inst[i].comm == 7)
			assert_int_equal(m.inst[i].straggler, SIZE_MAX); /* nobody to wait for */
	coll_model_free(&m);
	trace__free(t);
}

static void test_coll_steps(void **state)
{
	struct tc_event ev[RANKS * STEPS];
	size_t n = loop(ev), ns;
	struct tc_sample *s;
	struct coll_model m;
	struct tc_trace *t = trace_of(ev, n);

	(void)state;
	assert_int_equal(coll_build(t, &m), 0);
	assert_int_equal(coll_steps(&m, &s, &ns), 0);
	assert_int_equal(ns, RANKS * (STEPS - 1)); /* a rank's first call ends no step */
	for (size_t i = 1; i < ns; i++)
		assert_true(s[i - 1].t_start <= s[i].t_start);
	for (size_t i = 0; i < m.n_calls; i++) {
		const struct coll_call *c = &m.calls[i];
		size_t k = 0;

		/* every call but a rank's first ends one step of its thread, at its entry */
		while (k < ns && !(s[k].tid == c->tid && s[k].t_end == c->t_in))
			k++;
		if (c->seq == 0) {
			assert_true(k == ns);
			continue;
		}
		assert_true(k < ns);
		if (c->seq == 3 && c->rank == 1) /* the straggler's step: from step 2's end */
			assert_int_equal(s[k].t_end - s[k].t_start,
					 1000000 + 500000 - 1000 * (RANKS - 1) - 10000);
	}
	free(s);
	coll_model_free(&m);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_coll_straggler),
		cmocka_unit_test(test_coll_missing_rank),
		cmocka_unit_test(test_coll_steps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
