// SPDX-License-Identifier: BSD-2-Clause
/*
 * recorder_path.c - the recorder's part in the path and the peer: the path
 * counters' sampler (path_counters.h), the probe's own resends placed as counter
 * events, and, after a two-host run, the server's trace sent to the client
 * (peer_trace.h).
 */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/log.h"
#include "path_counters.h"
#include "probe/link.h"
#include "peer_trace.h"
#include "recorder.h"
#include "recorder_internal.h"

#define PATH_PERIOD_MS 10   /* the path counters are read this often */
#define RESENDS_MAX    4096 /* a probe's resends placed in the trace */

/*
 * The path counters' sampler, on a CPU no probe thread uses where there is one (its
 * own preemptions of the probe are `self`), and what it reads in the trace.
 */
int recorder_start_path_counters(struct recorder *r)
{
	const struct probe_opts *po = &r->o->probe_opts;
	size_t n = path_counters__n(r->path);
	cpu_set_t allowed;
	int cpu = -1, err;

	if (!n)
		return trace__set_metaf(
			r->trace, "run.path_counters",
			"none found (no RDMA port counters, no NIC pause statistics)");
	/* a command's CPUs are not known in advance: its sampler is not pinned */
	if (!r->o->command && !sched_getaffinity(0, sizeof(allowed), &allowed))
		for (int c = 0; c < CPU_SETSIZE && cpu < 0; c++)
			if (CPU_ISSET(c, &allowed) && c != po->cpu[0] && c != po->cpu[1])
				cpu = c;
	err = path_counters__start(r->path, PATH_PERIOD_MS, cpu);
	err = err
		      ?: trace__add_thread(r->trace, path_counters__tid(r->path), TC_THREAD_SELF,
					   cpu >= 0 ? (uint32_t)cpu : UINT32_MAX);
	return err
		       ?: trace__set_metaf(r->trace, "run.path_counters",
					   "%zu sampled every %d ms%s", n, PATH_PERIOD_MS,
					   cpu >= 0 ? "" : " (on the probe's CPUs: no other)");
}

/* The probe's own evidence of loss: each message it sent again, an instant of a counter. */
int recorder_store_resends(struct recorder *r)
{
	const struct recorder_opts *o = r->o;
	uint32_t idx = (uint32_t)path_counters__n(r->path);
	uint64_t at[RESENDS_MAX];
	const char *what;
	char key[32];
	size_t n;
	int err;

	if (o->command || !o->probe->resends)
		return 0;
	n = o->probe->resends(r->probe, at, RESENDS_MAX, &what);
	if (!n)
		return 0;
	snprintf(key, sizeof(key), "counter.%u", idx);
	err = trace__set_meta(r->trace, key, what);
	for (size_t i = 0; i < n && i < RESENDS_MAX && !err; i++)
		recorder_keep_event(r, &(struct tc_event){.start_ns = at[i],
							  .delta = 1,
							  .arg = idx,
							  .kind = TC_EV_COUNTER,
							  .flags = TC_PATH_RETRANSMIT});
	if (!err && n > RESENDS_MAX)
		log_warn("%zu messages sent again: the first %d are placed in the trace", n,
			 RESENDS_MAX);
	return err;
}

/* Two hosts: the server sends its trace to a recording client over the run's trusted link. */
void recorder_exchange_traces(struct recorder *r)
{
	const struct recorder_opts *o = r->o;
	const struct link *l = r->probe && o->probe->link ? o->probe->link(r->probe) : NULL;
	const char *run_id = r->probe && o->probe->run_id ? o->probe->run_id(r->probe) : NULL;
	struct recorder_peer *p = o->peer;

	if (!l || r->peer_lost) {
		if (p)
			snprintf(p->why, sizeof(p->why), "the peer was lost during the run");
		return;
	}
	if (o->probe_opts.mode == PROBE_SERVER && r->trace_fd >= 0)
		peer_trace_serve(l, r->trace_fd, run_id);
	else if (o->peer_out && p)
		p->got = !peer_trace_fetch(l, o->peer_out, run_id, p->why, sizeof(p->why));
}

/* Two hosts, client: a link no trace may cross is said in the trace, for its report. */
int recorder_note_untrusted(struct recorder *r)
{
	const struct recorder_opts *o = r->o;
	const struct link *l = r->probe && o->probe->link ? o->probe->link(r->probe) : NULL;

	if (!l || l->trusted || o->probe_opts.mode != PROBE_CLIENT)
		return 0;
	return trace__set_metaf(r->trace, "peer.missing",
				"%s (give both hosts the same --key FILE)", l->untrusted_why);
}
