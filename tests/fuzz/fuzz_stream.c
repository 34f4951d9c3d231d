// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_stream.c - libFuzzer target for the streamed analysis, against the whole one.
 * The input's bytes are a trace's records, 8 bytes each (a file's would rarely get past
 * its CRCs and compression: fuzz_trace covers the reader): round trips of two probe
 * threads, and events of every kind on four CPUs with any flags, durations from
 * nanoseconds to seconds, steal intervals, wake-ups inside blocked intervals. It is
 * analyzed whole, as `report --no-stream` does, and a segment at a time from blocks of
 * a few records handed over in shuffled order (block and segment sizes and the order
 * taken from the input). `report --stream` promises the same answer: the same spikes,
 * threshold and excess, and every cause with the same spikes, excess and hidden time.
 * An answer that differs aborts, as a crash does; so does a streamed run that fails
 * where the whole one did not. A segment cut inside a steal interval (steal_cuts, said
 * by the report) weighs its spikes apart, and is not compared.
 *
 *   make fuzz                 bounded campaign (FUZZ_RUNS, default 10M)
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/attrib/analyze.h"
#include "core/stream/analyze_stream.h"
#include "core/trace/trace_codec.h"
#include "core/trace/wakeups.h"
#include "tests/mem_source.h"

/* A block's records in their order, as a file holds them (equal starts keep it): the
 * samples said to be in order, the events not. */
static int mem_read(void *arg, const struct stream_block *b, struct tc_trace *t)
{
	const struct mem_src *m = arg;
	size_t from = b->where * m->per;

	if (b->type == TC_BLOCK_SAMPLES)
		return trace__add_samples(t, m->t->samples + from, b->n) ?: 1;
	return trace__add_events(t, m->t->events + from, b->n);
}

static const struct tc_cause *named(const struct tc_analysis *a, const char *name)
{
	for (size_t i = 0; i < a->n_causes; i++)
		if (!strcmp(a->causes[i].name, name))
			return &a->causes[i];
	return NULL;
}

static void differs(const char *what)
{
	fprintf(stderr, "fuzz_stream: the streamed analysis differs from the whole one: %s\n",
		what);
	abort();
}

/* The streamed answer s against the whole one w. */
static void compare(const struct tc_analysis *w, const struct tc_analysis *s)
{
	if (s->n_spikes_run != w->n_spikes)
		differs("spikes");
	if (s->threshold_ns != w->threshold_ns)
		differs("threshold");
	if (s->total_excess_ns != w->total_excess_ns)
		differs("total excess");
	for (size_t i = 0; i < w->n_causes; i++) {
		const struct tc_cause *c = named(s, w->causes[i].name);

		if (!w->causes[i].spikes && !w->causes[i].excess_ns)
			continue;
		if (!c || c->spikes != w->causes[i].spikes ||
		    c->excess_ns != w->causes[i].excess_ns ||
		    c->hidden_ns != w->causes[i].hidden_ns)
			differs(w->causes[i].name);
	}
}

/* t (sorted, analyzed whole into w) streamed in blocks of per records, segments of seg. */
static void stream(const struct tc_trace *t, const struct tc_analysis *w,
		   const struct tc_analysis_opts *o, size_t per, size_t seg, size_t shuffle)
{
	struct mem_src m = {.t = t, .per = per};
	struct stream_out out;
	struct stream_params p = {.opts = o, .segment_samples = seg, .keep = 16, .out = &out};
	struct stream_source src;
	struct tc_trace *rt = NULL;
	struct tc_analysis *ra = NULL;
	int err;

	m.b = calloc(t->n_samples / per + t->n_events / per + 4, sizeof(*m.b));
	if (!m.b)
		return;
	mem_blocks(&m, TC_BLOCK_SAMPLES, t->n_samples);
	mem_blocks(&m, TC_BLOCK_EVENTS, t->n_events);
	for (size_t i = m.n; i > 1; i--) { /* the order: blocks swapped as shuffle's digits say */
		size_t j = shuffle % i;
		struct stream_block x = m.b[i - 1];

		shuffle = shuffle / i + shuffle % 7;
		m.b[i - 1] = m.b[j];
		m.b[j] = x;
	}
	src = (struct stream_source){m.b, m.n, mem_read, &m};
	p.stats = w->stats;
	p.stats_pct = w->stats.p50; /* the rule is a median multiple */
	err = analysis_stream_run(t, &src, &p, &rt, &ra);
	if (err && err != -ENOMEM)
		differs("the streamed run failed");
	if (!err && !out.steal_cuts)
		compare(w, ra);
	analysis__free(ra);
	trace__free(rt);
	free(m.b);
}

