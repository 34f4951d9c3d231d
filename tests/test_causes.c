// SPDX-License-Identifier: BSD-2-Clause
/* test_causes.c - the catalogue and how each kind of interval but an off-CPU one is named
 * (test_causes_offcpu.c). */
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

static struct tc_event irq_event(uint16_t kind, uint32_t arg)
{
	struct tc_event e = {.start_ns = 1000, .dur_ns = 500, .cpu = 2, .kind = kind, .arg = arg};

	return e;
}

static void test_causes_name_hardirq_known(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_event e = irq_event(TC_EV_HARDIRQ, 30);
	char buf[64];

	(void)state;
	assert_int_equal(causes_name_event(t, &e, NULL, buf, sizeof(buf)), TC_CAUSE_HARDIRQ);
	assert_string_equal(buf, "hardirq:eth0");
	trace__free(t);
}

static void test_causes_name_hardirq_unknown_irq(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_event e = irq_event(TC_EV_HARDIRQ, 42);
	char buf[64];

	(void)state;
	assert_int_equal(causes_name_event(t, &e, NULL, buf, sizeof(buf)), TC_CAUSE_HARDIRQ);
	assert_string_equal(buf, "hardirq:irq42");
	trace__free(t);
}

static void test_causes_name_nic_irq_default_pattern(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_event e = irq_event(TC_EV_HARDIRQ, 77);
	char buf[TC_COMM_LEN + 96];

	(void)state;
	assert_int_equal(causes_name_event(t, &e, NULL, buf, sizeof(buf)), TC_CAUSE_NIC_IRQ);
	assert_string_equal(buf, "nic-irq:mlx5_comp3@pci:0000:81:00.0");
	trace__free(t);
}

static void test_causes_name_nic_irq_custom_pattern(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_event eth = irq_event(TC_EV_HARDIRQ, 30), mlx = irq_event(TC_EV_HARDIRQ, 77);
	char buf[96];

	(void)state;
	assert_int_equal(causes_name_event(t, &eth, "eth*", buf, sizeof(buf)), TC_CAUSE_NIC_IRQ);
	assert_string_equal(buf, "nic-irq:eth0");
	/* The custom pattern replaces the default one. */
	assert_int_equal(causes_name_event(t, &mlx, "eth*", buf, sizeof(buf)), TC_CAUSE_HARDIRQ);
	assert_string_equal(buf, "hardirq:mlx5_comp3@pci:0000:81:00.0");
	trace__free(t);
}

static void test_causes_name_softirq_vectors(void **state)
{
	static const char *const want[] = {
		"softirq:hi",	   "softirq:timer",    "softirq:net_tx",  "softirq:net_rx",
		"softirq:block",   "softirq:irq_poll", "softirq:tasklet", "softirq:sched",
		"softirq:hrtimer", "softirq:rcu",
	};
	struct tc_trace *t = new_trace();
	char buf[64];

	(void)state;
	for (uint32_t vec = 0; vec < 10; vec++) {
		struct tc_event e = irq_event(TC_EV_SOFTIRQ, vec);

		assert_int_equal(causes_name_event(t, &e, NULL, buf, sizeof(buf)),
				 TC_CAUSE_SOFTIRQ);
		assert_string_equal(buf, want[vec]);
	}
	trace__free(t);
}

static void test_causes_name_softirq_unknown_vector(void **state)
{
	struct tc_event e = irq_event(TC_EV_SOFTIRQ, 12);
	char buf[64];

	(void)state;
	assert_int_equal(causes_name_event(NULL, &e, NULL, buf, sizeof(buf)), TC_CAUSE_SOFTIRQ);
	assert_string_equal(buf, "softirq:vec12");
}

static void test_causes_name_unknown_kind_is_unattributed(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_event e = irq_event(TC_EV_KIND_MAX + 1, 0), zero = irq_event(0, 0);
	char buf[64], want[64];

	(void)state;
	snprintf(want, sizeof(want), "unknown event kind %d", TC_EV_KIND_MAX + 1);
	assert_int_equal(causes_name_event(t, &e, NULL, buf, sizeof(buf)), TC_CAUSE_UNATTRIBUTED);
	assert_string_equal(buf, want);
	assert_int_equal(causes_name_event(t, &zero, NULL, buf, sizeof(buf)),
			 TC_CAUSE_UNATTRIBUTED);
	assert_string_equal(buf, "unknown event kind 0");
	assert_true(causes_evidence_only(TC_EV_KIND_MAX + 1));
	assert_true(causes_evidence_only(0));
	trace__free(t);
}

