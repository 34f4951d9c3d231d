// SPDX-License-Identifier: BSD-2-Clause
/*
 * verbs_clock.c - the verbs probe's timestamps, on CLOCK_MONOTONIC (the clock
 * of bpf_ktime_get_ns) in the end, whichever way they are read.
 *
 * clock_gettime() costs ~20 ns through the vDSO where the kernel's clocksource
 * is the TSC, but a system call plus a device read where it is not: ~1 us in a
 * TCG guest whose clocksource is an emulated HPET. That is a tenth of the
 * round trip being measured. rdtsc is what perftest reads, so where
 * clock_gettime costs clearly more, the loop reads the TSC and the stamps are
 * mapped to CLOCK_MONOTONIC afterwards, linearly, with (TSC, CLOCK_MONOTONIC)
 * pairs taken on the same CPU at open, just before and just after the run.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "verbs.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
static inline uint64_t tsc_read(void)
{
	return __rdtsc();
}
#else
#define HAVE_TSC 0
static inline uint64_t tsc_read(void)
{
	return 0;
}
#endif

#define BATCH  256
#define ROUNDS 5

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Cheapest of ROUNDS batches, per call, in ns: the undisturbed cost. */
static double cost_gettime(void)
{
	double best = 1e9;

	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = mono_ns(), t1;

		for (int i = 0; i < BATCH - 1; i++)
			mono_ns();
		t1 = mono_ns();
		if ((double)(t1 - t0) / BATCH < best)
			best = (double)(t1 - t0) / BATCH;
	}
	return best;
}

static double cost_tsc(double gettime_ns)
{
	volatile uint64_t sink = 0;
	double best = 1e9;

	/* Big batches: the two clock_gettime calls around them must not dominate. */
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = mono_ns(), t1;

		for (int i = 0; i < 16 * BATCH; i++)
			sink += tsc_read();
		t1 = mono_ns();
		double per = ((double)(t1 - t0) - gettime_ns) / (16 * BATCH);

		if (per < best)
			best = per;
	}
	(void)sink;
	return best > 0 ? best : 0;
}

void verbs_clock__init(struct verbs_clock *c, const char *want)
{
	int tsc;

	memset(c, 0, sizeof(*c));
	c->gettime_ns = cost_gettime();
	c->tsc_ns = HAVE_TSC ? cost_tsc(c->gettime_ns) : 0;
	if (want && !strcmp(want, "tsc"))
		tsc = HAVE_TSC;
	else if (want && !strcmp(want, "monotonic"))
		tsc = 0;
	else
		tsc = HAVE_TSC && c->gettime_ns > c->tsc_ns + VERBS_CLOCK_SLACK_NS;
	c->kind = tsc ? VERBS_CLOCK_TSC : VERBS_CLOCK_MONOTONIC;
	if (tsc)
		snprintf(c->desc, sizeof(c->desc),
			 "TSC (rdtsc, %.0f ns a read; clock_gettime costs %.0f ns here), mapped to "
			 "CLOCK_MONOTONIC by (TSC, CLOCK_MONOTONIC) pairs before and after the run",
			 c->tsc_ns, c->gettime_ns);
	else
		snprintf(c->desc, sizeof(c->desc),
			 "CLOCK_MONOTONIC (clock_gettime, %.0f ns a read)", c->gettime_ns);
	verbs_clock__pair(c, 0);
}

uint64_t verbs_clock__read(const struct verbs_clock *c)
{
	return c->kind == VERBS_CLOCK_TSC ? tsc_read() : mono_ns();
}

void verbs_clock__pair(struct verbs_clock *c, int i)
{
	uint64_t best = UINT64_MAX;

	/* The tightest of a few brackets: a preemption inside one would skew the map. */
	for (int r = 0; r < 7; r++) {
		uint64_t a = tsc_read(), m = mono_ns(), b = tsc_read();

		if (b - a < best) {
			best = b - a;
			c->tsc[i] = a + (b - a) / 2;
			c->mono[i] = m;
		}
	}
}

void verbs_clock__convert(struct verbs_clock *c, struct tc_sample *s, size_t n)
{
	int64_t dt = (int64_t)(c->tsc[2] - c->tsc[0]);
	double ns_per_tick;
	size_t len;

	if (c->kind != VERBS_CLOCK_TSC)
		return;
	/* The longest span gives the best slope; the pair just before anchors it. */
	ns_per_tick = dt > 0 ? (double)(c->mono[2] - c->mono[0]) / (double)dt : 1.0;
	len = strlen(c->desc);
	if (!strstr(c->desc, " MHz"))
		snprintf(c->desc + len, sizeof(c->desc) - len, "; TSC at %.1f MHz",
			 1000.0 / ns_per_tick);
	for (size_t i = 0; i < n; i++) {
		int64_t a = (int64_t)(s[i].t_start - c->tsc[1]);
		int64_t b = (int64_t)(s[i].t_end - c->tsc[1]);

		s[i].t_start = c->mono[1] + (uint64_t)(int64_t)((double)a * ns_per_tick);
		s[i].t_end = c->mono[1] + (uint64_t)(int64_t)((double)b * ns_per_tick);
	}
}
