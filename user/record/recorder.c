// SPDX-License-Identifier: BSD-2-Clause
/* recorder.c - probe + tracers + ring-buffer drain -> trace file. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "core/trace/trace_codec.h"
#include "calibration.h"
#include "coll_files.h"
#include "hostfacts.h"
#include "lib/exitcode.h"
#include "lib/log.h"
#include "lib/stop.h"
#include "path_counters.h"
#include "recorder.h"
#include "recorder_internal.h"
#include "target.h"

#define PATH_PERIOD_MS	   10	    /* the path counters are read this often */
#define RESENDS_MAX	   4096	    /* a probe's resends placed in the trace */
#define RECORD_SAY_SUMMARY 50000000 /* round trips whose summary takes a second or more */
#include "tracefile/trace_file.h"
#include "record/bpf/tracer.h"

static int write_pending(struct recorder *r)
{
	int err = 0;

	r->last_write_ns = probe_now_ns();
	if (r->n_pending && !r->write_err) {
		/* the main thread writes META meanwhile: one writer at a time */
		pthread_mutex_lock(&r->lock);
		err = trace_writer__events(r->writer, r->pending, r->n_pending);
		err = err ?: recorder_name_new_funcs(r);
		pthread_mutex_unlock(&r->lock);
		if (err)
			r->write_err = err;
	}
	r->n_pending = 0;
	return err;
}

void recorder_keep_event(struct recorder *r, const struct tc_event *e)
{
	r->pending[r->n_pending] = *e;
	recorder_func_id(r, &r->pending[r->n_pending++]);
	if (r->n_pending == TC_BLOCK_RECORDS)
		write_pending(r);
}

static int ends_before(const struct tc_event *e, uint64_t t)
{
	return e->start_ns + e->dur_ns < t;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct recorder *r = ctx;

	if (size != sizeof(struct tc_event)) {
		r->bad_records++;
		return 0;
	}
	/* A record of the calibrations' own (calibration.h, mark_calib.h), kept out of a
	 * command's trace. */
	if (mark_calib_take(&r->mcal, data) || calib_tap_keep(&r->tap, data))
		return 0;
	/* ... and one drained only after the tap closed (a CI run kept 229 IPIs, likely so:
	 * the ring hands records over in the order they were reserved, and one reserved on a
	 * vCPU its host then stopped holds back those after it) */
	if (ends_before(data, atomic_load(&r->calib_end_ns)))
		return 0;
	/* after the trace's end: the tracers' own detaching (record()) */
	if (r->end_ns && ((const struct tc_event *)data)->start_ns >= r->end_ns)
		return 0;
	recorder_keep_event(r, data);
	if (((const struct tc_event *)data)->kind == TC_EV_WAKEUP)
		recorder_note_waker(r, data);
	/* --iter-first K: K iterations are K + 1 marks; then the markers' cost stops */
	if (((const struct tc_event *)data)->kind == TC_EV_MARK &&
	    ++r->marks_seen == r->o->iter_first + 1 && r->o->iter_first)
		tracer__drop_marks(r->tracer);
	return 0;
}

void recorder_emit(void *ctx, const struct tc_event *e)
{
	recorder_keep_event(ctx, e);
}

static void print_progress(struct recorder *r, int final)
{
	size_t done, total = r->o->probe_opts.iterations;

	if (r->o->command) {
		char marks[48] = "";

		if (r->o->iter) /* the iterations marked so far (one fewer than the marks) */
			snprintf(marks, sizeof(marks), ", %zu iterations marked",
				 r->marks_seen ? r->marks_seen - 1 : 0);
		fprintf(stderr, "\r  recording %s: %.0f s, %llu events%s%s", r->o->command[0],
			(double)(probe_now_ns() - r->start_ns) / 1e9,
			(unsigned long long)(trace_writer__n_events(r->writer) + r->n_pending),
			marks, final ? "\n" : "");
		return;
	}
	done = r->o->probe->progress(r->probe);
	if (r->o->duration_ns) {
		fprintf(stderr, "\r  recording: %.0f of %.0f s, %zu round trips, %llu events%s",
			(double)(probe_now_ns() - r->start_ns) / 1e9,
			(double)r->o->duration_ns / 1e9, (size_t)atomic_load(&r->streamed) + done,
			(unsigned long long)(trace_writer__n_events(r->writer) + r->n_pending),
			final ? "\n" : "");
		return;
	}
	fprintf(stderr, "\r  recording: %3zu%%  %zu/%zu round trips, %llu events%s",
		total ? done * 100 / total : 100, done, total,
		(unsigned long long)(trace_writer__n_events(r->writer) + r->n_pending),
		final ? "\n" : "");
}

