// SPDX-License-Identifier: BSD-2-Clause
/*
 * recorder_facts.c - what a trace records about its run: host, audit, probe or command,
 * tracers, the kernel functions its callbacks ran, and the program runs the kernel skipped.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "audit/host_audit.h"
#include "hostfacts.h"
#include "lib/log.h"
#include "lib/stop.h"
#include "lib/version.h"
#include "record/bpf/tracer.h"
#include "recorder_internal.h"
#include "tracefile/trace_file.h"

static int store_tracer_status(struct recorder *r)
{
	const struct tc_prog_status *st;
	size_t n = tracer__status(r->tracer, &st);
	char why[256];
	int steal = tracer__steal_source(r->tracer, why, sizeof(why));
	int err;

	/* steal is read by the sched and ipi programs, not a program of its own */
	err = trace__set_metaf(r->trace, "run.steal", "%s: %s", steal ? "traced" : "not traced",
			       why);

	for (size_t i = 0; i < n && !err; i++) {
		char key[96];

		snprintf(key, sizeof(key), "tracer.%s.%s", st[i].concern, st[i].prog);
		if (st[i].attached)
			err = trace__set_metaf(r->trace, key, "attached %s", st[i].target);
		else
			err = trace__set_metaf(r->trace, key, "not attached: %s", st[i].reason);
	}
	return err;
}

struct missed_ctx {
	struct tc_trace *t;
	int err;
};

static void note_missed(void *ctx, const char *concern, const char *prog, uint64_t missed)
{
	struct missed_ctx *m = ctx;
	char key[96];

	snprintf(key, sizeof(key), "missed.%s.%s", concern, prog);
	m->err = m->err ?: trace__set_metaf(m->t, key, "%llu", (unsigned long long)missed);
}

int recorder_store_missed(struct recorder *r)
{
	struct missed_ctx m = {r->trace, 0};
	uint64_t sum = tracer__missed(r->tracer, note_missed, &m);

	return m.err ?: trace__set_metaf(r->trace, "run.missed", "%llu", (unsigned long long)sum);
}

void recorder_func_id(struct recorder *r, struct tc_event *e)
{
	if (!(e->kind == TC_EV_WORK || e->kind == TC_EV_TIMER_FN || e->kind == TC_EV_NMI) ||
	    !e->func)
		return;
	e->func = func_ids__id(&r->funcs, e->func);
	if (!e->func) /* out of memory: the event keeps no function rather than an address */
		log_dbg("no memory to name a kernel function");
}

int recorder_name_new_funcs(struct recorder *r)
{
	uint64_t now = probe_now_ns();
	struct tc_trace *k;
	int err = 0;

	if (r->funcs.n == r->funcs_named || now - r->last_naming_ns < 1000000000ull)
		return 0;
	r->last_naming_ns = now;
	k = trace__new();
	/* out of memory here only leaves the names to the end */
	if (k && !hostfacts_ksyms(k, &r->funcs, r->funcs_named, &r->ksyms) && k->n_meta)
		err = trace_writer__facts(r->writer, k);
	r->funcs_named = r->funcs.n;
	trace__free(k);
	return err;
}

static int store_command_facts(struct recorder *r)
{
	const struct recorder_opts *o = r->o;
	char buf[512];
	size_t off = 0;
	int err;

	for (size_t i = 0; o->command[i] && off < sizeof(buf) - 1; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? " " : "",
					o->command[i]);
	err = trace__set_metaf(r->trace, "run.probe", "command");
	err = err ?: trace__set_metaf(r->trace, "run.target", "%s", buf);
	err = err ?: trace__set_metaf(r->trace, "run.target_pid", "%d", (int)r->target.pid);
	err = err ?: trace__set_metaf(r->trace, "run.cpus", "the command's (followed)");
	err = err ?: trace__set_metaf(r->trace, "run.iterations", "0");
	err = err ?: trace__set_metaf(r->trace, "run.drain_ms", "%u", o->drain_ms);
	err = err ?: trace__set_metaf(r->trace, "run.ringbuf_bytes", "%zu", o->ringbuf_bytes);
	return err ?: store_tracer_status(r);
}

int recorder_store_run_facts(struct recorder *r)
{
	const struct recorder_opts *o = r->o;
	int err;

	err = hostfacts_collect(r->trace);
	err = err ?: trace__set_metaf(r->trace, "tailcause.version", "%s", tc_version());
	err = err ?: trace__set_metaf(r->trace, "run.command", "%s", o->command_line);
	err = err ?: host_audit_store(r->trace, o->command ? NULL : o->probe_opts.cpu);
	if (o->command)
		return err ?: store_command_facts(r);
	err = err ?: trace__set_metaf(r->trace, "run.probe", "%s", o->probe->name);
	err = err
		      ?: trace__set_metaf(r->trace, "run.cpus", "%d,%d", o->probe_opts.cpu[0],
					  o->probe_opts.cpu[1]);
	err = err ?: trace__set_metaf(r->trace, "run.iterations", "%zu", o->probe_opts.iterations);
	err = err
		      ?: trace__set_metaf(r->trace, "run.clock", "%s",
					  o->probe->clock
						  ? o->probe->clock(r->probe)
						  : "CLOCK_MONOTONIC (clock_gettime, vDSO)");
	if (o->probe->detail)
		err = err
			      ?: trace__set_metaf(r->trace, "run.probe_detail", "%s",
						  o->probe->detail(r->probe));
	err = err
		      ?: trace__set_metaf(r->trace, "run.mode", "%s",
					  probe_mode_name(o->probe_opts.mode));
	if (o->probe_opts.mode == PROBE_CLIENT)
		err = err ?: trace__set_metaf(r->trace, "run.peer", "%s", o->probe_opts.host);
	if (o->probe->run_id && o->probe->run_id(r->probe))
		err = err ?: trace__set_metaf(r->trace, "run.id", "%s", o->probe->run_id(r->probe));
	/* what tailcause diff and rank check before comparing two verbs runs */
	if (probe_message_bytes(o->probe, &o->probe_opts))
		err = err
			      ?: trace__set_metaf(r->trace, "run.message_bytes", "%zu",
						  probe_message_bytes(o->probe, &o->probe_opts));
	err = err ?: trace__set_metaf(r->trace, "run.drain_ms", "%u", o->drain_ms);
	err = err ?: trace__set_metaf(r->trace, "run.ringbuf_bytes", "%zu", o->ringbuf_bytes);
	return err ?: store_tracer_status(r);
}

/* Touches every page so the timed loop never takes a page fault on its samples. */
