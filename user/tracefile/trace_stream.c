// SPDX-License-Identifier: BSD-2-Clause
/* trace_stream.c - a trace file read block by block (trace_stream.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/grow.h"
#include "core/trace/rtt_summary.h"
#include "core/stats/stats_exact.h"
#include "core/trace/trace_codec.h"
#include "image.h"
#include "lib/log.h"
#include "trace_stream.h"

struct trace_stream {
	const char *path;
	struct image img;
	struct tc_trace *skel;
	struct stream_block *blocks; /* every SAMPLES and EVENTS block, in file order */
	uint64_t *max_end;	     /* and the latest end of its records */
	size_t n_blocks, cap_blocks, cap_ends;
	struct stream_block *used; /* those the stretch needs, for the analysis */
	size_t n_used;
	size_t index_off; /* of the INDEX block, 0: none */
	int indexed;	  /* the INDEX block lists every block: their records and spans */
	int have_image;	  /* the file's bytes are in img */
	int open_err;	  /* what opening could not read, said by the read that needs it */
	struct tc_codec_error open_ce;
	size_t rtt_off;	    /* of the RTT_HIST block, 0: none */
	size_t summary_off; /* of the RTT_SUMMARY block, 0: none */
	int reached_end;
	uint64_t lo, hi, elo, ehi;	 /* the stretch's round trips, and its events */
	uint64_t run_samples, run_first; /* the run's round trips and first start */
	struct stats_exact st;
	struct lat_summary sum;
	uint64_t pct;
	double p; /* the caller's percentile */
	/* statistics taken from the RTT_SUMMARY block, checked as the analysis reads */
	int checking;
	struct tc_rtt_summary want;
	struct tc_rtt_hist given; /* the RTT_HIST block's, checked with it */
	struct rtt_tally tally;
	struct codec_blocks *dec; /* every block's decoder: its buffers made once */
};

static void report_err(const struct trace_stream *s, int err, const struct tc_codec_error *ce)
{
	if (err == -EBADMSG)
		log_err("read %s: not a valid tailcause trace: %s", s->path, ce->msg);
	else if (err)
		log_err("read %s: %s", s->path, strerror(-err));
}

static int add_block(struct trace_stream *s, uint32_t type, size_t off, size_t end)
{
	if (grow(&s->blocks, &s->cap_blocks, s->n_blocks + 1, sizeof(*s->blocks)) ||
	    grow(&s->max_end, &s->cap_ends, s->n_blocks + 1, sizeof(*s->max_end)))
		return -ENOMEM;
	s->blocks[s->n_blocks] = (struct stream_block){type, off, end - off, 0, UINT64_MAX};
	s->max_end[s->n_blocks++] = 0;
	return 0;
}

/* The scan: the records' blocks noted, the tables decoded, the index found. */
static int scanned(void *arg, uint32_t type, size_t off, size_t end)
{
	struct trace_stream *s = arg;

	/* a page fault maps the pages around it too: drop what the scan passed */
	image_consumed(&s->img, off);
	if (type == TC_BLOCK_SAMPLES || type == TC_BLOCK_EVENTS)
		return add_block(s, type, off, end);
	if (type == TC_BLOCK_INDEX) {
		s->index_off = off;
		return 0;
	}
	if (type == TC_BLOCK_RTT_HIST) {
		s->rtt_off = off;
		return 0;
	}
	if (type == TC_BLOCK_RTT_SUMMARY) {
		s->summary_off = off;
		return 0;
	}
	if (type == TC_BLOCK_END) {
		s->reached_end = 1;
		return 0;
	}
	return codec_blocks_decode(s->dec, s->img.data, s->img.len, off, s->skel, &s->open_ce);
}

/* Each block's records and span: from the INDEX block where it lists every block, else each
 * decoded. 0, or -EBADMSG / -ENOMEM (s->open_ce). */
