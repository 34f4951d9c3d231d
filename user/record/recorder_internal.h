/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * recorder_internal.h - private to user/record: the recorder's state, shared by
 * the run (recorder.c) and the facts it stores about it (recorder_facts.c).
 */
#ifndef TAILCAUSE_RECORD_RECORDER_INTERNAL_H
#define TAILCAUSE_RECORD_RECORDER_INTERNAL_H

#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "calibration.h"
#include "hostfacts.h"
#include "mark_calib.h"
#include "core/trace/func_ids.h"
#include "core/trace/trace.h"
#include "recorder.h"
#include "target.h"

struct ring_buffer;
struct trace_writer;

struct recorder {
	const struct recorder_opts *o;
	struct tracer *tracer;
	struct trace_writer *writer;
	int trace_fd; /* two hosts, server: the finished trace, open, to send to the client */
	struct tc_trace *trace;
	struct ring_buffer *rb;
	void *probe;
	struct target target;	    /* record -- CMD */
	struct path_counters *path; /* the NICs' and fabric's counters, sampled */
	uint64_t start_ns;
	uint64_t end_ns; /* once set (the run is over), records starting after it are not kept */

	struct tc_event *pending; /* drained, not yet written */
	size_t n_pending;
	size_t bad_records;
	int peer_lost; /* two hosts: the peer went away mid-run; the trace keeps what was measured
			*/
	_Atomic size_t streamed; /* --duration: round trips already written to the file */
	int write_err;

	struct func_ids funcs; /* the callbacks' kernel functions, by the ids the trace holds */
	size_t funcs_named;    /* of them, named in the file so far */
	uint64_t last_naming_ns;
	struct ksyms ksyms; /* read while privileged, before the run */

	uint64_t *drops_seen; /* per CPU and kind (tracer__read_drops), at the last
			       * drain: increases become TC_EV_LOST windows */
	uint64_t *drops_now;
	size_t n_cpu;
	uint64_t last_drain_ns;
	uint64_t last_write_ns; /* pending events reach the file at least this often */

	pthread_t drain_thr;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint32_t drain_tid;
	atomic_int stop;
	atomic_uint poll_ms; /* the drain's period: drain_ms, shorter while calibrating */
	atomic_uint drains;  /* drains done so far */
	struct calib_tap tap;
	int calib_cpu[2];	       /* a traced command's calibration: the CPUs it measured on */
	_Atomic uint64_t calib_end_ns; /* and when it ended: records over by then are its own */
	struct mark_calib mcal;	       /* --iter: the markers' blind spots and cost */
	struct coll_files *coll;       /* --iter mpi: the ranks' collective records */
	size_t marks_seen;	       /* --iter: the command's marks drained so far */
};

/*
 * --iter (recorder_iter.c): finds the markers on this host and attaches them, and
 * says where in the trace's meta (iter.*); 0, or -errno (reported).
 */
int recorder_attach_marks(struct recorder *r);

/* The facts of the run (host, audit, probe or command, tracers) as meta; 0 or -ENOMEM. */
int recorder_store_run_facts(struct recorder *r);
/* recorder_facts.c: a callback's kernel function: its address in e replaced by its id. */
void recorder_func_id(struct recorder *r, struct tc_event *e);
/*
 * recorder_facts.c: the functions noted since the last call named in the file (a META
 * block), at most once a second, so that `tailcause top` names them while the
 * recording runs (the trace's last META names them all again). Under r->lock: one
 * writer at a time. 0 or -errno from the write.
 */
int recorder_name_new_funcs(struct recorder *r);
/* recorder_facts.c: the program runs the kernel skipped (tracer__missed()), as meta
 * run.missed and missed.<concern>.<program>; 0 or -ENOMEM. */
int recorder_store_missed(struct recorder *r);

/* recorder.c: keeps one event for the trace (drain thread, or after it ended). */
void recorder_keep_event(struct recorder *r, const struct tc_event *e);
/* The same, as a callback (ctx is the recorder). */
void recorder_emit(void *ctx, const struct tc_event *e);

/* recorder_follow.c */
/* The probe's threads and CPUs, or the command's first thread, and ours; 0 or -errno. */
int recorder_follow_workload(struct recorder *r);
/* A waking the kernel started to follow the waker at (TC_WAKE_FOLLOWED): names it in the
 * trace's threads as TC_THREAD_WAKER (a failure is the recording's: write_err). */
void recorder_note_waker(struct recorder *r, const struct tc_event *e);

/* recorder_duration.c */
/*
 * --duration: runs of -n round trips until the time is up or a stop, each run's samples
 * written to the file at once (memory stays flat); *done = 0 (none left to write). 0 or
 * -errno.
 */
int recorder_run_for(struct recorder *r, struct tc_sample *samples, size_t *done);

/* recorder_path.c */
/* Starts the path counters' sampler and says what it reads in the trace; 0 or -errno. */
int recorder_start_path_counters(struct recorder *r);
/* The probe's resends (a loss on the path) as counter events; 0 or -ENOMEM. */
int recorder_store_resends(struct recorder *r);
/* Two hosts: the server sends its trace to a recording client over the run's link. */
/* recorder_outputs.c: the trace file, created; 0 or -errno (reported). */
int recorder_create_trace(struct recorder *r);
/* recorder_outputs.c: every privilege the run no longer needs, given up; 0 or -errno. */
int recorder_drop_privileges(struct recorder *r);
/* recorder_outputs.c: the drop counters (the first lost window starts now) and the path
 * counters; 0 or -errno (reported). */
int recorder_open_outputs(struct recorder *r);
void recorder_exchange_traces(struct recorder *r);
/* Two hosts, client: why no peer trace will be fetched (an untrusted link), as meta
 * peer.missing; 0 or -ENOMEM. */
int recorder_note_untrusted(struct recorder *r);

#endif /* TAILCAUSE_RECORD_RECORDER_INTERNAL_H */
