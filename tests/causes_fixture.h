/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * causes_fixture.h - what the tests of how intervals are named share: a trace with the
 * probe's and the recorder's threads and two IRQ names, and an off-CPU interval of the
 * probe. Include after <cmocka.h>.
 */
#ifndef TAILCAUSE_TESTS_CAUSES_FIXTURE_H
#define TAILCAUSE_TESTS_CAUSES_FIXTURE_H

#include <string.h>

#include "core/trace/trace.h"

#define PROBE_TID 100
#define SELF_TID  900

static inline struct tc_trace *new_trace(void)
{
	struct tc_trace *t = trace__new();

	assert_non_null(t);
	assert_int_equal(trace__add_thread(t, PROBE_TID, TC_THREAD_PROBE, 2), 0);
	assert_int_equal(trace__add_thread(t, SELF_TID, TC_THREAD_SELF, UINT32_MAX), 0);
	assert_int_equal(trace__add_irq_name(t, 30, "eth0"), 0);
	assert_int_equal(trace__add_irq_name(t, 77, "mlx5_comp3@pci:0000:81:00.0"), 0);
	return t;
}

static inline struct tc_event offcpu(uint16_t flags, uint32_t other_pid, const char *comm)
{
	struct tc_event e = {.start_ns = 1000,
			     .dur_ns = 500,
			     .cpu = 2,
			     .tid = PROBE_TID,
			     .kind = TC_EV_OFFCPU,
			     .flags = flags,
			     .other_pid = other_pid};

	/* The kernel's comm: up to 16 bytes, NUL-terminated only when shorter. */
	memcpy(e.other_comm, comm, strnlen(comm, sizeof(e.other_comm)));
	return e;
}

#endif /* TAILCAUSE_TESTS_CAUSES_FIXTURE_H */
