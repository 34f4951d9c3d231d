// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_report_plan.c - how a report reads its trace (user/report/report_plan.c): whole, the
 * stretch's blocks alone or a segment at a time, from the options and what opening the
 * file told, and the refusals with their lines and exit classes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "lib/exitcode.h"
#include "report/report_plan.h"

#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)

/* A probe's trace of size bytes, indexed: n round trips and as many events. */
static struct report_facts probe_trace(uint64_t size, uint64_t n)
{
	return (struct report_facts){
		.file = {.file_size = size, .intact = 1, .indexed = 1, .samples = n, .events = n},
		.mem_avail = 64 * GIB,
	};
}

/* A trace of `record -- CMD`: events only. */
static struct report_facts command_trace(uint64_t size)
{
	return (struct report_facts){
		.file = {.file_size = size, .intact = 1, .indexed = 1, .events = 1000},
		.mem_avail = 64 * GIB,
	};
}

static struct report_opts text(void)
{
	return (struct report_opts){.format = REPORT_TEXT, .to_ns = UINT64_MAX};
}

static void assert_plan(const struct report_opts *o, const struct report_facts *f,
			enum report_read read, const char *why)
{
	struct report_plan p;

	assert_int_equal(report_plan("t.tct", o, f, &p), 0);
	assert_int_equal(p.read, read);
	assert_non_null(p.why);
	if (why)
		assert_string_equal(p.why, why);
}

static void assert_refused(const struct report_opts *o, const struct report_facts *f, int err,
			   const char *msg)
{
	struct report_plan p;

	assert_int_equal(report_plan("t.tct", o, f, &p), err);
	assert_string_equal(p.msg, msg);
}

static void test_plan_small_trace_read_whole(void **state)
{
	struct report_facts f = probe_trace(MIB, 2000);
	struct report_opts o = text();

	(void)state;
	assert_plan(&o, &f, REPORT_READ_WHOLE, "under 64 MiB: read whole");
	f.file.file_size = 0; /* a pipe: what stat() says of it */
	assert_plan(&o, &f, REPORT_READ_WHOLE, "under 64 MiB: read whole");
}

static void test_plan_long_trace_streamed(void **state)
{
	struct report_facts f = probe_trace(64 * MIB, 5000000);
	struct report_opts o = text();

	(void)state;
	assert_plan(&o, &f, REPORT_READ_STREAMED, "64 MiB or more: a segment at a time");
	f.file.file_size = 64 * MIB - 1;
	assert_plan(&o, &f, REPORT_READ_WHOLE, NULL);
	o.stream = 1;
	assert_plan(&o, &f, REPORT_READ_STREAMED, "--stream: a segment at a time");
	f.file.file_size = 64 * MIB;
	o.stream = -1;
	assert_plan(&o, &f, REPORT_READ_WHOLE, "--no-stream");
	/* a stretch of a long trace, in a format that streams: streamed too */
	o.stream = 0;
	o.from_ns = 1000000000;
	assert_plan(&o, &f, REPORT_READ_STREAMED, NULL);
	/* without an index, counted from its blocks */
	f.file.indexed = 0;
	assert_plan(&o, &f, REPORT_READ_STREAMED, NULL);
}

/* --stream where the report reads the whole trace: one line, a usage error, in this order. */
static void test_plan_stream_refused(void **state)
{
	struct report_facts f = probe_trace(MIB, 2000), noise = command_trace(MIB);
	struct report_opts o = text();

	(void)state;
	o.stream = 1;
	o.format = REPORT_PERFETTO;
	o.peer_path = "peer.tct";
	assert_refused(&o, &f, -TC_ERRNO__USAGE,
		       "report t.tct: --stream: the Perfetto trace holds every round trip (report "
		       "a stretch of it with --from/--to); report it without --stream");
	o.format = REPORT_JSON;
	f.marked = 1;
	assert_refused(&o, &f, -TC_ERRNO__USAGE,
		       "report t.tct: --stream: a two-host join aligns the whole run's clocks; "
		       "report it without --stream");
	o.peer_path = NULL;
	assert_refused(&o, &f, -TC_ERRNO__USAGE,
		       "report t.tct: --stream: a benchmark's own iterations are placed on the "
		       "whole trace; report it without --stream");
	f.marked = 0;
	o.samples_path = "bench.csv";
	assert_refused(&o, &noise, -TC_ERRNO__USAGE,
		       "report t.tct: --stream: a benchmark's own iterations are placed on the "
		       "whole trace; report it without --stream");
	o.samples_path = NULL;
	assert_refused(&o, &noise, -TC_ERRNO__USAGE,
		       "report t.tct: --stream: a trace without round trips is a noise report; "
		       "report it without --stream");
	noise.file.indexed = 0; /* counted from its blocks: the same */
	assert_refused(&o, &noise, -TC_ERRNO__USAGE,
		       "report t.tct: --stream: a trace without round trips is a noise report; "
		       "report it without --stream");
}

/* A trace that did not open intact is read as the options ask: the read says what is wrong
 * (as the reader it asks for says it), not a refusal by what it may hold. */
static void test_plan_not_intact_read_as_asked(void **state)
{
	struct report_facts f = command_trace(MIB);
	struct report_opts o = text();

	(void)state;
	f.file.intact = 0;
	f.file.indexed = 0;
	f.file.events = 0;
	assert_plan(&o, &f, REPORT_READ_WHOLE, "under 64 MiB: read whole");
	o.stream = 1;
	assert_plan(&o, &f, REPORT_READ_STREAMED, NULL);
	o.stream = 0;
	f.file.file_size = 100 * MIB;
	assert_plan(&o, &f, REPORT_READ_STREAMED, NULL);
	f.file.file_size = MIB;
	o.from_ns = 1000000;
	assert_plan(&o, &f, REPORT_READ_STRETCH, NULL);
	/* what the options alone refuse is refused still */
	o.stream = 1;
	o.format = REPORT_PERFETTO;
	assert_refused(&o, &f, -TC_ERRNO__USAGE,
		       "report t.tct: --stream: the Perfetto trace holds every round trip (report "
		       "a stretch of it with --from/--to); report it without --stream");
}

