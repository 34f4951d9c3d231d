// SPDX-License-Identifier: BSD-2-Clause
/* test_wakeups.c - blocked off-CPU intervals split at their wake-up, and how the parts are named.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "core/attrib/causes.h"
#include "core/trace/trace.h"
#include "core/trace/wakeups.h"

static struct tc_event offcpu(uint64_t start, uint64_t dur, uint64_t woken, uint16_t flags,
			      uint32_t other_pid, const char *comm)
{
	struct tc_event e = {.start_ns = start,
			     .dur_ns = dur,
			     .woken_after_ns = woken,
			     .cpu = 1,
			     .tid = 42,
			     .other_pid = other_pid,
			     .kind = TC_EV_OFFCPU,
			     .flags = flags};

	strncpy(e.other_comm, comm, sizeof(e.other_comm) - 1);
	return e;
}

static void test_split_blocked_with_wakeup(void **state)
{
	struct tc_trace *t = trace__new();
	struct tc_event ev[] = {
		offcpu(1000, 100, 30, TC_OFFCPU_MIGRATED, 77, "hog"), /* split */
		offcpu(2000, 100, 0, 0, 77, "hog"),		      /* woken not seen */
		offcpu(3000, 100, 100, 0, 77, "hog"),		      /* woken at its end */
		offcpu(4000, 100, 0, TC_OFFCPU_PREEMPTED, 77, "hog"), /* preempted */
		offcpu(5000, 0, 0, TC_OFFCPU_UNENDED, 77, "hog"),     /* an instant */
	};
	const struct tc_event *w;

	(void)state;
	assert_int_equal(trace__add_events(t, ev, 5), 0);
	assert_int_equal(trace__split_wakeups(t), 1);
	assert_int_equal(t->n_events, 6);
	assert_int_equal(t->n_derived, 1);
	/* the blocked part, in place: asleep until woken; it moved only when it ran */
	assert_int_equal(t->events[0].start_ns, 1000);
	assert_int_equal(t->events[0].dur_ns, 30);
	assert_int_equal(t->events[0].flags & (TC_OFFCPU_PREEMPTED | TC_OFFCPU_MIGRATED), 0);
	/* the waiting part, appended */
	w = &t->events[5];
	assert_int_equal(w->start_ns, 1030);
	assert_int_equal(w->dur_ns, 70);
	assert_int_equal(w->flags & (TC_OFFCPU_PREEMPTED | TC_OFFCPU_WOKEN | TC_OFFCPU_MIGRATED),
			 TC_OFFCPU_PREEMPTED | TC_OFFCPU_WOKEN | TC_OFFCPU_MIGRATED);
	assert_int_equal(w->tid, 42);
	assert_int_equal(w->other_pid, 77);
	for (size_t i = 1; i < 5; i++)
		assert_memory_equal(&t->events[i], &ev[i], sizeof(ev[i]));
	trace__free(t);
}

static void test_waiting_part_names(void **state)
{
	struct tc_event busy = offcpu(0, 70, 0, TC_OFFCPU_PREEMPTED | TC_OFFCPU_WOKEN, 77, "hog");
	struct tc_event idle =
		offcpu(0, 70, 0, TC_OFFCPU_PREEMPTED | TC_OFFCPU_WOKEN, 0, "swapper/1");
	struct tc_event asleep = offcpu(0, 30, 30, 0, 77, "hog");
	char buf[64];

	(void)state;
	assert_int_equal(causes_name_event(NULL, &busy, NULL, buf, sizeof(buf)),
			 TC_CAUSE_PREEMPTION);
	assert_string_equal(buf, "preemption:hog");
	/* the CPU stayed idle: the wake-up's own way out of idle */
	assert_int_equal(causes_name_event(NULL, &idle, NULL, buf, sizeof(buf)),
			 TC_CAUSE_IDLE_EXIT);
	assert_string_equal(buf, "idle-exit");
	assert_int_equal(causes_name_event(NULL, &asleep, NULL, buf, sizeof(buf)),
			 TC_CAUSE_UNATTRIBUTED);
	assert_string_equal(buf, "blocked, then hog ran");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_blocked_with_wakeup),
		cmocka_unit_test(test_waiting_part_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
