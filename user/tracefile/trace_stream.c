// SPDX-License-Identifier: BSD-2-Clause
/* trace_stream.c - a trace file read block by block (trace_stream.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/stats_exact.h"
#include "core/trace_codec.h"
#include "image.h"
#include "lib/log.h"
#include "trace_stream.h"

struct trace_stream {
	const char *path;
	struct image img;
	struct tc_trace *skel;
	struct stream_block *blocks;
	size_t n_blocks, cap_blocks;
	struct stats_exact st;
	struct lat_summary sum;
	uint64_t pct;
	int have_stats;
	uint64_t whole_bytes;
};

static uint64_t rtt(const struct tc_sample *s)
{
	return s->t_end > s->t_start ? s->t_end - s->t_start : 0;
}

static void note_cpu(struct tc_trace *t, uint32_t cpu)
{
	size_t n = t->streamed.n_sample_cpus;

	for (size_t i = 0; i < n; i++)
		if (t->streamed.sample_cpus[i] == cpu)
			return;
	if (n < sizeof(t->streamed.sample_cpus) / sizeof(t->streamed.sample_cpus[0]))
		t->streamed.sample_cpus[t->streamed.n_sample_cpus++] = cpu;
}

/* The first pass, after each block: records counted and taken out, the block noted. */
static int first_pass(void *arg, struct tc_trace *t, uint32_t type, size_t off, size_t end)
{
	struct trace_stream *s = arg;
	struct stream_block b = {.type = type, .where = off, .min_start = UINT64_MAX};

	(void)end;
	image_consumed(&s->img, off);
	if (type == TC_BLOCK_SAMPLES) {
		for (size_t i = 0; i < t->n_samples; i++) {
			const struct tc_sample *x = &t->samples[i];

			stats_exact_count(&s->st, rtt(x));
			if (x->t_start < b.min_start)
				b.min_start = x->t_start;
			note_cpu(t, x->cpu);
		}
		b.n = t->n_samples;
		t->streamed.n_samples += b.n;
		if (b.n &&
		    (t->streamed.n_samples == b.n || b.min_start < t->streamed.first_sample_ns))
			t->streamed.first_sample_ns = b.min_start;
		t->n_samples = 0;
	} else if (type == TC_BLOCK_EVENTS) {
		for (size_t i = 0; i < t->n_events; i++) {
			if (t->events[i].start_ns < b.min_start)
				b.min_start = t->events[i].start_ns;
			if (t->events[i].kind == TC_EV_STEAL)
				t->streamed.stolen_ns += t->events[i].stolen_ns;
		}
		b.n = t->n_events;
		t->streamed.n_events += b.n;
		t->n_events = 0;
	} else {
		return 0;
	}
	s->whole_bytes += b.n * (type == TC_BLOCK_SAMPLES ? sizeof(struct tc_sample)
							  : sizeof(struct tc_event));
	if (grow(&s->blocks, &s->cap_blocks, s->n_blocks + 1, sizeof(*s->blocks)))
		return -ENOMEM;
	s->blocks[s->n_blocks++] = b;
	return 0;
}

static int read_block(void *arg, const struct stream_block *b, struct tc_trace *t)
{
	struct trace_stream *s = arg;
	struct tc_codec_error cerr = {0};
	int err = codec_decode_block(s->img.data, s->img.len, b->where, t, &cerr);

	if (err == -EBADMSG)
		log_err("read %s: not a valid tailcause trace: %s", s->path, cerr.msg);
	else if (err)
		log_err("read %s: %s", s->path, strerror(-err));
	/* the block's pages, read out of order, are not needed again */
	image_drop(&s->img, b->where, b == s->blocks + s->n_blocks - 1 ? s->img.len : b[1].where);
	return err;
}

/* The second pass: the samples again, for the exact percentiles. */
static int select_pass(struct trace_stream *s, double pct)
{
	struct tc_trace *t = trace__view(s->skel);
	int err;

	if (!t)
		return -ENOMEM;
	err = stats_exact_begin(&s->st, pct);
	for (size_t i = 0; !err && i < s->n_blocks; i++) {
		if (s->blocks[i].type != TC_BLOCK_SAMPLES)
			continue;
		t->n_samples = 0;
		err = read_block(s, &s->blocks[i], t);
		for (size_t j = 0; !err && j < t->n_samples; j++)
			stats_exact_select(&s->st, rtt(&t->samples[j]));
	}
	trace__free_view(t);
	if (!err)
		err = stats_exact_finish(&s->st, &s->sum, &s->pct);
	return err;
}

int trace_stream_open(const char *path, double pct, struct trace_stream **out)
{
	struct tc_codec_error cerr = {0};
	struct trace_stream *s = calloc(1, sizeof(*s));
	struct codec_walk walk = {first_pass, s};
	int err;

	if (!s)
		return -ENOMEM;
	s->path = path;
	err = image_open(path, &s->img);
	if (err) {
		log_err("read %s: %s", path, strerror(-err));
		free(s);
		return err;
	}
	s->skel = trace__new();
	err = s->skel ? stats_exact__init(&s->st) : -ENOMEM;
	err = err ?: codec_walk(s->img.data, s->img.len, s->skel, &cerr, &walk);
	if (err == -EBADMSG)
		log_err("read %s: not a valid tailcause trace: %s", path, cerr.msg);
	else if (err)
		log_err("read %s: %s", path, strerror(-err));
	if (!err && s->skel->streamed.n_samples) {
		err = select_pass(s, pct);
		s->have_stats = !err;
	}
	if (err) {
		trace_stream_close(s);
		return err;
	}
	*out = s;
	return 0;
}

const struct tc_trace *trace_stream_skeleton(const struct trace_stream *s)
{
	return s->skel;
}

int trace_stream_stats(const struct trace_stream *s, struct lat_summary *st, uint64_t *pct)
{
	if (!s->have_stats)
		return -EINVAL;
	*st = s->sum;
	*pct = s->pct;
	return 0;
}

const struct hist *trace_stream_hist(const struct trace_stream *s)
{
	return s->st.h;
}

void trace_stream_source(struct trace_stream *s, struct stream_source *src)
{
	*src = (struct stream_source){s->blocks, s->n_blocks, read_block, s};
}

uint64_t trace_stream_whole_bytes(const struct trace_stream *s)
{
	return s->whole_bytes;
}

void trace_stream_close(struct trace_stream *s)
{
	if (!s)
		return;
	stats_exact__free(&s->st);
	trace__free(s->skel);
	free(s->blocks);
	image_close(&s->img);
	free(s);
}