static int place_blocks(struct trace_stream *s)
{
	struct tc_block_ref *refs = NULL;
	struct tc_trace *t;
	size_t n = 0;
	int err = 0;

	if (s->index_off) {
		err = codec_decode_index(s->img.data, s->img.len, s->index_off, &refs, &n,
					 &s->open_ce);
		if (err)
			return err;
		s->indexed = n == s->n_blocks; /* it does not list these blocks: not trusted */
		for (size_t i = 0; s->indexed && i < n; i++)
			s->indexed = refs[i].off == s->blocks[i].where &&
				     refs[i].type == s->blocks[i].type;
		for (size_t i = 0; s->indexed && i < n; i++) {
			s->blocks[i].n = refs[i].n;
			s->blocks[i].min_start = refs[i].min_start;
			s->max_end[i] = refs[i].max_end;
		}
		free(refs);
		if (s->indexed)
			return 0;
	}
	t = trace__view(s->skel);
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; !err && i < s->n_blocks; i++) {
		struct stream_block *b = &s->blocks[i];

		t->n_samples = t->n_events = 0;
		err = codec_blocks_decode(s->dec, s->img.data, s->img.len, b->where, t,
					  &s->open_ce);
		for (size_t j = 0; !err && j < t->n_samples; j++) {
			b->min_start = t->samples[j].t_start < b->min_start ? t->samples[j].t_start
									    : b->min_start;
			s->max_end[i] = t->samples[j].t_end > s->max_end[i] ? t->samples[j].t_end
									    : s->max_end[i];
		}
		for (size_t j = 0; !err && j < t->n_events; j++) {
			uint64_t end = sat_add(t->events[j].start_ns, t->events[j].dur_ns);

			b->min_start = t->events[j].start_ns < b->min_start ? t->events[j].start_ns
									    : b->min_start;
			s->max_end[i] = end > s->max_end[i] ? end : s->max_end[i];
		}
		b->n = t->n_samples + t->n_events;
		image_consumed(&s->img, b->where);
	}
	trace__free_view(t);
	return err;
}

/* No --from/--to: every record is read. */
static int whole_run(const struct trace_stream *s)
{
	return !s->lo && s->hi == UINT64_MAX;
}

static int in_stretch(const struct trace_stream *s, const struct tc_sample *x)
{
	return x->t_start >= s->lo && x->t_start < s->hi;
}

/*
 * The block just read holds what the analysis placed it by (the index's word, or an
 * earlier read): as many records, the earliest at the start it was placed at. Blocks
 * opened out of their records' order would hand the analysis records after later
 * ones. 0, or -EBADMSG (said).
 */
static int as_placed(struct trace_stream *s, const struct stream_block *b)
{
	struct codec_block_span sp;

	codec_blocks_span(s->dec, &sp);
	if (sp.n == b->n && (!sp.n || sp.min_start == b->min_start))
		return 0;
	log_err("read %s: not a valid tailcause trace: the block at offset %zu holds %" PRIu64
		" records from %" PRIu64 " ns, its index entry says %" PRIu64 " from %" PRIu64
		" ns (report --no-stream, without --from/--to, reads it without the index)",
		s->path, b->where, sp.n, sp.min_start, b->n, b->min_start);
	return -EBADMSG;
}

