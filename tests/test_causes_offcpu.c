// SPDX-License-Identifier: BSD-2-Clause
/* test_causes_offcpu.c - how an off-CPU interval of the probe is named: by the task that
 * ran instead (its name escaped, bounded), the recorder's own, ksoftirqd and kernel
 * threads by their context, blocked as unattributed. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/attrib/causes.h"
#include "core/attrib/describe.h"
#include "causes_fixture.h"

static void test_causes_name_preempted_offcpu(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_event e = offcpu(TC_OFFCPU_PREEMPTED, 555, "stress");
	char buf[TC_COMM_LEN + 64];

	(void)state;
	assert_int_equal(causes_name_event(t, &e, NULL, buf, sizeof(buf)), TC_CAUSE_PREEMPTION);
	assert_string_equal(buf, "preemption:stress");
	trace__free(t);
}

static void test_causes_name_preemption_by_recorder_is_self(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_event e = offcpu(TC_OFFCPU_PREEMPTED, SELF_TID, "tailcause");
	char buf[64];

	(void)state;
	assert_int_equal(causes_name_event(t, &e, NULL, buf, sizeof(buf)), TC_CAUSE_SELF);
	assert_string_equal(buf, "self");
	trace__free(t);
}

static void test_causes_name_ksoftirqd_without_context(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_event e = offcpu(TC_OFFCPU_PREEMPTED, 12, "ksoftirqd/2");
	char buf[64];

	(void)state;
	assert_int_equal(causes_name_event(t, &e, NULL, buf, sizeof(buf)), TC_CAUSE_SOFTIRQ);
	assert_string_equal(buf, "softirq:ksoftirqd");
	trace__free(t);
}

static void test_causes_name_ksoftirqd_takes_the_context_vector(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_event e = offcpu(TC_OFFCPU_PREEMPTED, 12, "ksoftirqd/2");
	struct tc_name_ctx ctx = {TC_CAUSE_UNATTRIBUTED, 3};
	char buf[64];

	(void)state;
	assert_int_equal(causes_name_event_ctx(t, &e, &ctx, NULL, buf, sizeof(buf)),
			 TC_CAUSE_SOFTIRQ);
	assert_string_equal(buf, "softirq:net_rx");
	ctx.softirq_vec = 17;
	causes_name_event_ctx(t, &e, &ctx, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "softirq:vec17");
	/* A vector means nothing for another task: softirqs also run on IRQ exit. */
	e = offcpu(TC_OFFCPU_PREEMPTED, 555, "stress");
	ctx.softirq_vec = 3;
	assert_int_equal(causes_name_event_ctx(t, &e, &ctx, NULL, buf, sizeof(buf)),
			 TC_CAUSE_PREEMPTION);
	assert_string_equal(buf, "preemption:stress");
	trace__free(t);
}

static void test_causes_name_kernel_thread_comms(void **state)
{
	static const struct {
		const char *comm, *want;
		enum tc_cause_class cls;
	} cases[] = {
		{"kcompactd0", "thp-compaction", TC_CAUSE_THP_COMPACTION},
		{"khugepaged", "thp-compaction", TC_CAUSE_THP_COMPACTION},
		{"kswapd1", "reclaim", TC_CAUSE_RECLAIM},
		{"migration/2", "migration", TC_CAUSE_MIGRATION},
		/* prefixes only as the kernel spells them */
		{"migration", "preemption:migration", TC_CAUSE_PREEMPTION},
		{"kswap", "preemption:kswap", TC_CAUSE_PREEMPTION},
		{"ksoftirqd", "preemption:ksoftirqd", TC_CAUSE_PREEMPTION},
		{"my-kswapd", "preemption:my-kswapd", TC_CAUSE_PREEMPTION},
	};
	struct tc_trace *t = new_trace();
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tc_event e = offcpu(TC_OFFCPU_PREEMPTED, 40, cases[i].comm);

		assert_int_equal(causes_name_event(t, &e, NULL, buf, sizeof(buf)), cases[i].cls);
		assert_string_equal(buf, cases[i].want);
	}
	trace__free(t);
}