static void test_causes_name_ipi_kinds(void **state)
{
	static const char *const want[] = {
		"ipi:other",	"ipi:reschedule", "ipi:call_function", "ipi:call_function_single",
		"ipi:irq_work", "ipi:other",
	};
	char buf[64];

	(void)state;
	for (uint32_t arg = 0; arg < 6; arg++) {
		struct tc_event e = irq_event(TC_EV_IPI, arg);

		assert_int_equal(causes_name_event(NULL, &e, NULL, buf, sizeof(buf)), TC_CAUSE_IPI);
		assert_string_equal(buf, want[arg]);
		/* RPS's kick is the NET_RX work it brings, whatever the vector. */
		e.flags = TC_IPI_RPS;
		assert_int_equal(causes_name_event(NULL, &e, NULL, buf, sizeof(buf)),
				 TC_CAUSE_SOFTIRQ);
		assert_string_equal(buf, "softirq:net_rx");
	}
}

static void test_causes_name_nic_events(void **state)
{
	static const char *const want[] = {
		"nic-event:other",	    "nic-event:mlx5_eq_comp",  "nic-event:mlx5_eq_async",
		"nic-event:devlink_health", "nic-event:devlink_hwerr", "nic-event:rxe_rcv",
		"nic-event:other",
	};
	struct tc_event big = irq_event(TC_EV_NIC, UINT32_MAX);
	char buf[64];

	(void)state;
	for (uint32_t arg = 0; arg < 7; arg++) {
		struct tc_event e = irq_event(TC_EV_NIC, arg);

		assert_int_equal(causes_name_event(NULL, &e, NULL, buf, sizeof(buf)),
				 TC_CAUSE_NIC_EVENT);
		assert_string_equal(buf, want[arg]);
	}
	causes_name_event(NULL, &big, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "nic-event:other");
}

static void test_causes_name_single_name_kinds(void **state)
{
	static const struct {
		uint16_t kind;
		const char *want;
		enum tc_cause_class cls;
	} cases[] = {
		{TC_EV_TIMER, "timer", TC_CAUSE_TIMER},
		{TC_EV_PAGE_FAULT, "page-fault", TC_CAUSE_PAGE_FAULT},
		{TC_EV_COMPACTION, "thp-compaction", TC_CAUSE_THP_COMPACTION},
		{TC_EV_COLLAPSE, "thp-compaction", TC_CAUSE_THP_COMPACTION},
		{TC_EV_RECLAIM, "reclaim", TC_CAUSE_RECLAIM},
		{TC_EV_IDLE, "idle-exit", TC_CAUSE_IDLE_EXIT},
		{TC_EV_NMI, "nmi", TC_CAUSE_NMI},
		{TC_EV_STEAL, "steal", TC_CAUSE_STEAL},
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tc_event e = irq_event(cases[i].kind, TC_COMPACT_DIRECT);

		assert_int_equal(causes_name_event(NULL, &e, NULL, buf, sizeof(buf)), cases[i].cls);
		assert_string_equal(buf, cases[i].want);
		assert_false(causes_evidence_only(cases[i].kind));
	}
}

static void test_causes_name_evidence_only_kinds(void **state)
{
	static const struct {
		uint16_t kind;
		const char *want;
	} cases[] = {
		{TC_EV_MIGRATE, "migrate (evidence only)"},
		{TC_EV_IRQ_MOVE, "irq-move (evidence only)"},
		{TC_EV_CPU_FREQ, "cpu-freq (evidence only)"},
		{TC_EV_NAPI, "napi-poll (evidence only)"},
		{TC_EV_LOST, "lost events (evidence only)"},
		{TC_EV_MARK, "iteration mark (evidence only)"},
		{TC_EV_COUNTER, "path counter (evidence only)"},
		{TC_EV_WAKEUP, "wake-up (evidence only)"},
		{TC_EV_COLL, "collective call (evidence only)"},
	};
	int n_evidence = 0;
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tc_event e = irq_event(cases[i].kind, 1);

		assert_int_equal(causes_name_event(NULL, &e, NULL, buf, sizeof(buf)),
				 TC_CAUSE_UNATTRIBUTED);
		assert_string_equal(buf, cases[i].want);
		assert_true(causes_evidence_only(cases[i].kind));
	}
	for (uint16_t k = 1; k <= TC_EV_KIND_MAX; k++)
		n_evidence += causes_evidence_only(k);
	assert_int_equal(n_evidence, 9);
}