/* Reads block b into t: the stretch's samples, its events (counted as they are read). */
static int read_block(void *arg, const struct stream_block *b, struct tc_trace *t)
{
	struct trace_stream *s = arg;
	struct tc_codec_error ce = {0};
	size_t ns = t->n_samples, ne = t->n_events, o, first;
	uint64_t stolen = 0;
	int whole = whole_run(s);
	int err = codec_blocks_decode(s->dec, s->img.data, s->img.len, b->where, t, &ce);

	report_err(s, err, &ce);
	/* the block's pages, read out of order, are not needed again */
	image_drop(&s->img, b->where, b->where + b->len);
	err = err ?: as_placed(s, b);
	if (err)
		return err;
	if (s->checking)
		rtt_tally_add(&s->tally, t->samples + ns, t->n_samples - ns);
	for (o = ns; !whole && ns < t->n_samples; ns++)
		if (in_stretch(s, &t->samples[ns]))
			t->samples[o++] = t->samples[ns];
	if (!whole)
		t->n_samples = o;
	/* counted in locals: the events written here could otherwise be taken to alias them */
	for (o = first = ne; ne < t->n_events; ne++) {
		const struct tc_event *e = &t->events[ne];

		if (!whole && (e->start_ns >= s->ehi || sat_add(e->start_ns, e->dur_ns) < s->elo))
			continue;
		stolen += e->kind == TC_EV_STEAL ? e->stolen_ns : 0;
		if (o != ne)
			t->events[o] = *e;
		o++;
	}
	s->skel->streamed.n_events += o - first;
	s->skel->streamed.stolen_ns += stolen;
	t->n_events = o;
	return 0;
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

/*
 * The writer's histogram of the round trips, where it covers the stretch (the whole
 * run) and this reader's layout: 1 when it was read into r, else 0 (or -ENOMEM).
 */
static int given_hist(struct trace_stream *s, struct tc_rtt_hist *r)
{
	struct tc_codec_error ce = {0};
	int err;

	if (!s->rtt_off || !whole_run(s))
		return 0;
	err = tc_rtt_hist__init(r);
	if (err)
		return err;
	err = codec_decode_rtt_hist(s->img.data, s->img.len, s->rtt_off, r, &ce);
	if (err == -EBADMSG)
		log_warn("read %s: its round-trip histogram is not used: %s", s->path, ce.msg);
	if (err == -ENOMEM)
		return err;
	return !err && r->h->total == s->run_samples;
}

/*
 * The stretch's samples, twice: counted, then selected (stats_exact.h). With the
 * writer's histogram (given) the first pass is not needed; the second counts the
 * samples again into check, and a histogram that differs from them is not used
 * (1: the passes are made again, not trusting it).
 */
static int sample_passes(struct trace_stream *s, double pct, int trust)
{
	struct tc_trace *t = trace__view(s->skel);
	struct tc_trace *k = s->skel;
	struct tc_rtt_hist given = {0}, check = {0};
	int err = !t ? -ENOMEM : trust ? given_hist(s, &given) : 0;
	int use = err == 1;

	if (use) {
		stats_exact_given(&s->st, given.h);
		err = tc_rtt_hist__init(&check);
	}
	for (int pass = use; !err && pass < 2; pass++) {
		if (pass && !use && !k->streamed.n_samples)
			err = -ERANGE; /* the stretch holds no round trip */
		else if (pass)
			err = stats_exact_begin(&s->st, pct);
		for (size_t i = 0; !err && i < s->n_used; i++) {
			if (s->used[i].type != TC_BLOCK_SAMPLES)
				continue;
			t->n_samples = t->n_events = 0;
			err = read_block(s, &s->used[i], t);
			if (!err && use)
				tc_rtt_hist_add(&check, t->samples, t->n_samples);
			for (size_t j = 0; !err && j < t->n_samples; j++) {
				const struct tc_sample *x = &t->samples[j];

				if (pass)
					stats_exact_select(&s->st, tc_sample_rtt(x));
				if (pass && !use)
					continue;
				if (!pass)
					stats_exact_count(&s->st, tc_sample_rtt(x));
				note_cpu(k, x->cpu);
				if (!k->streamed.n_samples ||
				    x->t_start > k->streamed.last_sample_ns)
					k->streamed.last_sample_ns = x->t_start;
				if (!k->streamed.n_samples++ ||
				    x->t_start < k->streamed.first_sample_ns)
					k->streamed.first_sample_ns = x->t_start;
			}
		}
	}
	if (!err && use && (check.sum != given.sum || memcmp(check.h, given.h, sizeof(*check.h)))) {
		log_warn("read %s: its round-trip histogram differs from its round trips: "
			 "counted them instead",
			 s->path);
		err = 1;
	}
	tc_rtt_hist__free(&given);
	tc_rtt_hist__free(&check);
	trace__free_view(t);
	return err ?: stats_exact_finish(&s->st, &s->sum, &s->pct);
}

/*
 * The whole run's statistics from the writer's RTT_SUMMARY block, where it holds the
 * caller's percentile and has a RTT_HIST block to be checked with: 0 (taken; the
 * analysis's reads check them, trace_stream_recheck()), 1 (not usable: count the
 * samples), or -ENOMEM.
 */
static int from_summary(struct trace_stream *s, double pct)
{
	struct tc_codec_error ce = {0};
	struct tc_trace *k = s->skel;
	int err;

	_Static_assert(sizeof(k->streamed.sample_cpus) / sizeof(k->streamed.sample_cpus[0]) >=
			       TC_RTT_SUMMARY_CPUS,
		       "a summary's CPUs fit the skeleton's");
	if (!s->summary_off || !whole_run(s))
		return 1;
	err = given_hist(s, &s->given);
	if (err == 1) {
		err = codec_decode_rtt_summary(s->img.data, s->img.len, s->summary_off, &s->want,
					       &ce);
		if (err == -EBADMSG)
			log_warn("read %s: its round-trip summary is not used: %s", s->path,
				 ce.msg);
		if (err != -ENOMEM)
			err = err || s->want.n != s->run_samples ||
			      rtt_summary_stats(&s->want, pct, &s->sum, &s->pct);
	} else {
		err = err < 0 ? err : 1;
	}
	err = err ?: rtt_tally__init(&s->tally, &s->want);
	if (err) {
		tc_rtt_hist__free(&s->given);
		return err;
	}
	stats_exact_given(&s->st, s->given.h);
	k->streamed.n_samples = s->want.n;
	k->streamed.first_sample_ns = s->want.first_start;
	k->streamed.last_sample_ns = s->want.last_start;
	memcpy(k->streamed.sample_cpus, s->want.cpus, s->want.n_cpus * sizeof(*s->want.cpus));
	k->streamed.n_sample_cpus = s->want.n_cpus;
	s->checking = 1;
	return 0;
}

/* The statistics counted from the samples afresh, trusting no table of the writer's. */
static int count_again(struct trace_stream *s)
{
	stats_exact__free(&s->st);
	memset(&s->skel->streamed, 0, sizeof(s->skel->streamed));
	return stats_exact__init(&s->st) ?: sample_passes(s, s->p, 0);
}

/* The stretch from the first round trip, and the blocks it needs. */
static int choose(struct trace_stream *s, const struct trace_stream_opts *o)
{
	uint64_t first = UINT64_MAX;

	for (size_t i = 0; i < s->n_blocks; i++) {
		const struct stream_block *b = &s->blocks[i];

		if (b->type == TC_BLOCK_SAMPLES && b->n) {
			s->run_samples += b->n;
			first = b->min_start < first ? b->min_start : first;
		}
	}
	if (first == UINT64_MAX)
		first = 0;
	s->run_first = first;
	s->hi = s->ehi = UINT64_MAX; /* the whole run: everything */
	if (o->from_ns || o->to_ns != UINT64_MAX) {
		s->lo = first + o->from_ns;
		if (o->to_ns != UINT64_MAX && first + o->to_ns >= first)
			s->hi = first + o->to_ns;
		s->elo = s->lo > o->margin_ns ? s->lo - o->margin_ns : 0;
		s->ehi = sat_add(s->hi, o->margin_ns);
	}
	s->used = malloc((s->n_blocks ? s->n_blocks : 1) * sizeof(*s->used));
	if (!s->used)
		return -ENOMEM;
	for (size_t i = 0; i < s->n_blocks; i++) {
		const struct stream_block *b = &s->blocks[i];
		int samples = b->type == TC_BLOCK_SAMPLES;

		if (b->n && b->min_start < (samples ? s->hi : s->ehi) &&
		    s->max_end[i] >= (samples ? s->lo : s->elo))
			s->used[s->n_used++] = *b;
	}
	return 0;
}

int trace_stream_open_file(const char *path, struct trace_stream **out)
{
	struct trace_stream *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	s->path = path;
	s->skel = trace__new();
	s->dec = codec_blocks__new();
	if (!s->skel || !s->dec) {
		trace_stream_close(s);
		return -ENOMEM;
	}
	err = image_open(path, &s->img);
	s->have_image = !err;
	err = err ?: codec_decode_header(s->img.data, s->img.len, s->skel, &s->open_ce);
	err = err ?: codec_scan(s->img.data, s->img.len, scanned, s, &s->open_ce);
	if (!err)
		s->skel->truncated = !s->reached_end;
	s->img.released = 0; /* each pass that follows drops pages from the start again */
	err = err ?: place_blocks(s);
	s->img.released = 0;
	s->open_err = err;
	*out = s;
	return 0;
}

void trace_stream_info(const struct trace_stream *s, struct trace_stream_info *out)
{
	*out = (struct trace_stream_info){
		.file_size = s->img.file_size, .intact = !s->open_err, .indexed = s->indexed};
	for (size_t i = 0; !s->open_err && i < s->n_blocks; i++)
		*(s->blocks[i].type == TC_BLOCK_SAMPLES ? &out->samples : &out->events) +=
			s->blocks[i].n;
}

int trace_stream_select(struct trace_stream *s, const struct trace_stream_opts *o)
{
	int err = s->open_err;

	report_err(s, err, &s->open_ce);
	err = err ?: choose(s, o);
	s->p = o->pct;
	if (!err && s->run_samples && !o->no_stats) {
		err = stats_exact__init(&s->st) ?: from_summary(s, o->pct);
		err = err == 1 ? sample_passes(s, o->pct, 1) : err;
	}
	return err == 1 ? count_again(s) : err;
}

int trace_stream_open(const char *path, const struct trace_stream_opts *o,
		      struct trace_stream **out)
{
	struct trace_stream *s = NULL;
	int err = trace_stream_open_file(path, &s);

	err = err ?: trace_stream_select(s, o);
	if (err) {
		trace_stream_close(s);
		return err;
	}
	*out = s;
	return 0;
}

struct tc_trace *trace_stream_tables(struct trace_stream *s)
{
	return s->skel;
}

int trace_stream_read_whole(struct trace_stream *s, struct tc_trace **out)
{
	if (!s->have_image) {
		report_err(s, s->open_err, &s->open_ce);
		return s->open_err;
	}
	return image_read_trace(&s->img, s->path, out);
}

const struct tc_trace *trace_stream_skeleton(const struct trace_stream *s)
{
	return s->skel;
}

uint64_t trace_stream_run_samples(const struct trace_stream *s)
{
	return s->run_samples;
}

int trace_stream_stats(const struct trace_stream *s, struct lat_summary *st, uint64_t *pct)
{
	if (!s->skel->streamed.n_samples)
		return -EINVAL;
	*st = s->sum;
	*pct = s->pct;
	return 0;
}

int trace_stream_recheck(struct trace_stream *s)
{
	int agrees, err;

	if (!s->checking)
		return 0;
	s->checking = 0;
	agrees = rtt_tally_agrees(&s->tally, &s->given);
	rtt_tally__free(&s->tally);
	if (agrees)
		return 0;
	log_warn("read %s: its round-trip summary differs from its round trips: counted them "
		 "instead",
		 s->path);
	err = count_again(s);
	return err ?: 1;
}

const struct hist *trace_stream_hist(const struct trace_stream *s)
{
	return s->st.h;
}

uint64_t trace_stream_run_first(const struct trace_stream *s)
{
	return s->run_first;
}

int trace_stream_read(struct trace_stream *s, struct tc_trace **out)
{
	struct tc_trace *t = trace__copy_tables(s->skel);
	int err = t ? 0 : -ENOMEM;

	for (size_t i = 0; !err && i < s->n_used; i++)
		err = read_block(s, &s->used[i], t);
	if (err) {
		trace__free(t);
		return err;
	}
	*out = t;
	return 0;
}

/* read_block() for the analysis: 1 when the records it appended came in start order. */
static int read_source(void *arg, const struct stream_block *b, struct tc_trace *t)
{
	struct trace_stream *s = arg;
	struct codec_block_span sp;
	int err = read_block(s, b, t);

	if (err)
		return err;
	codec_blocks_span(s->dec, &sp);
	return sp.in_order;
}

void trace_stream_source(struct trace_stream *s, struct stream_source *src)
{
	*src = (struct stream_source){s->used, s->n_used, read_source, s};
}

void trace_stream_close(struct trace_stream *s)
{
	if (!s)
		return;
	stats_exact__free(&s->st);
	rtt_tally__free(&s->tally);
	tc_rtt_hist__free(&s->given);
	codec_blocks__free(s->dec);
	trace__free(s->skel);
	free(s->blocks);
	free(s->max_end);
	free(s->used);
	image_close(&s->img);
	free(s);
}