#define PROBE_TID 100

/* The trace the input's bytes spell (sorted). Each record, 8 bytes: [0] what (below 48:
 * a round trip; else an event of kind [0] % (TC_EV_KIND_MAX + 1)), [1] CPU (low 2 bits),
 * thread and flags, [2..3] the step from the last start, [4..5] the duration (scaled by
 * [1]'s top bits: ns to seconds), [6] arg, [7] who ran instead and the aux value. */
static struct tc_trace *spelled(const uint8_t *d, size_t len)
{
	static const char *const comms[] = {"kworker/0:1", "sshd", "python3", "tc-probe"};
	struct tc_trace *t = trace__new();
	uint64_t now = 1000000000;

	if (!t || trace__add_thread(t, PROBE_TID, TC_THREAD_PROBE, 0) ||
	    trace__add_thread(t, PROBE_TID + 1, TC_THREAD_PROBE, 1)) {
		trace__free(t);
		return NULL;
	}
	for (size_t i = 0; i + 8 <= len; i += 8) {
		const uint8_t *r = d + i;
		uint32_t cpu = r[1] & 3;
		uint64_t dur = (uint64_t)(r[4] | r[5] << 8) << (3 * (r[1] >> 5));
		int err;

		now += (uint64_t)(r[2] | r[3] << 8);
		if (r[0] < 48) {
			struct tc_sample x = {now, now + 200 + dur, cpu & 1, PROBE_TID + (cpu & 1)};

			err = trace__add_samples(t, &x, 1);
		} else {
			struct tc_event e = {
				.start_ns = now,
				.dur_ns = dur,
				.aux = r[7] & 1 ? dur / (1 + (r[7] >> 4)) : r[7],
				.cpu = cpu,
				.tid = r[1] & 4	  ? PROBE_TID + (cpu & 1)
				       : r[1] & 8 ? 4000 + r[6]
						  : 0,
				.arg = r[6],
				.other_pid = r[7] >> 1,
				.kind = (uint16_t)(r[0] % (TC_EV_KIND_MAX + 1)),
				.flags = (uint16_t)(r[1] >> 4 & 3 | (r[6] & 0xc)),
			};

			snprintf(e.other_comm, sizeof(e.other_comm), "%s", comms[r[7] & 3]);
			err = trace__add_events(t, &e, 1);
		}
		if (err) {
			trace__free(t);
			return NULL;
		}
	}
	trace__sort(t);
	return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct tc_analysis_opts o = {.spike = {TC_SPIKE_MEDIAN_X, 2}};
	struct tc_trace *t = spelled(data, len), *whole = spelled(data, len);
	struct tc_analysis *w = NULL;

	/* whole: as `report --no-stream` reads it (wake-ups split off, sorted); t: as the
	 * blocks hold it (the streamed analysis splits each segment's) */
	if (t && whole && t->n_samples && trace__split_wakeups(whole) >= 0) {
		trace__sort(whole);
		if (analysis__run(whole, &o, &w) == 0)
			stream(t, w, &o, 1 + len % 61, 1 + len % 211, len);
		analysis__free(w);
	}
	trace__free(t);
	trace__free(whole);
	return 0;
}