/*
 * Turns ring-buffer drops since the last drain into TC_EV_LOST windows, one per
 * CPU and kind, so the report can say which time ranges may be missing which
 * events, not just how many.
 */
static void note_drops(struct recorder *r)
{
	uint64_t now = probe_now_ns();

	if (tracer__read_drops(r->tracer, r->drops_now, r->n_cpu))
		return;
	for (size_t i = 0; i < r->n_cpu * TC_DROP_KINDS; i++) {
		uint64_t lost = r->drops_now[i] - r->drops_seen[i];
		struct tc_event e = {
			.start_ns = r->last_drain_ns,
			.dur_ns = now - r->last_drain_ns,
			.lost = lost,
			.cpu = (uint32_t)(i / TC_DROP_KINDS),
			.arg = lost > UINT32_MAX ? UINT32_MAX : (uint32_t)lost,
			.kind = TC_EV_LOST,
			.lost_kind = (uint16_t)(i % TC_DROP_KINDS),
		};

		if (r->drops_now[i] <= r->drops_seen[i])
			continue;
		/* The calibration reads it too (its gaps there measure nothing); the trace keeps
		 * it whatever the tap does: the drop counters count it. */
		calib_tap_keep(&r->tap, &e);
		recorder_keep_event(r, &e);
		r->drops_seen[i] = r->drops_now[i];
	}
	r->last_drain_ns = now;
}

static void *drain_main(void *arg)
{
	struct recorder *r = arg;
	uint64_t next_progress = 0;

	pthread_mutex_lock(&r->lock);
	r->drain_tid = (uint32_t)syscall(SYS_gettid);
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);

	/*
	 * Wakes every drain_ms, or early when the BPF side finds the ring past its
	 * watermark. Records submitted without a wake-up are invisible to epoll, so
	 * a poll that timed out drained nothing: consume explicitly.
	 */
	while (!atomic_load(&r->stop)) {
		int n = ring_buffer__poll(r->rb, (int)atomic_load(&r->poll_ms));

		if (n >= 0)
			n = ring_buffer__consume(r->rb);
		atomic_fetch_add(&r->drains, 1);
		/* At least once a second to the file, so a kill -9 loses little. */
		if (r->n_pending && probe_now_ns() - r->last_write_ns >= 1000000000ull)
			write_pending(r);

		if (n < 0 && n != -EINTR) {
			log_err("drain ring buffer: %s", strerror(-n));
			r->write_err = n;
			break;
		}
		note_drops(r);
		path_counters__take(r->path, recorder_emit, r);
		if (r->coll)
			coll_files_take(r->coll, recorder_emit, r);
		if (r->o->progress && probe_now_ns() >= next_progress) {
			print_progress(r, 0);
			next_progress = probe_now_ns() + 1000000000ull;
		}
	}
	return NULL;
}

static int start_drain(struct recorder *r)
{
	int err;

	r->rb = ring_buffer__new(tracer__ringbuf_fd(r->tracer), on_event, r, NULL);
	if (!r->rb) {
		err = -errno;
		log_err("open ring buffer: %s", strerror(-err));
		return err;
	}
	err = -pthread_create(&r->drain_thr, NULL, drain_main, r);
	if (err) {
		log_err("start drain thread: %s", strerror(-err));
		return err;
	}
	pthread_mutex_lock(&r->lock);
	while (!r->drain_tid)
		pthread_cond_wait(&r->cond, &r->lock);
	pthread_mutex_unlock(&r->lock);
	return 0;
}

static struct tc_sample *alloc_samples(size_t n)
{
	struct tc_sample *s = malloc(n * sizeof(*s));

	if (s) {
		memset(s, 0, n * sizeof(*s));
		mlock(s, n * sizeof(*s)); /* best effort: keeps them resident */
	}
	return s;
}

