// SPDX-License-Identifier: BSD-2-Clause
/* Unit tests for core/trace/trace.c: the in-memory trace model and its sort. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace/trace.h"

static struct tc_event ev(uint64_t start, uint32_t tag)
{
	struct tc_event e;

	memset(&e, 0, sizeof(e));
	e.start_ns = start;
	e.dur_ns = 100;
	e.cpu = tag % 7;
	e.arg = tag; /* the original position, to check stability */
	e.kind = TC_EV_OFFCPU;
	strcpy(e.other_comm, "kworker/0:1");
	return e;
}

/* A small xorshift so the tests do not depend on rand()'s implementation. */
static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Checks that t->events is the stable sort of orig: keys non-decreasing, equal
 * keys in original order, and every record is the original one at its tag.
 */
static void assert_events_stably_sorted(const struct tc_trace *t, const struct tc_event *orig,
					size_t n)
{
	char *seen = calloc(n ? n : 1, 1);
	size_t i;

	assert_non_null(seen);
	assert_int_equal(t->n_events, n);
	for (i = 0; i < n; i++) {
		const struct tc_event *e = &t->events[i];

		assert_true(e->arg < n);
		assert_false(seen[e->arg]);
		seen[e->arg] = 1;
		assert_memory_equal(e, &orig[e->arg], sizeof(*e));
		if (i == 0)
			continue;
		assert_true(e[-1].start_ns <= e->start_ns);
		if (e[-1].start_ns == e->start_ns)
			assert_true(e[-1].arg < e->arg);
	}
	free(seen);
}

/* Sorts n events made by gen() and checks the result against the originals. */
static void sort_and_check(size_t n, uint64_t (*gen)(size_t i, uint64_t *s))
{
	struct tc_trace *t = trace__new();
	struct tc_event *orig = malloc((n ? n : 1) * sizeof(*orig));
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	size_t i;

	assert_non_null(t);
	assert_non_null(orig);
	for (i = 0; i < n; i++)
		orig[i] = ev(gen(i, &seed), (uint32_t)i);
	assert_int_equal(trace__add_events(t, orig, n), 0);
	trace__sort(t);
	assert_events_stably_sorted(t, orig, n);
	free(orig);
	trace__free(t);
}

static uint64_t gen_few_keys(size_t i, uint64_t *s)
{
	(void)i;
	return 1000 + rng(s) % 5; /* many duplicates: stability matters */
}

static uint64_t gen_random(size_t i, uint64_t *s)
{
	(void)i;
	return rng(s);
}

static uint64_t gen_extremes(size_t i, uint64_t *s)
{
	static const uint64_t k[] = {UINT64_MAX, 0, 1, UINT64_MAX - 1, 1ull << 63, 0};

	(void)s;
	return k[i % 6];
}

static uint64_t gen_sorted(size_t i, uint64_t *s)
{
	(void)s;
	return i / 3 * 10; /* sorted, with ties */
}

/* Keys whose range needs exactly 12 bits: a radix digit count that is one short fails. */
static uint64_t gen_digit_edge(size_t i, uint64_t *s)
{
	(void)i;
	return 777777 + rng(s) % 4 * 1024;
}

/* Recorder-like: intervals arrive in end order, so start order is only locally wrong. */
static uint64_t gen_end_order(size_t i, uint64_t *s)
{
	return 5000000000ull + i * 3000 - rng(s) % 20000;
}

/* As gen_end_order, on a coarse clock: ties among the local disorder. */
static uint64_t gen_end_order_ties(size_t i, uint64_t *s)
{
	return gen_end_order(i, s) / 5000 * 5000;
}

/* Every 1000th record a long interval, whose start belongs ~500 records back. */
static uint64_t gen_long_intervals(size_t i, uint64_t *s)
{
	uint64_t k = gen_end_order(i, s);

	return i % 1000 == 999 ? k - 500 * 3000 : k;
}

