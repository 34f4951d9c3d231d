/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * recorder.h - runs a probe under tracing and writes the trace file.
 *
 * Loads the tracers, follows the probe's threads and CPUs (or, with a
 * command, the command's threads as they are created and the CPUs they run
 * on), drains the ring
 * buffer on a timer (no per-event wake-ups) into the trace writer, and on
 * the way out flushes still-open intervals, reads the drop counters and
 * finishes the file. SIGINT/SIGTERM end the run early with a complete trace.
 */
#ifndef TAILCAUSE_RECORD_RECORDER_H
#define TAILCAUSE_RECORD_RECORDER_H

#include <stddef.h>

#include "probe/probe.h"

struct iter_spec;

/* Two hosts, client: what became of the server's trace. */
struct recorder_peer {
	int got;       /* written to recorder_opts.peer_out */
	char why[240]; /* !got: why not, in a line for the report */
};

struct recorder_opts {
	const char *out_path;
	int force; /* overwrite out_path */
	const struct probe_ops *probe;
	struct probe_opts probe_opts; /* cpus resolved by the caller */
	size_t ringbuf_bytes;
	unsigned int drain_ms;
	int force_fallback;	      /* classic tracepoints */
	const char *btf_path;	      /* --btf: the kernel's types from this file */
	int progress;		      /* progress line on stderr */
	int calibrate;		      /* measure the hidden cost of events first (probe runs) */
	int signal_ends;	      /* --signal-ends: time signal handlers to rt_sigreturn */
	const char *command_line;     /* stored in the trace */
	char *const *command;	      /* record -- CMD ARGS: trace this instead of the probe */
	const struct iter_spec *iter; /* --iter: where the command's iterations begin (or NULL) */
	size_t iter_first;	      /* --iter-first K: detach the markers after K iterations */
	/* Two hosts, client: where to write the server's trace, if it records (NULL: do not ask),
	 * and what became of it. */
	const char *peer_out;
	struct recorder_peer *peer;
	const char *later_file; /* a file the caller writes after the run (run --html), or NULL */
	int created_dir_fd;	/* a directory the caller made for the run's files, or -1 */
	uint64_t duration_ns;	/* --duration: runs of probe_opts.iterations until then (0: one) */
};

/*
 * Records one run into o->out_path. Returns 0, or a negative errno after
 * reporting it; -EPERM/-ENOENT-style environment failures keep their errno so
 * the caller can map them to exit code 2.
 */
int recorder_run(const struct recorder_opts *o);

#endif /* TAILCAUSE_RECORD_RECORDER_H */
