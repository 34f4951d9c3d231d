// SPDX-License-Identifier: BSD-2-Clause
/*
 * recorder_duration.c - record --duration: a run of any length. The probe runs -n
 * round trips at a time into the same array; each run's samples go to the file at
 * once, so the recorder's memory does not grow with the run.
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
	while (!err && probe_now_ns() - r->start_ns < o->duration_ns && !stop_requested()) {
		size_t n = 0;

		int wrote = 0;

		err = o->probe->run(r->probe, samples, o->probe_opts.iterations, &n);
		if (n) {
			/* the drain thread writes events to the same file */
			pthread_mutex_lock(&r->lock);
			wrote = trace_writer__samples(r->writer, samples, n);
			pthread_mutex_unlock(&r->lock);
			atomic_fetch_add(&r->streamed, n);
		}
		if (!err)
			err = wrote;
	}
	return err;
}