static void test_trace_new_is_empty(void **state)
{
	struct tc_trace *t = trace__new();

	(void)state;
	assert_non_null(t);
	assert_int_equal(t->n_events + t->n_samples + t->n_meta + t->n_threads, 0);
	assert_int_equal(t->n_irq_names + t->n_drops + t->n_counters, 0);
	assert_null(t->counters);
	assert_int_equal(t->truncated, 0);
	assert_null(trace__meta(t, "kernel"));
	assert_int_equal(trace__total_drops(t), 0);
	trace__sort(t);
	trace__free(t);
	trace__free(NULL);
}

static void test_trace_set_meta_replaces_value(void **state)
{
	struct tc_trace *t = trace__new();
	char key[8] = "probe";

	(void)state;
	assert_int_equal(trace__set_meta(t, key, "shm"), 0);
	assert_int_equal(trace__set_meta(t, "kernel", "6.1.0"), 0);
	strcpy(key, "xxxxx"); /* the trace keeps its own copy */
	assert_string_equal(trace__meta(t, "probe"), "shm");
	assert_int_equal(trace__set_meta(t, "probe", "verbs"), 0);
	assert_int_equal(t->n_meta, 2);
	assert_string_equal(trace__meta(t, "probe"), "verbs");
	assert_string_equal(trace__meta(t, "kernel"), "6.1.0");
	assert_null(trace__meta(t, "cpus"));
	assert_int_equal(trace__set_meta(t, NULL, "x"), -EINVAL);
	trace__free(t);
}

/* A key and a value from a file, a peer or the system are kept escaped, and found so. */
static void test_trace_set_meta_escapes(void **state)
{
	struct tc_trace *t = trace__new();

	(void)state;
	assert_int_equal(trace__set_meta(t, "host.name", "n\x1b]0;pwned\x07\xff"), 0);
	assert_int_equal(trace__set_meta(t, "x\ty", "caf\xc3\xa9"), 0);
	assert_string_equal(trace__meta(t, "host.name"), "n\\x1b]0;pwned\\x07\\xff");
	assert_string_equal(t->meta[1].key, "x\\x09y");
	assert_string_equal(t->meta[1].val, "caf\xc3\xa9");
	/* the same raw key replaces its value */
	assert_int_equal(trace__set_meta(t, "x\ty", "2"), 0);
	assert_int_equal(t->n_meta, 2);
	assert_string_equal(trace__meta(t, "x\\x09y"), "2");
	trace__free(t);
}

static void test_trace_thread_role_unknown_is_zero(void **state)
{
	struct tc_trace *t = trace__new();

	(void)state;
	assert_int_equal(trace__add_thread(t, 100, TC_THREAD_PROBE, 2), 0);
	assert_int_equal(trace__add_thread(t, 101, TC_THREAD_SELF, UINT32_MAX), 0);
	assert_int_equal(trace__thread_role(t, 100), TC_THREAD_PROBE);
	assert_int_equal(trace__thread_role(t, 101), TC_THREAD_SELF);
	assert_int_equal(trace__thread_role(t, 102), 0);
	assert_int_equal(t->threads[1].cpu, UINT32_MAX);
	assert_int_equal(t->threads[1].pad, 0);
	trace__free(t);
}

static void test_trace_add_samples_grows_and_copies(void **state)
{
	struct tc_trace *t = trace__new();
	struct tc_sample s[3];
	size_t i;

	(void)state;
	for (i = 0; i < 1000; i++) {
		memset(s, 0, sizeof(s));
		s[0].t_start = i;
		s[0].t_end = i + 10;
		s[0].tid = (uint32_t)i;
		assert_int_equal(trace__add_samples(t, s, i % 3 + 1), 0);
	}
	/* call i added i % 3 + 1 records, the first of them stamped i */
	assert_int_equal(t->n_samples, 1999);
	assert_int_equal(trace__add_samples(t, NULL, 0), 0);
	assert_int_equal(t->n_samples, 1999);
	assert_int_equal(t->samples[0].t_end, 10);
	assert_int_equal(t->samples[1].t_start, 1);
	assert_int_equal(t->samples[2].t_end, 0);
	assert_int_equal(t->samples[3].t_start, 2);
	assert_int_equal(t->samples[1998].t_start, 999);
	assert_int_equal(t->samples[1998].tid, 999);
	trace__free(t);
}

