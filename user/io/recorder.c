// SPDX-License-Identifier: BSD-2-Clause
/* recorder.c - probe + tracers + ring-buffer drain -> trace file. */
#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "core/trace_codec.h"
#include "hostfacts.h"
#include "log.h"
#include "recorder.h"
#include "trace_file.h"
#include "tracer.h"
#include "version.h"

struct recorder {
	const struct recorder_opts *o;
	struct tracer *tracer;
	struct trace_writer *writer;
	struct tc_trace *trace;
	struct ring_buffer *rb;
	void *probe;

	struct tc_event *pending;	/* drained, not yet written */
	size_t n_pending;
	size_t bad_records;
	int write_err;

	pthread_t drain_thr;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint32_t drain_tid;
	atomic_int stop;
};

static int write_pending(struct recorder *r)
{
	int err = 0;

	if (r->n_pending && !r->write_err) {
		err = trace_writer__events(r->writer, r->pending, r->n_pending);
		if (err)
			r->write_err = err;
	}
	r->n_pending = 0;
	return err;
}

static void keep_event(struct recorder *r, const struct tc_event *e)
{
	r->pending[r->n_pending++] = *e;
	if (r->n_pending == TC_BLOCK_RECORDS)
		write_pending(r);
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct recorder *r = ctx;

	if (size != sizeof(struct tc_event)) {
		r->bad_records++;
		return 0;
	}
	keep_event(r, data);
	return 0;
}

static void emit_open(void *ctx, const struct tc_event *e)
{
	keep_event(ctx, e);
}

static void print_progress(struct recorder *r, int final)
{
	size_t done = r->o->probe->progress(r->probe);
	size_t total = r->o->probe_opts.iterations;

	fprintf(stderr, "\r  recording: %3zu%%  %zu/%zu round trips, %llu events%s",
		total ? done * 100 / total : 100, done, total,
		(unsigned long long)(trace_writer__n_events(r->writer) + r->n_pending),
		final ? "\n" : "");
}

static void *drain_main(void *arg)
{
	struct recorder *r = arg;
	uint64_t next_progress = 0;

	pthread_mutex_lock(&r->lock);
	r->drain_tid = (uint32_t)syscall(SYS_gettid);
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);

	/* Wakes every drain_ms, or early when the BPF side finds the ring past its watermark. */
	while (!atomic_load(&r->stop)) {
		int n = ring_buffer__poll(r->rb, (int)r->o->drain_ms);

		if (n < 0 && n != -EINTR) {
			log_err("drain ring buffer: %s", strerror(-n));
			r->write_err = n;
			break;
		}
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

static int follow_probe(struct recorder *r)
{
	struct probe_thread th[8];
	size_t n = r->o->probe->threads(r->probe, th, 8);
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		err = tracer__add_tid(r->tracer, th[i].tid, TC_ROLE_PROBE);
		if (!err)
			err = tracer__add_cpu(r->tracer, th[i].cpu);
		if (!err)
			err = trace__add_thread(r->trace, th[i].tid, TC_THREAD_PROBE, th[i].cpu);
	}
	if (!err)
		err = trace__add_thread(r->trace, (uint32_t)syscall(SYS_gettid), TC_THREAD_SELF,
					UINT32_MAX);
	if (!err)
		err = trace__add_thread(r->trace, r->drain_tid, TC_THREAD_SELF, UINT32_MAX);
	if (err)
		log_err("follow probe threads: %s", strerror(-err));
	return err;
}