/* A long trace whose report cannot be streamed is read whole, saying why. */
static void test_plan_long_unstreamable_read_whole(void **state)
{
	struct report_facts f = probe_trace(100 * MIB, 5000000), noise = command_trace(100 * MIB);
	struct report_opts o = text();

	(void)state;
	o.format = REPORT_PERFETTO;
	assert_plan(&o, &f, REPORT_READ_WHOLE,
		    "the Perfetto trace holds every round trip (report a stretch of it with "
		    "--from/--to)");
	o.format = REPORT_TEXT;
	assert_plan(&o, &noise, REPORT_READ_WHOLE, "a trace without round trips is a noise report");
	f.marked = 1;
	assert_plan(&o, &f, REPORT_READ_WHOLE,
		    "a benchmark's own iterations are placed on the whole trace");
}

/* --from/--to reads the stretch's blocks alone where its round trips are the trace's own. */
static void test_plan_stretch_alone(void **state)
{
	struct report_facts f = probe_trace(MIB, 2000), noise = command_trace(MIB);
	struct report_opts o = text();

	(void)state;
	o.to_ns = 3000000;
	assert_plan(&o, &f, REPORT_READ_STRETCH, "--from/--to: the stretch's blocks alone");
	o.to_ns = UINT64_MAX;
	o.from_ns = 1000000;
	assert_plan(&o, &f, REPORT_READ_STRETCH, NULL);
	o.format = REPORT_PERFETTO; /* of a long trace too: its stretch, not streamed */
	f.file.file_size = 100 * MIB;
	assert_plan(&o, &f, REPORT_READ_STRETCH, NULL);
	f.file.indexed = 0;
	assert_plan(&o, &f, REPORT_READ_STRETCH, NULL);
	f.file.indexed = 1;
	f.file.file_size = MIB;
	o.samples_path = "bench.csv";
	assert_plan(&o, &f, REPORT_READ_WHOLE,
		    "--samples and --peer pair round trips by their place in the whole run, then "
		    "keep the stretch");
	o.samples_path = NULL;
	o.peer_path = "peer.tct";
	assert_plan(&o, &f, REPORT_READ_WHOLE, NULL);
	o.peer_path = NULL;
	f.marked = 1;
	assert_plan(&o, &f, REPORT_READ_WHOLE,
		    "marked iterations are made from the whole trace, then cut to the stretch");
	assert_plan(&o, &noise, REPORT_READ_WHOLE,
		    "no round trips of its own to find the stretch's blocks by");
	o.from_ns = 0; /* no stretch: --to the end is the whole run */
	assert_plan(&o, &f, REPORT_READ_WHOLE, "under 64 MiB: read whole");
}

/* A long trace read whole whose records would not fit: refused, exit 2, one line. */
static void test_plan_whole_that_does_not_fit_refused(void **state)
{
	struct report_facts f = probe_trace(40 * GIB, 1000000000), noise;
	struct report_opts o = text();
	uint64_t need = 1000000000 * sizeof(struct tc_sample) + 100000000 * sizeof(struct tc_event);

	(void)state;
	o.format = REPORT_PERFETTO;
	f.file.events = 100000000;
	f.mem_avail = 23 * GIB;
	assert_true(need > f.mem_avail);
	assert_refused(&o, &f, -TC_ERRNO__ENV,
		       "report t.tct: read whole, its 1000000000 round trips and 100000000 events "
		       "need over 28.3 GiB, and 23.0 GiB are available: report a stretch of it "
		       "(--from/--to), or as text, JSON, HTML or OpenMetrics, which read it a "
		       "segment at a time");
	f.mem_avail = need; /* it fits */
	assert_plan(&o, &f, REPORT_READ_WHOLE, NULL);
	f.mem_avail = 0; /* not known */
	assert_plan(&o, &f, REPORT_READ_WHOLE, NULL);
	f.mem_avail = 23 * GIB;
	f.file.indexed = 0; /* counted without an index: not checked, as the design says */
	assert_plan(&o, &f, REPORT_READ_WHOLE, NULL);
	f.file.indexed = 1;
	o.from_ns = 1000000000; /* a stretch reads its own blocks */
	assert_plan(&o, &f, REPORT_READ_STRETCH, NULL);
	/* a count past what memory can address is still a number to refuse */
	o.from_ns = 0;
	f.file.samples = UINT64_MAX / 2;
	assert_int_equal(report_plan("t.tct", &o, &f, &(struct report_plan){0}), -TC_ERRNO__ENV);
	noise = command_trace(40 * GIB);
	noise.file.events = 1000000000;
	noise.mem_avail = GIB;
	o.format = REPORT_TEXT;
	assert_refused(&o, &noise, -TC_ERRNO__ENV,
		       "report t.tct: read whole, its 0 round trips and 1000000000 events need "
		       "over 59.6 GiB, and 1.0 GiB are available: a noise report reads the whole "
		       "trace; record a shorter run");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_small_trace_read_whole),
		cmocka_unit_test(test_plan_long_trace_streamed),
		cmocka_unit_test(test_plan_stream_refused),
		cmocka_unit_test(test_plan_not_intact_read_as_asked),
		cmocka_unit_test(test_plan_long_unstreamable_read_whole),
		cmocka_unit_test(test_plan_stretch_alone),
		cmocka_unit_test(test_plan_whole_that_does_not_fit_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