static int add_irq_count(void *ctx, uint32_t irq, uint32_t cpu, uint64_t n)
{
	return trace__add_counter(ctx, TC_COUNTER_IRQ, irq, cpu, n);
}

/*
 * The tracers are stopped and the ring drained: the intervals still open end
 * at end_ns, and the drop totals are the readings the lost windows were made
 * from, so the windows add up to them exactly.
 */
static int finish_trace(struct recorder *r, struct tc_sample *s, size_t done, uint64_t end_ns)
{
	int err;

	tracer__flush_open(r->tracer, end_ns, recorder_emit, r);
	tracer__flush_faults(r->tracer, recorder_emit, r);
	tracer__flush_signals(r->tracer, recorder_emit, r);
	err = r->coll ? coll_files_finish(r->coll, r->trace, recorder_emit, r) : 0;
	err = err ?: write_pending(r) ?: r->write_err;
	if (err)
		return err;
	for (size_t c = 0; c < r->n_cpu && !err; c++) {
		uint64_t lost = 0;

		for (size_t k = 0; k < TC_DROP_KINDS; k++)
			lost += r->drops_seen[c * TC_DROP_KINDS + k];
		if (lost)
			err = trace__set_drops(r->trace, (uint32_t)c, lost);
	}
	err = err ?: recorder_store_missed(r);
	err = err ?: tracer__read_irq_counts(r->tracer, add_irq_count, r->trace);
	err = err ?: trace__add_samples(r->trace, s, done);
	err = err ?: hostfacts_irq_names(r->trace);
	err = err ?: hostfacts_ksyms(r->trace, &r->funcs, 0, &r->ksyms);
	err = err
		      ?: trace__set_metaf(r->trace, "run.completed", "%zu",
					  (size_t)atomic_load(&r->streamed) + done);
	if (r->o->duration_ns) /* the header's "requested": what -D asked */
		err = err
			      ?: trace__set_metaf(r->trace, "run.iterations", "-D %.0f s",
						  (double)r->o->duration_ns / 1e9);
	err = err
		      ?: trace__set_metaf(r->trace, "run.interrupted", "%s",
					  stop_requested() ? "yes" : "no");
	err = err ?: trace__set_metaf(r->trace, "run.bad_records", "%zu", r->bad_records);
	if (r->peer_lost)
		err = err ?: trace__set_metaf(r->trace, "run.peer_lost", "yes");
	err = err ?: recorder_note_untrusted(r);
	if (err)
		return err;
	/* the writer reads the round trips back for the trace's summary (RTT_SUMMARY): say so
	 * where that may take a second or more (bench/history/overhead-and-analyzer.md) */
	if (r->o->progress && atomic_load(&r->streamed) + done >= RECORD_SAY_SUMMARY)
		log_info("summarizing %zu round trips for the report",
			 (size_t)atomic_load(&r->streamed) + done);
	if (r->o->probe_opts.mode == PROBE_SERVER)
		err = trace_writer__finish_keep(r->writer, r->trace, &r->trace_fd);
	else
		err = trace_writer__finish(r->writer, r->trace);
	r->writer = NULL;
	return err;
}

/* Returns once every record submitted before the call has been drained: two drains later. */
static void wait_drained(void *ctx)
{
	struct recorder *r = ctx;
	unsigned int from = atomic_load(&r->drains);

	while (atomic_load(&r->drains) < from + 2 && !atomic_load(&r->stop))
		usleep(1000);
}

/* A command's calibration has measured: its CPUs go back to the command, then drain. */
static void command_measured(void *ctx)
{
	struct recorder *r = ctx;

	for (int i = 0; i < 2; i++) {
		int err = tracer__drop_cpu(r->tracer, (uint32_t)r->calib_cpu[i]);

		if (err)
			log_err("calibration: stop tracing cpu %d: %s", r->calib_cpu[i],
				strerror(-err));
	}
	atomic_store(&r->calib_end_ns, probe_now_ns());
	wait_drained(r);
}

/*
 * The CPUs a traced command's calibration measures: the last two this process may
 * use (the probe's default), or -1 where there are not two. What a tick, an IPI or a
 * fault hides is the host's (its hypervisor's exits), the same on each of its CPUs:
 * measured on two, it is credited wherever the command's threads ran.
 */