/* Signals by name, real-time ones by their offset, unknown numbers as numbers. */
static void test_causes_name_signals(void **state)
{
	static const struct {
		uint32_t signo;
		const char *want;
	} cases[] = {
		{27, "signal:SIGPROF"}, {14, "signal:SIGALRM"},	   {23, "signal:SIGURG"},
		{31, "signal:SIGSYS"},	{34, "signal:SIGRTMIN+2"}, {64, "signal:SIGRTMIN+32"},
		{0, "signal:SIG0"},	{65, "signal:SIG65"},
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tc_event e = irq_event(TC_EV_SIGNAL, cases[i].signo);

		assert_int_equal(causes_name_event(NULL, &e, NULL, buf, sizeof(buf)),
				 TC_CAUSE_SIGNAL);
		assert_string_equal(buf, cases[i].want);
	}
}

/*
 * A signal's timeline line: its sender (a process, the kernel, or not seen) and whether
 * its handler ran, returned unseen, or there was none.
 */
static void test_causes_describe_signals(void **state)
{
	struct tc_event e = irq_event(TC_EV_SIGNAL, 10);
	char buf[160];

	(void)state;
	e.tid = 12;
	e.cpu = 1;
	e.other_pid = 9;
	memcpy(e.other_comm, "tc-sigsend", 11);
	describe_event(NULL, &e, buf, sizeof(buf));
	assert_string_equal(
		buf, "SIGUSR1 to tid 12 on cpu 1, sent by tc-sigsend (pid 9); its handler ran");

	e = irq_event(TC_EV_SIGNAL, 14);
	e.tid = 12;
	e.flags = TC_SIGNAL_KERNEL;
	describe_event(NULL, &e, buf, sizeof(buf));
	assert_string_equal(buf, "SIGALRM to tid 12 on cpu 2, sent by the kernel; its handler ran");

	e.dur_ns = 0;
	e.flags = 0;
	describe_event(NULL, &e, buf, sizeof(buf));
	assert_string_equal(buf, "SIGALRM to tid 12 on cpu 2; no handler return seen");

	e.flags = TC_SIGNAL_KERNEL | TC_SIGNAL_NO_HANDLER;
	describe_event(NULL, &e, buf, sizeof(buf));
	assert_string_equal(buf,
			    "SIGALRM to tid 12 on cpu 2, sent by the kernel; default or ignored, "
			    "no handler");
}

/*
 * Callbacks by the function the recorder resolved: a work item, someone's timer, the
 * tick; an address the trace does not name stays an address.
 */
static void test_causes_name_callbacks(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_event work = irq_event(TC_EV_WORK, 0), timer = irq_event(TC_EV_TIMER_FN, 1),
			tick = irq_event(TC_EV_TIMER_FN, 1), anon = irq_event(TC_EV_WORK, 0);
	char buf[96];

	(void)state;
	work.func = 0xffffffff81234560ull;
	timer.func = 0xffffffff81487ce0ull;
	tick.func = 0xffffffff814428a0ull;
	anon.func = 0xffffffff80000010ull;
	assert_int_equal(trace__set_meta(t, "ksym.ffffffff81234560", "vmstat_update"), 0);
	assert_int_equal(trace__set_meta(t, "ksym.ffffffff81487ce0", "watchdog_timer_fn"), 0);
	assert_int_equal(trace__set_meta(t, "ksym.ffffffff814428a0", "tick_nohz_handler"), 0);
	assert_int_equal(causes_name_event(t, &work, NULL, buf, sizeof(buf)), TC_CAUSE_WORKQUEUE);
	assert_string_equal(buf, "workqueue:vmstat_update");
	assert_int_equal(causes_name_event(t, &timer, NULL, buf, sizeof(buf)), TC_CAUSE_TIMER);
	assert_string_equal(buf, "timer:watchdog_timer_fn");
	assert_int_equal(causes_name_event(t, &tick, NULL, buf, sizeof(buf)), TC_CAUSE_TIMER);
	assert_string_equal(buf, "timer:tick");
	assert_int_equal(causes_name_event(t, &anon, NULL, buf, sizeof(buf)), TC_CAUSE_WORKQUEUE);
	assert_string_equal(buf, "workqueue:0xffffffff80000010");
	trace__free(t);
}

/* The context's callback renames a kworker's preemption, the timer interrupt, the TIMER
 * softirq; without one they keep today's names. */