static int set_metaf(struct tc_trace *t, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int set_metaf(struct tc_trace *t, const char *key, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return trace__set_meta(t, key, buf);
}

static int store_run_facts(struct recorder *r)
{
	const struct recorder_opts *o = r->o;
	const struct tc_prog_status *st;
	size_t n = tracer__status(r->tracer, &st);
	int err;

	err = hostfacts_collect(r->trace);
	err = err ?: set_metaf(r->trace, "tailcause.version", "%s", TAILCAUSE_VERSION);
	err = err ?: set_metaf(r->trace, "run.command", "%s", o->command_line);
	err = err ?: set_metaf(r->trace, "run.probe", "%s", o->probe->name);
	err = err ?: set_metaf(r->trace, "run.cpus", "%d,%d", o->probe_opts.cpu[0],
			       o->probe_opts.cpu[1]);
	err = err ?: set_metaf(r->trace, "run.iterations", "%zu", o->probe_opts.iterations);
	err = err ?: set_metaf(r->trace, "run.clock", "CLOCK_MONOTONIC (clock_gettime, vDSO)");
	err = err ?: set_metaf(r->trace, "run.drain_ms", "%u", o->drain_ms);
	err = err ?: set_metaf(r->trace, "run.ringbuf_bytes", "%zu", o->ringbuf_bytes);
	for (size_t i = 0; i < n && !err; i++) {
		char key[96];

		snprintf(key, sizeof(key), "tracer.%s.%s", st[i].concern, st[i].prog);
		if (st[i].attached)
			err = set_metaf(r->trace, key, "attached %s", st[i].target);
		else
			err = set_metaf(r->trace, key, "not attached: %s", st[i].reason);
	}
	return err;
}

/* Touches every page so the timed loop never takes a page fault on its samples. */
static struct tc_sample *alloc_samples(size_t n)
{
	struct tc_sample *s = malloc(n * sizeof(*s));

	if (s) {
		memset(s, 0, n * sizeof(*s));
		mlock(s, n * sizeof(*s));	/* best effort: keeps them resident */
	}
	return s;
}

static int finish_trace(struct recorder *r, struct tc_sample *s, size_t done)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *drops = NULL;
	int err;

	tracer__flush_open(r->tracer, probe_now_ns(), emit_open, r);
	err = write_pending(r) ?: r->write_err;
	if (err)
		return err;
	if (ncpu > 0 && (drops = calloc((size_t)ncpu, sizeof(*drops)))) {
		if (tracer__read_drops(r->tracer, drops, (size_t)ncpu) == 0)
			for (int c = 0; c < ncpu && !err; c++)
				if (drops[c])
					err = trace__set_drops(r->trace, (uint32_t)c, drops[c]);
		free(drops);
	}
	err = err ?: trace__add_samples(r->trace, s, done);
	err = err ?: hostfacts_irq_names(r->trace);
	err = err ?: set_metaf(r->trace, "run.completed", "%zu", done);
	err = err ?: set_metaf(r->trace, "run.interrupted", "%s",
			       probe_stop_requested() ? "yes" : "no");
	err = err ?: set_metaf(r->trace, "run.bad_records", "%zu", r->bad_records);
	if (err)
		return err;
	err = trace_writer__finish(r->writer, r->trace);
	r->writer = NULL;
	return err;
}

static int record(struct recorder *r)
{
	const struct recorder_opts *o = r->o;
	struct tc_sample *samples;
	size_t done = 0;
	int err;

	samples = alloc_samples(o->probe_opts.iterations);
	if (!samples) {
		log_err("allocate %zu samples: %s", o->probe_opts.iterations, strerror(ENOMEM));
		return -ENOMEM;
	}
	err = start_drain(r);
	err = err ?: follow_probe(r);
	err = err ?: store_run_facts(r);
	err = err ?: trace_writer__meta(r->writer, r->trace);
	if (!err)
		err = o->probe->run(r->probe, samples, o->probe_opts.iterations, &done);
	atomic_store(&r->stop, 1);
	if (r->drain_thr) {
		pthread_join(r->drain_thr, NULL);
		ring_buffer__consume(r->rb);
	}
	if (o->progress)
		print_progress(r, 1);
	if (!err)
		err = finish_trace(r, samples, done);
	free(samples);
	return err;
}

static uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
}

int recorder_run(const struct recorder_opts *o)
{
	struct tracer_cfg cfg = {
		.ringbuf_bytes = o->ringbuf_bytes,
		.force_fallback = o->force_fallback,
	};
	struct recorder r = { .o = o };
	struct timespec mono, real;
	int err;

	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.cond, NULL);
	r.pending = malloc(TC_BLOCK_RECORDS * sizeof(*r.pending));
	r.trace = trace__new();
	if (!r.pending || !r.trace) {
		err = -ENOMEM;
		goto out;
	}
	err = o->probe->open(&o->probe_opts, &r.probe);
	if (err)
		goto out;
	r.tracer = tracer__new(&cfg);
	if (!r.tracer) {
		err = -errno;
		goto out_close_probe;
	}
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	r.writer = trace_writer__open(o->out_path, o->force, ts_ns(&mono), ts_ns(&real));
	if (!r.writer) {
		err = -errno;
		goto out_free_tracer;
	}
	err = record(&r);
	trace_writer__abort(r.writer);	/* no-op after a successful finish */
out_free_tracer:
	ring_buffer__free(r.rb);
	tracer__free(r.tracer);
out_close_probe:
	o->probe->close(r.probe);
out:
	trace__free(r.trace);
	free(r.pending);
	pthread_cond_destroy(&r.cond);
	pthread_mutex_destroy(&r.lock);
	return err;
}