static int command_calibration_cpus(int cpu[2])
{
	struct probe_opts o = {.cpu = {-1, -1}};
	int err = probe_resolve_cpus(&o);

	cpu[0] = o.cpu[0];
	cpu[1] = o.cpu[1];
	return err ?: (cpu[0] == cpu[1] ? -1 : 0);
}

/*
 * What IPIs, ticks and page faults cost the probe CPUs, before the run
 * (calibration.h). A traced command, still held, has none yet: the calibration
 * traces two CPUs for its own time, then leaves them to the command's threads, and
 * keeps its records out of the trace (they would read as the command's noise).
 */
static int calibrate(struct recorder *r)
{
	int cpu[2] = {r->o->probe_opts.cpu[0], r->o->probe_opts.cpu[1]}, err;

	if (!r->o->calibrate)
		return trace__set_meta(r->trace, "calib.status", "not measured: --no-calibrate");
	if (r->o->command) {
		if (command_calibration_cpus(cpu))
			return trace__set_meta(r->trace, "calib.status",
					       "not measured: fewer than two CPUs to measure on");
		err = tracer__add_cpu(r->tracer, (uint32_t)cpu[0]);
		err = err ?: tracer__add_cpu(r->tracer, (uint32_t)cpu[1]);
		if (err)
			return err;
		r->tap.only = 1;
		r->calib_cpu[0] = cpu[0];
		r->calib_cpu[1] = cpu[1];
	}
	atomic_store(&r->poll_ms, 5);
	err = calibration_record(r->tracer, cpu, &r->tap,
				 r->o->command ? command_measured : wait_drained, r, r->trace);
	atomic_store(&r->poll_ms, r->o->drain_ms);
	return err;
}

