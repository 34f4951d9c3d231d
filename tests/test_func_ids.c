// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_func_ids.c - kernel functions by id (core/trace/func_ids.c): ids given in the order seen,
 * one per address; names keyed by id, "unnamed#<id>" where kallsyms gave none; the report
 * names the callbacks by them, and no key or name holds the address; an older trace's
 * addresses are still named.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/attrib/causes.h"
#include "core/attrib/describe.h"
#include "core/trace/func_ids.h"

#define VMSTAT 0xffffffff81234560ull
#define TICK   0xffffffff814428a0ull
#define ANON   0xffffffffc0400030ull /* a module's function kallsyms did not list */

static void test_func_ids_given_in_order_seen(void **state)
{
	struct func_ids f = {0};

	(void)state;
	assert_int_equal(func_ids__id(&f, VMSTAT), 1);
	assert_int_equal(func_ids__id(&f, TICK), 2);
	assert_int_equal(func_ids__id(&f, VMSTAT), 1);
	assert_int_equal(func_ids__id(&f, 0), 0); /* no function */
	assert_int_equal(func_ids__id(&f, ANON), 3);
	assert_int_equal(func_ids__id(&f, TICK), 2);
	assert_int_equal(f.n, 3);
	assert_true(f.addr[0] == VMSTAT && f.addr[1] == TICK && f.addr[2] == ANON);
	func_ids__free(&f);
	assert_int_equal(f.n, 0);
	assert_int_equal(func_ids__id(&f, TICK), 1); /* a fresh table starts again */
	func_ids__free(&f);
}

static struct tc_event callback(uint16_t kind, uint64_t func)
{
	struct tc_event e = {.start_ns = 1000, .dur_ns = 20, .cpu = 2, .kind = kind};

	e.func = func;
	if (kind == TC_EV_TIMER_FN)
		e.arg = TC_TIMER_HRTIMER;
	if (kind == TC_EV_WORK) {
		e.other_pid = 77;
		memcpy(e.other_comm, "kworker/2:1", 12);
	}
	return e;
}

/* What the recorder writes: each id named, the report's words from the names alone. */
static void test_func_ids_name_the_callbacks(void **state)
{
	struct tc_trace *t = trace__new();
	struct func_ids f = {0};
	struct tc_event work, tick, anon;
	char buf[160], addr[3][24];

	(void)state;
	assert_non_null(t);
	work = callback(TC_EV_WORK, func_ids__id(&f, VMSTAT));
	tick = callback(TC_EV_TIMER_FN, func_ids__id(&f, TICK));
	anon = callback(TC_EV_NMI, func_ids__id(&f, ANON));
	assert_int_equal(func_ids_name(t, work.func, "vmstat_update"), 0);
	assert_int_equal(func_ids_name(t, tick.func, "tick_nohz_handler"), 0);
	assert_int_equal(func_ids_name(t, anon.func, NULL), 0);
	assert_string_equal(trace__meta(t, "ksym.1"), "vmstat_update");
	assert_string_equal(trace__meta(t, "ksym.3"), "unnamed#3");
	assert_string_equal(causes_ksym(t, tick.func), "tick_nohz_handler");

	assert_int_equal(causes_name_event(t, &work, NULL, buf, sizeof(buf)), TC_CAUSE_WORKQUEUE);
	assert_string_equal(buf, "workqueue:vmstat_update");
	assert_int_equal(causes_name_event(t, &tick, NULL, buf, sizeof(buf)), TC_CAUSE_TIMER);
	assert_string_equal(buf, "timer:tick");
	describe_event(t, &anon, buf, sizeof(buf));
	assert_string_equal(buf, "NMI handler unnamed#3 on cpu 2 (not its NMI)");
	describe_event(t, &work, buf, sizeof(buf));
	assert_string_equal(buf, "work vmstat_update on cpu 2, run by kworker/2:1 (pid 77)");

	/* nothing in the meta spells an address */
	snprintf(addr[0], sizeof(addr[0]), "%llx", VMSTAT);
	snprintf(addr[1], sizeof(addr[1]), "%llx", TICK);
	snprintf(addr[2], sizeof(addr[2]), "%llx", ANON);
	for (size_t i = 0; i < t->n_meta; i++)
		for (size_t a = 0; a < 3; a++) {
			assert_null(strstr(t->meta[i].key, addr[a]));
			assert_null(strstr(t->meta[i].val, addr[a]));
		}
	func_ids__free(&f);
	trace__free(t);
}

/* An older trace: addresses in the events, "ksym.<hex address>" keys. */
static void test_func_ids_older_trace_named_by_address(void **state)
{
	struct tc_trace *t = trace__new();
	struct tc_event work = callback(TC_EV_WORK, VMSTAT), anon = callback(TC_EV_WORK, ANON);
	char buf[96];

	(void)state;
	assert_non_null(t);
	assert_int_equal(trace__set_meta(t, "ksym.ffffffff81234560", "vmstat_update"), 0);
	func_ids_key(VMSTAT, buf, sizeof(buf));
	assert_string_equal(buf, "ksym.ffffffff81234560");
	assert_string_equal(causes_ksym(t, VMSTAT), "vmstat_update");
	causes_name_event(t, &work, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "workqueue:vmstat_update");
	causes_name_event(t, &anon, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "workqueue:0xffffffffc0400030"); /* as it always read */
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_func_ids_given_in_order_seen),
		cmocka_unit_test(test_func_ids_name_the_callbacks),
		cmocka_unit_test(test_func_ids_older_trace_named_by_address),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