static void test_causes_name_by_callback_context(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_event kw = offcpu(TC_OFFCPU_PREEMPTED, 77, "kworker/1:2"),
			other = offcpu(TC_OFFCPU_PREEMPTED, 78, "stress"),
			irq = irq_event(TC_EV_TIMER, 0), soft = irq_event(TC_EV_SOFTIRQ, 1),
			rcu = irq_event(TC_EV_SOFTIRQ, 9);
	struct tc_name_ctx work = {TC_CAUSE_UNATTRIBUTED, TC_NO_VECTOR, 0xffffffff81234560ull},
			   tick = {TC_CAUSE_UNATTRIBUTED, TC_NO_VECTOR, 0xffffffff814428a0ull},
			   none = {TC_CAUSE_UNATTRIBUTED, TC_NO_VECTOR, 0};
	char buf[96];

	(void)state;
	assert_int_equal(trace__set_meta(t, "ksym.ffffffff81234560", "vmstat_update"), 0);
	assert_int_equal(trace__set_meta(t, "ksym.ffffffff814428a0", "tick_nohz_handler"), 0);
	assert_int_equal(causes_name_event_ctx(t, &kw, &work, NULL, buf, sizeof(buf)),
			 TC_CAUSE_WORKQUEUE);
	assert_string_equal(buf, "workqueue:vmstat_update");
	assert_int_equal(causes_name_event_ctx(t, &kw, &none, NULL, buf, sizeof(buf)),
			 TC_CAUSE_PREEMPTION);
	assert_string_equal(buf, "preemption:kworker/1:2");
	/* only a kworker is named by its work */
	causes_name_event_ctx(t, &other, &work, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "preemption:stress");
	assert_int_equal(causes_name_event_ctx(t, &irq, &tick, NULL, buf, sizeof(buf)),
			 TC_CAUSE_TIMER);
	assert_string_equal(buf, "timer:tick");
	causes_name_event_ctx(t, &irq, &none, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "timer");
	assert_int_equal(causes_name_event_ctx(t, &soft, &work, NULL, buf, sizeof(buf)),
			 TC_CAUSE_TIMER);
	assert_string_equal(buf, "timer:vmstat_update");
	/* a vector that runs no timers keeps its name */
	causes_name_event_ctx(t, &rcu, &work, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "softirq:rcu");
	trace__free(t);
}

static void test_causes_name_truncates_to_buffer(void **state)
{
	struct tc_trace *t = new_trace();
	struct tc_event e = offcpu(TC_OFFCPU_PREEMPTED, 555, "stress");
	char buf[8];

	(void)state;
	causes_name_event(t, &e, NULL, buf, sizeof(buf));

	assert_string_equal(buf, "preempt");
	trace__free(t);
}

static void test_causes_softirq_name_kernel_case(void **state)
{
	(void)state;
	assert_string_equal(causes_softirq_name(0), "HI");
	assert_string_equal(causes_softirq_name(3), "NET_RX");
	assert_string_equal(causes_softirq_name(5), "IRQ_POLL");
	assert_string_equal(causes_softirq_name(9), "RCU");
	assert_string_equal(causes_softirq_name(10), "?");
}

static void test_causes_info_covers_every_class(void **state)
{
	(void)state;
	for (int c = 0; c < TC_CAUSE_CLASS_COUNT; c++) {
		const struct tc_cause_info *i = causes_info(c);

		assert_non_null(i);
		assert_int_equal(i->cls, c);
		assert_true(i->prefix && *i->prefix);
		assert_true(i->what && *i->what);
		assert_true(i->fix && *i->fix);
	}
	assert_null(causes_info(TC_CAUSE_CLASS_COUNT));
	assert_string_equal(causes_info(TC_CAUSE_NIC_IRQ)->prefix, "nic-irq");
	assert_string_equal(causes_info(TC_CAUSE_THP_COMPACTION)->fix,
			    "echo never > /sys/kernel/mm/transparent_hugepage/{enabled,defrag}");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_causes_name_hardirq_known),
		cmocka_unit_test(test_causes_name_hardirq_unknown_irq),
		cmocka_unit_test(test_causes_name_nic_irq_default_pattern),
		cmocka_unit_test(test_causes_name_nic_irq_custom_pattern),
		cmocka_unit_test(test_causes_name_softirq_vectors),
		cmocka_unit_test(test_causes_name_softirq_unknown_vector),
		cmocka_unit_test(test_causes_name_unknown_kind_is_unattributed),
		cmocka_unit_test(test_causes_name_ipi_kinds),
		cmocka_unit_test(test_causes_name_nic_events),
		cmocka_unit_test(test_causes_name_single_name_kinds),
		cmocka_unit_test(test_causes_name_evidence_only_kinds),
		cmocka_unit_test(test_causes_name_signals),
		cmocka_unit_test(test_causes_describe_signals),
		cmocka_unit_test(test_causes_name_callbacks),
		cmocka_unit_test(test_causes_name_by_callback_context),
		cmocka_unit_test(test_causes_name_truncates_to_buffer),
		cmocka_unit_test(test_causes_softirq_name_kernel_case),
		cmocka_unit_test(test_causes_info_covers_every_class),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