/* Lets the command run and waits for it; its exit status goes into the trace. */
static int run_command(struct recorder *r)
{
	int status, err = target_release(&r->target);

	if (err) {
		log_err("start %s: %s", r->o->command[0], strerror(-err));
		return err;
	}
	status = target_wait(&r->target);
	if (status < 0) {
		log_err("wait for %s: %s", r->o->command[0], strerror(-status));
		return status;
	}
	r->target.pid = 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		log_err("run %s: the command could not be started", r->o->command[0]);
		return -ENOEXEC;
	}
	if (WIFSIGNALED(status))
		log_warn("%s was killed by signal %d", r->o->command[0], WTERMSIG(status));
	else if (WEXITSTATUS(status))
		log_warn("%s exited with status %d", r->o->command[0], WEXITSTATUS(status));
	return trace__set_metaf(r->trace, "run.target_status", "%s %d",
				WIFSIGNALED(status) ? "signal" : "exit",
				WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

/* The workload: the probe's round trips, or the traced command until it exits. */
static int run_workload(struct recorder *r, struct tc_sample *samples, size_t *done)
{
	if (r->o->command)
		return run_command(r);
	if (r->o->duration_ns)
		return recorder_run_for(r, samples, done);
	return r->o->probe->run(r->probe, samples, r->o->probe_opts.iterations, done);
}

static int record(struct recorder *r)
{
	const struct recorder_opts *o = r->o;
	struct tc_sample *samples;
	uint64_t end_ns;
	size_t done = 0;
	int err;

	samples = alloc_samples(o->command ? 1 : o->probe_opts.iterations);
	if (!samples) {
		log_err("allocate %zu samples: %s", o->probe_opts.iterations, strerror(ENOMEM));
		return -ENOMEM;
	}
	err = start_drain(r);
	err = err ?: recorder_follow_workload(r);
	err = err ?: recorder_start_path_counters(r);
	err = err ?: calibrate(r);
	if (!err && o->iter)
		err = mark_calib_measure(&r->mcal, r->tracer, wait_drained, r)
			      ?: mark_calib_store(&r->mcal, r->trace);
	/* --iter-first K: K iterations are K + 1 marks, counted in the kernel from here */
	if (!err && o->iter_first)
		err = tracer__limit_marks(r->tracer, o->iter_first + 1);
	err = err ?: recorder_store_run_facts(r);
	if (!err) {
		/* the drain thread is running and may be writing events */
		pthread_mutex_lock(&r->lock);
		err = trace_writer__meta(r->writer, r->trace);
		pthread_mutex_unlock(&r->lock);
	}
	r->start_ns = probe_now_ns();
	if (!err)
		err = run_workload(r, samples, &done);
	/* a peer lost mid-run: what was measured until then is kept, and said so */
	if (err && !o->command && o->probe_opts.mode != PROBE_LOOPBACK && done) {
		log_warn("the peer was lost after %zu round trips: the trace keeps them", done);
		r->peer_lost = 1;
		err = 0;
	}
	atomic_store(&r->stop, 1);
	if (r->drain_thr)
		pthread_join(r->drain_thr, NULL);
	/*
	 * The trace ends here. Stop the programs first, then drain: a record or a
	 * drop after the last drain would be missing from the trace, or counted
	 * without a window to place it in.
	 */
	end_ns = probe_now_ns();
	/*
	 * Detaching patches the kernel's text, with IPIs to every CPU that the programs
	 * still attached trace: the tracers' own, after the end, not kept (on_event()).
	 */
	r->end_ns = end_ns;
	tracer__stop(r->tracer);
	path_counters__stop(r->path);
	path_counters__take(r->path, recorder_emit, r);
	if (!err)
		err = recorder_store_resends(r);
	if (r->rb) {
		ring_buffer__consume(r->rb);
		note_drops(r);
	}
	if (o->progress)
		print_progress(r, 1);
	if (!err)
		err = finish_trace(r, samples, done, end_ns);
	free(samples);
	return err;
}

int recorder_run(const struct recorder_opts *o)
{
	struct tracer_cfg cfg = {
		.ringbuf_bytes = o->ringbuf_bytes,
		.force_fallback = o->force_fallback,
		.btf_path = o->btf_path,
		.follow_children = o->command != NULL,
		.syscall_tps = o->signal_ends,
	};
	struct recorder r = {.o = o, .trace_fd = -1};
	int err;

	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.cond, NULL);
	pthread_mutex_init(&r.tap.lock, NULL);
	atomic_store(&r.poll_ms, o->drain_ms);
	r.pending = malloc(TC_BLOCK_RECORDS * sizeof(*r.pending));
	r.trace = trace__new();
	if (!r.pending || !r.trace) {
		err = -ENOMEM;
		goto out;
	}
	r.target.gate_fd = -1;
	r.tracer = tracer__new(&cfg);
	if (!r.tracer) {
		err = -errno;
		goto out;
	}
	/*
	 * The programs are attached: spawn the command (it keeps the caller's
	 * privileges), create the trace, then give up ours before any other thread
	 * exists, so the probe and drain threads inherit the reduced set, and before the
	 * probe talks to a peer. kallsyms shows its addresses only to a reader that
	 * opened it with CAP_SYSLOG.
	 */
	err = hostfacts_ksyms_load(&r.ksyms);
	if (err)
		goto out_free;
	if (o->iter)
		mark_calib_baseline(&r.mcal, o->iter); /* the calls timed before any marker */
	err = o->iter ? recorder_attach_marks(&r) : 0;
	err = err ?: o->command ? target_spawn(&r.target, o->command) : 0;
	err = err ?: recorder_create_trace(&r);
	err = err ?: recorder_drop_privileges(&r);
	if (!err && !o->command)
		err = o->probe->open(&o->probe_opts, &r.probe);
	if (err)
		goto out_free;
	err = recorder_open_outputs(&r);
	err = err ?: record(&r);
	if (!err)
		recorder_exchange_traces(&r);
out_free:
	trace_writer__abort(r.writer); /* no-op after a successful finish */
	target_abort(&r.target);       /* no-op once the command was reaped */
	ring_buffer__free(r.rb);
	path_counters__free(r.path);
	if (r.coll)
		coll_files_close(r.coll);
	free(r.coll);
	if (r.trace_fd >= 0)
		close(r.trace_fd);
	if (r.probe)
		o->probe->close(r.probe);
	tracer__free(r.tracer);
	hostfacts_ksyms_free(&r.ksyms);
out:
	trace__free(r.trace);
	free(r.pending);
	free(r.drops_seen);
	free(r.drops_now);
	func_ids__free(&r.funcs);
	calib_tap__free(&r.tap);
	if (o->iter)
		mark_calib__free(&r.mcal);
	pthread_mutex_destroy(&r.tap.lock);
	pthread_cond_destroy(&r.cond);
	pthread_mutex_destroy(&r.lock);
	return err;
}