static void test_trace_add_events_grows_and_copies(void **state)
{
	struct tc_trace *t = trace__new();
	struct tc_event e;
	size_t i;

	(void)state;
	for (i = 0; i < 5000; i++) {
		e = ev(i * 10, (uint32_t)i);
		assert_int_equal(trace__add_events(t, &e, 1), 0);
	}
	e.start_ns = 0; /* the trace holds a copy */
	assert_int_equal(t->n_events, 5000);
	assert_int_equal(t->events[4999].start_ns, 49990);
	assert_string_equal(t->events[4999].other_comm, "kworker/0:1");
	trace__free(t);
}

static void test_trace_irq_name_truncates_long_name(void **state)
{
	struct tc_trace *t = trace__new();
	char longname[100];

	(void)state;
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(trace__add_irq_name(t, 24, "mlx5_comp0@pci:0000:3b:00.0"), 0);
	assert_int_equal(trace__add_irq_name(t, 25, longname), 0);
	assert_string_equal(trace__irq_name(t, 24), "mlx5_comp0@pci:0000:3b:00.0");
	assert_int_equal(strlen(trace__irq_name(t, 25)), 63);
	assert_null(trace__irq_name(t, 26));
	assert_int_equal(trace__add_irq_name(t, 27, NULL), -EINVAL);
	trace__free(t);
}

/* An IRQ name is kept escaped, cut where the field is full but never inside an escape. */
static void test_trace_irq_name_escapes(void **state)
{
	struct tc_trace *t = trace__new();
	char name[64];

	(void)state;
	assert_int_equal(trace__add_irq_name(t, 24, "eth\x1b[2J0"), 0);
	assert_string_equal(trace__irq_name(t, 24), "eth\\x1b[2J0");
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	name[61] = '\x1b';
	assert_int_equal(trace__add_irq_name(t, 25, name), 0);
	assert_int_equal(strlen(trace__irq_name(t, 25)), 61);
	trace__free(t);
}

static void test_trace_add_counter_grows_and_copies(void **state)
{
	struct tc_trace *t = trace__new();
	size_t i;

	(void)state;
	for (i = 0; i < 5000; i++)
		assert_int_equal(trace__add_counter(t, TC_COUNTER_IRQ + i % 2, (uint32_t)i,
						    (uint32_t)(i % 64), (uint64_t)i << 33),
				 0);
	assert_int_equal(t->n_counters, 5000);
	assert_true(t->cap_counters >= 5000);
	for (i = 0; i < 5000; i++) {
		const struct tc_counter *c = &t->counters[i];

		assert_int_equal(c->kind, TC_COUNTER_IRQ + i % 2);
		assert_int_equal(c->key, i);
		assert_int_equal(c->cpu, i % 64);
		assert_int_equal(c->pad, 0);
		assert_int_equal(c->value, (uint64_t)i << 33);
	}
	assert_int_equal(trace__add_counter(t, UINT32_MAX, 0, 0, UINT64_MAX), 0);
	assert_int_equal(t->counters[5000].value, UINT64_MAX);
	trace__free(t); /* frees the counters too: run under valgrind */
}

