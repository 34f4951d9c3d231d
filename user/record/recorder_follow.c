// SPDX-License-Identifier: BSD-2-Clause
/*
 * recorder_follow.c - what the tracers follow: the probe's threads and CPUs (and the
 * SMT siblings of those CPUs), or a traced command's first thread, and the recorder's
 * own threads, named in the trace.
 */
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/util/cpuset.h"
#include "hostfacts.h"
#include "lib/log.h"
#include "recorder.h"
#include "recorder_internal.h"
#include "record/bpf/tracer.h"

/* The command's first thread; its children are followed in the kernel as they appear. */
static int follow_command(struct recorder *r)
{
	int err = tracer__add_tid(r->tracer, (uint32_t)r->target.pid, TC_ROLE_TARGET);
	if (!err)
		err = trace__add_thread(r->trace, (uint32_t)r->target.pid, TC_THREAD_TARGET,
					UINT32_MAX);
	return err;
}

void recorder_note_waker(struct recorder *r, const struct tc_event *e)
{
	int err;

	if (!(e->flags & TC_WAKE_FOLLOWED) || trace__thread_role(r->trace, e->other_pid))
		return;
	err = trace__add_thread(r->trace, e->other_pid, TC_THREAD_WAKER, UINT32_MAX);
	if (err && !r->write_err)
		r->write_err = err;
}

/*
 * The SMT siblings of the probe CPUs that are not probe CPUs themselves: what runs there
 * shares a core with the probe. Stored as run.smt_siblings ("2:6" = CPU 6 beside probe CPU
 * 2; "none" without SMT).
 */
static int follow_siblings(struct recorder *r, const struct probe_thread *th, size_t n)
{
	struct tc_cpuset probe, sib;
	char list[256] = "";
	size_t off = 0;
	int err = 0;

	cpuset_zero(&probe);
	for (size_t i = 0; i < n; i++)
		cpuset_add(&probe, (unsigned int)th[i].cpu);
	for (int p = cpuset_next(&probe, -1); p >= 0 && !err; p = cpuset_next(&probe, p)) {
		if (hostfacts_siblings(p, &sib))
			continue;
		for (int c = cpuset_next(&sib, -1); c >= 0 && !err; c = cpuset_next(&sib, c)) {
			if (cpuset_has(&probe, (unsigned int)c))
				continue;
			err = tracer__add_sibling(r->tracer, (uint32_t)c, (uint32_t)p);
			if (off < sizeof(list))
				off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%d:%d",
							off ? "," : "", p, c);
		}
	}
	return err ?: trace__set_metaf(r->trace, "run.smt_siblings", "%s", off ? list : "none");
}

int recorder_follow_workload(struct recorder *r)
{
	struct probe_thread th[8];
	size_t n = 0;
	int err = 0;

	if (r->o->command)
		err = follow_command(r);
	else
		n = r->o->probe->threads(r->probe, th, 8);
	for (size_t i = 0; i < n && !err; i++) {
		err = tracer__add_tid(r->tracer, th[i].tid, TC_ROLE_PROBE);
		if (!err)
			err = tracer__add_cpu(r->tracer, th[i].cpu);
		if (!err)
			err = trace__add_thread(r->trace, th[i].tid, TC_THREAD_PROBE, th[i].cpu);
	}
	if (!err && n)
		err = follow_siblings(r, th, n);
	if (!err)
		err = trace__add_thread(r->trace, (uint32_t)syscall(SYS_gettid), TC_THREAD_SELF,
					UINT32_MAX);
	if (!err)
		err = trace__add_thread(r->trace, r->drain_tid, TC_THREAD_SELF, UINT32_MAX);
	if (err)
		log_err("follow %s threads: %s", r->o->command ? "command" : "probe",
			strerror(-err));
	return err;
}
