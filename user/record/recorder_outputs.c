// SPDX-License-Identifier: BSD-2-Clause
/*
 * recorder_outputs.c - what a recording opens before its run, in order: the trace file
 * (while the recorder may still create it), the privileges it then gives up (privs.h),
 * and what it fills besides the trace: the drop counters and the path counters.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "lib/log.h"
#include "path_counters.h"
#include "privs.h"
#include "recorder_internal.h"
#include "tracefile/trace_file.h"

static uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
}

/* The trace file, created (its clock taken now) while the recorder may still create it. */
int recorder_create_trace(struct recorder *r)
{
	struct timespec mono, real;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	r->writer = trace_writer__open(r->o->out_path, r->o->force, ts_ns(&mono), ts_ns(&real));
	return r->writer ? 0 : -errno;
}

/* What is left of the recorder's privileges once the programs are attached and the trace
 * created (privs.h): the directories it still writes in, the verbs probe's memory. */
int recorder_drop_privileges(struct recorder *r)
{
	const struct recorder_opts *o = r->o;
	struct privs_need n;

	privs_need_init(&n);
	n.finish[0] = o->out_path;
	n.finish[1] = o->peer_out;
	n.finish[2] = o->later_file;
	n.created_fds[0] = trace_writer__fd(r->writer);
	n.created_fds[1] = o->created_dir_fd;
	n.memlock = !o->command && !strcmp(o->probe->name, "verbs");
	n.command_spawned = o->command != NULL;
	return privs_drop(&n);
}

/* What a recording fills besides the trace: the drop counters (the first lost window starts
 * now) and the path counters; 0 or a negative errno, said. */
int recorder_open_outputs(struct recorder *r)
{
	struct timespec mono;
	int err;

	if (libbpf_num_possible_cpus() > 0)
		r->n_cpu = (size_t)libbpf_num_possible_cpus();
	r->drops_seen = calloc((r->n_cpu ?: 1) * TC_DROP_KINDS, sizeof(*r->drops_seen));
	r->drops_now = calloc((r->n_cpu ?: 1) * TC_DROP_KINDS, sizeof(*r->drops_now));
	if (!r->drops_seen || !r->drops_now) {
		log_err("allocate drop counters: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	clock_gettime(CLOCK_MONOTONIC, &mono);
	r->last_drain_ns = ts_ns(&mono);
	r->path = path_counters__open(NULL, r->trace, 0);
	if (!r->path) {
		err = -errno;
		log_err("find the path counters: %s", strerror(-err));
		return err;
	}
	return 0;
}