static void test_trace_set_drops_grows_and_zero_fills(void **state)
{
	struct tc_trace *t = trace__new();

	(void)state;
	assert_int_equal(trace__set_drops(t, 3, 7), 0);
	assert_int_equal(t->n_drops, 4);
	assert_int_equal(t->drops[0] + t->drops[1] + t->drops[2], 0);
	assert_int_equal(trace__set_drops(t, 1, 5), 0);
	assert_int_equal(t->n_drops, 4);
	assert_int_equal(trace__set_drops(t, 3, 2), 0); /* set, not add */
	assert_int_equal(trace__set_drops(t, 9, 1), 0);
	assert_int_equal(t->n_drops, 10);
	assert_int_equal(t->drops[8], 0);
	assert_int_equal(trace__total_drops(t), 8);
	trace__free(t);
}

static void test_trace_sort_sorted_input_unchanged(void **state)
{
	(void)state;
	sort_and_check(3000, gen_sorted);
	sort_and_check(0, gen_random);
	sort_and_check(1, gen_random);
}

static void test_trace_sort_small_is_stable(void **state)
{
	(void)state;
	sort_and_check(2, gen_few_keys);
	sort_and_check(37, gen_few_keys);
	sort_and_check(700, gen_few_keys);
	sort_and_check(1023, gen_random);
}

static void test_trace_sort_large_is_stable(void **state)
{
	(void)state;
	sort_and_check(1024, gen_few_keys);
	sort_and_check(200000, gen_few_keys);
	sort_and_check(100000, gen_random);
	sort_and_check(5000, gen_digit_edge);
}

static void test_trace_sort_extreme_keys(void **state)
{
	(void)state;
	sort_and_check(12, gen_extremes);
	sort_and_check(60000, gen_extremes);
}

static void test_trace_sort_end_ordered_events(void **state)
{
	(void)state;
	sort_and_check(300, gen_end_order);
	sort_and_check(300000, gen_end_order);
	sort_and_check(300000, gen_end_order_ties);
	sort_and_check(300000, gen_long_intervals);
}

static void test_trace_sort_samples_stable(void **state)
{
	size_t sizes[] = {500, 50000};
	size_t k, i, n;

	(void)state;
	for (k = 0; k < 2; k++) {
		struct tc_trace *t = trace__new();
		uint64_t seed = 42;

		n = sizes[k];
		for (i = 0; i < n; i++) {
			struct tc_sample s = {0};

			s.t_start = 1000000 - (rng(&seed) % 64) * 1000;
			s.t_end = s.t_start + 5000;
			s.tid = (uint32_t)i;
			assert_int_equal(trace__add_samples(t, &s, 1), 0);
		}
		trace__sort(t);
		for (i = 1; i < n; i++) {
			const struct tc_sample *a = &t->samples[i - 1], *b = &t->samples[i];

			assert_true(a->t_start <= b->t_start);
			if (a->t_start == b->t_start)
				assert_true(a->tid < b->tid);
			assert_int_equal(b->t_end - b->t_start, 5000);
		}
		trace__free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_new_is_empty),
		cmocka_unit_test(test_trace_set_meta_replaces_value),
		cmocka_unit_test(test_trace_set_meta_escapes),
		cmocka_unit_test(test_trace_thread_role_unknown_is_zero),
		cmocka_unit_test(test_trace_add_samples_grows_and_copies),
		cmocka_unit_test(test_trace_add_events_grows_and_copies),
		cmocka_unit_test(test_trace_irq_name_truncates_long_name),
		cmocka_unit_test(test_trace_irq_name_escapes),
		cmocka_unit_test(test_trace_add_counter_grows_and_copies),
		cmocka_unit_test(test_trace_set_drops_grows_and_zero_fills),
		cmocka_unit_test(test_trace_sort_sorted_input_unchanged),
		cmocka_unit_test(test_trace_sort_small_is_stable),
		cmocka_unit_test(test_trace_sort_large_is_stable),
		cmocka_unit_test(test_trace_sort_extreme_keys),
		cmocka_unit_test(test_trace_sort_end_ordered_events),
		cmocka_unit_test(test_trace_sort_samples_stable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
