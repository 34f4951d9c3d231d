// SPDX-License-Identifier: BSD-2-Clause
/*
 * inject_hrtimer.c - mode hrtimer: one-shot timerfds on the target CPU that
 * wake nobody, their expiries off the tick (inject.c says why and what is logged).
 */
#include <sys/resource.h>

#include "inject.h"

/* Raises the soft limit of descriptors to the hard one: how many expiries fit. */
static long max_timers(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	return getrlimit(RLIMIT_NOFILE, &rl) ? 1000 : (long)rl.rlim_cur - 64;
}

int run_hrtimer(const struct inject_opts *o)
{
	uint64_t period = (uint64_t)o->period_us * 1000, first;
	long want = o->period_us > 0 ? (long)(o->seconds * 1e6 / (double)o->period_us) : 0, n;

	if (o->target < 0 || o->cpu < 0 || want <= 0) {
		fprintf(stderr, "tc-lab-inject: hrtimer needs -c CPU, -T TARGET and -p > 0\n");
		return 1;
	}
	n = max_timers();
	if (n < want)
		fprintf(stderr, "tc-lab-inject: %ld of %ld expiries (RLIMIT_NOFILE)\n", n, want);
	n = n < want ? n : want;
	pin(o->target); /* an hrtimer is queued on the CPU that starts it */
	first = tool_first_deadline(o->target);
	for (long k = 0; k < n; k++) {
		if (tool_timerfd_at(first + (uint64_t)k * period) < 0) {
			perror("tc-lab-inject: timerfd");
			return 2;
		}
	}
	pin(o->cpu);
	/* Keep the descriptors (closing one cancels its timer) while they fire. */
	sleep_until(first + (uint64_t)n * period);
	for (long k = 0; k < n && first + (uint64_t)k * period <= now_ns(); k++)
		fprintf(o->log, "%llu %llu %d timer:timerfd_tmrproc\n",
			(unsigned long long)(first + (uint64_t)k * period),
			(unsigned long long)(first + (uint64_t)k * period +
					     (uint64_t)o->burst_us * 1000),
			o->target);
	fclose(o->log);
	return 0;
}
