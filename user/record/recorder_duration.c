// SPDX-License-Identifier: BSD-2-Clause
/*
 * recorder_duration.c - record --duration: a run of any length. The probe runs -n
 * round trips at a time into the same array; each run's samples go to the file at
 * once, so the recorder's memory does not grow with the run. Two hosts both give -D
 * (as perftest) and agree over the run's link, after each run, whether another follows.
 */
#include <stdatomic.h>

#include "lib/log.h"
#include "lib/stop.h"
#include "probe/probe.h"
#include "recorder.h"
#include "recorder_internal.h"
#include "tracefile/trace_file.h"

int recorder_run_for(struct recorder *r, struct tc_sample *samples, size_t *done)
{
	const struct recorder_opts *o = r->o;
	int err = 0;

	*done = 0;
	for (uint64_t runs = 0; !err; runs++) {
		int want = probe_now_ns() - r->start_ns < o->duration_ns && !stop_requested();
		size_t n = 0;
		int wrote = 0;

		/* two hosts: both sides agree between runs (the first is agreed at open) */
		want = runs ? probe_next_run(o->probe, r->probe, want) : want;
		if (want <= 0) {
			err = want;
			break;
		}
		err = o->probe->run(r->probe, samples, o->probe_opts.iterations, &n);
		if (n) {
			/* the drain thread writes events to the same file */
			pthread_mutex_lock(&r->lock);
			wrote = trace_writer__samples(r->writer, samples, n);
			pthread_mutex_unlock(&r->lock);
			atomic_fetch_add(&r->streamed, n);
		}
		/* what a whole run records, by which a two-host report pairs the runs' round
		 * trips (the server's are one fewer a run than the client's) */
		if (!runs)
			wrote = wrote ?: trace__set_metaf(r->trace, "run.run_samples", "%zu", n);
		if (!err)
			err = wrote;
	}
	return err;
}