static void test_causes_name_context_task_was_compacting_or_reclaiming(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_event e = offcpu(TC_OFFCPU_PREEMPTED, 555, "kswapd0");
	struct tc_name_ctx ctx = {TC_CAUSE_THP_COMPACTION, TC_NO_VECTOR};
	char buf[64];

	(void)state;
	/* What the task did beats what its name suggests. */
	assert_int_equal(causes_name_event_ctx(t, &e, &ctx, NULL, buf, sizeof(buf)),
			 TC_CAUSE_THP_COMPACTION);
	assert_string_equal(buf, "thp-compaction");
	e = offcpu(TC_OFFCPU_PREEMPTED, 555, "stress");
	ctx.task_was = TC_CAUSE_RECLAIM;
	assert_int_equal(causes_name_event_ctx(t, &e, &ctx, NULL, buf, sizeof(buf)),
			 TC_CAUSE_RECLAIM);
	assert_string_equal(buf, "reclaim");
	/* Blocked stays blocked; the recorder stays self. */
	e = offcpu(0, 555, "stress");
	assert_int_equal(causes_name_event_ctx(t, &e, &ctx, NULL, buf, sizeof(buf)),
			 TC_CAUSE_UNATTRIBUTED);
	e = offcpu(TC_OFFCPU_PREEMPTED, SELF_TID, "tailcause");
	assert_int_equal(causes_name_event_ctx(t, &e, &ctx, NULL, buf, sizeof(buf)), TC_CAUSE_SELF);
	trace__free(t);
}

static void test_causes_name_comm_without_nul_is_bounded(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_event e = offcpu(TC_OFFCPU_PREEMPTED, 555, "");
	char buf[64];

	(void)state;
	memcpy(e.other_comm, "abcdefghijklmnopqrstuvwxyz", TC_COMM_LEN); /* no NUL */

	causes_name_event(t, &e, NULL, buf, sizeof(buf));

	assert_string_equal(buf, "preemption:abcdefghijklmnop");
	trace__free(t);
}

/* A task name is shown escaped (lib/str.h) in every name, even 16 bytes with no NUL. */
static void test_causes_name_escapes_task_names(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_event e = offcpu(TC_OFFCPU_PREEMPTED, 555, "hx\x1b[2J");
	char buf[96], comm[TC_COMM_TEXT_LEN];

	(void)state;
	causes_name_event(t, &e, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "preemption:hx\\x1b[2J");
	e = offcpu(0, 555, "\xff\x07");
	causes_name_event(t, &e, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "blocked, then \\xff\\x07 ran");
	e.kind = TC_EV_SIBLING;
	causes_name_event(t, &e, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "smt-sibling:\\xff\\x07");
	/* the longest: 16 escaped bytes, whole, and peer-marked */
	e = offcpu(TC_OFFCPU_PREEMPTED, 555, "");
	memset(e.other_comm, 0x1b, TC_COMM_LEN);
	assert_int_equal(strlen(causes_comm(&e, comm, sizeof(comm))), 4 * TC_COMM_LEN);
	causes_name_event(t, &e, NULL, buf, sizeof(buf));
	assert_string_equal(buf + strlen("preemption:"), comm);
	trace__free(t);
}

/* An event's line quotes task and IRQ names escaped, never a raw control byte. */
static void test_causes_describe_escapes_names(void **state)
{
	static const uint16_t kinds[] = {TC_EV_OFFCPU,	TC_EV_SIGNAL,	  TC_EV_WORK,
					 TC_EV_SIBLING, TC_EV_COMPACTION, TC_EV_HARDIRQ};
	struct tc_trace *t = new_trace();
	char buf[256];

	(void)state;
	assert_int_equal(trace__add_irq_name(t, 31, "eth\x1b[2J"), 0);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct tc_event e = offcpu(TC_OFFCPU_PREEMPTED, 555, "");

		memcpy(e.other_comm, "hx\x1b[2Jxxxxxxxxxxxxxxx", TC_COMM_LEN); /* no NUL */
		e.kind = kinds[i];
		e.arg = kinds[i] == TC_EV_HARDIRQ ? 31 : 10;
		describe_event(t, &e, buf, sizeof(buf));
		assert_false(str_needs_escape(buf));
		assert_non_null(strstr(buf, "\\x1b[2J"));
	}
	trace__free(t);
}

static void test_causes_name_blocked_offcpu_is_unattributed(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_event e = offcpu(0, SELF_TID, "sshd"); /* even when self ran: it blocked */
	char buf[64];

	(void)state;
	assert_int_equal(causes_name_event(t, &e, NULL, buf, sizeof(buf)), TC_CAUSE_UNATTRIBUTED);
	assert_string_equal(buf, "blocked, then sshd ran");
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_causes_name_preempted_offcpu),
		cmocka_unit_test(test_causes_name_preemption_by_recorder_is_self),
		cmocka_unit_test(test_causes_name_ksoftirqd_without_context),
		cmocka_unit_test(test_causes_name_ksoftirqd_takes_the_context_vector),
		cmocka_unit_test(test_causes_name_kernel_thread_comms),
		cmocka_unit_test(test_causes_name_context_task_was_compacting_or_reclaiming),
		cmocka_unit_test(test_causes_name_comm_without_nul_is_bounded),
		cmocka_unit_test(test_causes_name_escapes_task_names),
		cmocka_unit_test(test_causes_describe_escapes_names),
		cmocka_unit_test(test_causes_name_blocked_offcpu_is_unattributed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
