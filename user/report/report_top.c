// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_top.c - `tailcause top`: the live view of a recording (rtla's top, with
 * causes). Each refresh reads the blocks the recorder wrote since the last one
 * (tracefile/trace_follow.h), counts the new round trips into the last interval's
 * and the whole run's histograms, and attributes the last interval's spikes with
 * the analyzer, against the whole run's threshold so far.
 *
 * A round trip waits until the events of its time can have been written (an event
 * has started STREAM_AHEAD_NS after its end), or until the recording ended: the
 * recorder drains its events every few hundred milliseconds, after the round trips
 * they overlap may already be in the file.
 *
 * A recording far ahead (top started late, or slower than the probe) is read a megabyte
 * at a time without waiting between reads; while it is, a block is shown every interval
 * with what was read since the last one, and says how far behind it is. A finished
 * trace is read the same way and shown once, at its end.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/stream/analyze_stream.h"
#include "core/util/grow.h"
#include "core/stats/histogram.h"
#include "core/iter/iter_samples.h"
#include "core/attrib/spike_rule.h"
#include "core/stats/stats.h"
#include "core/trace/wakeups.h"
#include "lib/exitcode.h"
#include "lib/log.h"
#include "lib/stop.h"
#include "report_top.h"
#include "tracefile/trace_follow.h"

struct top {
	const struct top_opts *o;
	FILE *out;
	struct trace_follow *f;
	struct tc_trace *tables; /* what was read: the tables; samples and events moved out */
	struct tc_sample *pending;
	size_t n_pending, cap_pending;
	struct tc_event *ev; /* the events that may still overlap a waiting round trip */
	size_t n_ev, cap_ev;
	uint64_t horizon; /* the latest event start read */
	struct stats_acc run, last;
	uint64_t round_trips, events, frames;
	uint64_t t0, shown; /* CLOCK_MONOTONIC: the start, the last block shown */
	/* the last interval's spikes, by cause (every cause: the top ones are shown) */
	struct top_cause {
		char name[TC_CAUSE_NAME_LEN];
		uint64_t spikes, excess_ns;
	} * causes;
	size_t n_causes, cap_causes;
	uint64_t spikes, excess_ns;
	int analyzed;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Adds a's causes to the last interval's, by name. 0 or -ENOMEM. */
static int add_causes(struct top *tp, const struct tc_analysis *a)
{
	for (size_t i = 0; i < a->n_causes; i++) {
		const struct tc_cause *c = &a->causes[i];
		size_t k;

		if (!c->excess_ns)
			continue;
		for (k = 0; k < tp->n_causes && strcmp(tp->causes[k].name, c->name); k++)
			;
		if (k == tp->n_causes) {
			if (grow(&tp->causes, &tp->cap_causes, k + 1, sizeof(*tp->causes)))
				return -ENOMEM;
			snprintf(tp->causes[k].name, TC_CAUSE_NAME_LEN, "%s", c->name);
			tp->causes[k].spikes = tp->causes[k].excess_ns = 0;
			tp->n_causes++;
		}
		tp->causes[k].spikes += c->spikes;
		tp->causes[k].excess_ns += c->excess_ns;
	}
	tp->spikes += a->n_spikes;
	tp->excess_ns += a->total_excess_ns;
	tp->analyzed = 1;
	return 0;
}

/* Most excess first; a tie by name. */
static int cmp_cause(const void *x, const void *y)
{
	const struct top_cause *a = x, *b = y;

	if (a->excess_ns != b->excess_ns)
		return a->excess_ns > b->excess_ns ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Moves what the last read appended to the tables into the waiting lists. */
static int take(struct top *tp)
{
	struct tc_trace *t = tp->tables;

	if (t->n_samples) {
		if (grow(&tp->pending, &tp->cap_pending, tp->n_pending + t->n_samples,
			 sizeof(*tp->pending)))
			return -ENOMEM;
		memcpy(tp->pending + tp->n_pending, t->samples, t->n_samples * sizeof(*t->samples));
		tp->n_pending += t->n_samples;
	}
	if (t->n_events) {
		if (grow(&tp->ev, &tp->cap_ev, tp->n_ev + t->n_events, sizeof(*tp->ev)))
			return -ENOMEM;
		memcpy(tp->ev + tp->n_ev, t->events, t->n_events * sizeof(*t->events));
		tp->n_ev += t->n_events;
		tp->events += t->n_events;
		for (size_t i = 0; i < t->n_events; i++)
			if (t->events[i].start_ns > tp->horizon)
				tp->horizon = t->events[i].start_ns;
	}
	t->n_samples = t->n_events = 0;
	return 0;
}

static int cmp_sample(const void *x, const void *y)
{
	const struct tc_sample *a = x, *b = y;

	return a->t_start < b->t_start ? -1 : a->t_start > b->t_start;
}

/* The spikes of samples s[0, n) against the run's threshold so far: their top causes. */
static int attribute(struct top *tp, const struct tc_sample *s, size_t n)
{
	struct tc_analysis_opts ao = {.spike = *tp->o->spike,
				      .nic_irq_pattern = tp->o->nic_irq_pattern};
	struct tc_trace *v = trace__view(tp->tables);
	struct tc_analysis *a = NULL;
	struct lat_summary st;
	int err;

	if (!v)
		return -ENOMEM;
	err = stats_acc_summary(&tp->run, &st);
	ao.stats = &st;
	ao.stats_pct = hist_percentile(tp->run.h, spike_rule_percentile(&ao.spike));
	err = err ?: trace__add_samples(v, s, n);
	err = err ?: trace__add_events(v, tp->ev, tp->n_ev);
	if (!err && trace__split_wakeups(v) < 0)
		err = -ENOMEM;
	if (!err) {
		trace__sort(v);
		err = analysis__run(v, &ao, &a);
	}
	err = err ?: add_causes(tp, a);
	analysis__free(a);
	trace__free_view(v);
	return err;
}

/* The round trips whose events are in (all of them once the recording ended): counted
 * into the last interval and attributed; the events no waiting round trip can overlap
 * dropped. */
static int settle(struct top *tp, int done)
{
	size_t n = 0, o = 0;
	uint64_t edge;
	int err = 0;

	if (tp->n_pending)
		qsort(tp->pending, tp->n_pending, sizeof(*tp->pending), cmp_sample);
	while (n < tp->n_pending &&
	       (done || sat_add(tp->pending[n].t_end, STREAM_AHEAD_NS) <= tp->horizon))
		n++;
	for (size_t i = 0; i < n; i++) {
		const struct tc_sample *s = &tp->pending[i];
		uint64_t rtt = s->t_end > s->t_start ? s->t_end - s->t_start : 0;

		stats_acc__add(&tp->run, rtt);
		stats_acc__add(&tp->last, rtt);
	}
	tp->round_trips += n;
	if (n)
		err = attribute(tp, tp->pending, n);
	if (tp->n_pending > n)
		memmove(tp->pending, tp->pending + n, (tp->n_pending - n) * sizeof(*tp->pending));
	tp->n_pending -= n;
	/* keep what may overlap a waiting round trip, with the slack a window looks back */
	edge = tp->n_pending ? tp->pending[0].t_start : tp->horizon;
	edge = edge > STREAM_AHEAD_NS ? edge - STREAM_AHEAD_NS : 0;
	for (size_t i = 0; i < tp->n_ev; i++)
		if (sat_add(tp->ev[i].start_ns, tp->ev[i].dur_ns) >= edge)
			tp->ev[o++] = tp->ev[i];
	tp->n_ev = o;
	return err;
}

static void row(FILE *out, const char *what, const struct stats_acc *a, unsigned int div)
{
	struct lat_summary s;

	if (!a->h || stats_acc_summary(a, &s)) {
		fprintf(out, "  %-14s %12s\n", what, "-");
		return;
	}
	fprintf(out, "  %-14s %12zu %10.3f %10.3f %10.3f %10.3f\n", what, s.n,
		(double)s.p50 / div / 1e3, (double)s.p99 / div / 1e3, (double)s.p999 / div / 1e3,
		(double)s.max / div / 1e3);
}

static void frame(struct top *tp, const char *path, int done)
{
	unsigned int div = iter_div_of(tp->tables);
	uint64_t behind = trace_follow_unread(tp->f);
	double el = (double)(now_ns() - tp->t0) / 1e9;
	char ahead[64] = "";

	if (behind)
		snprintf(ahead, sizeof(ahead), " (catching up: %.1f MB more written)",
			 (double)behind / 1e6);
	if (!tp->o->plain)
		fputs("\033[H\033[2J", tp->out);
	else if (tp->frames)
		fputc('\n', tp->out);
	tp->frames++;
	fprintf(tp->out,
		"tailcause top %s  %s, %.0f s: %" PRIu64 " round trips, %" PRIu64
		" events, %.1f MB read%s, %" PRIu64 " lost\n",
		path, done ? "recording ended" : "recording", el, tp->round_trips, tp->events,
		(double)trace_follow_bytes(tp->f) / 1e6, ahead, trace__total_drops(tp->tables));
	fprintf(tp->out, "  %-14s %12s %10s %10s %10s %10s  [usec, %s]\n", "", "round trips", "p50",
		"p99", "p99.9", "max", div == 2 ? "one way" : "per iteration");
	row(tp->out, "last interval", &tp->last, div);
	row(tp->out, "whole run", &tp->run, div);
	if (!tp->analyzed) {
		fprintf(tp->out, "  no round trip in the last interval\n");
	} else {
		fprintf(tp->out, "  last interval: %" PRIu64 " spikes, %.3f usec of excess\n",
			tp->spikes, (double)tp->excess_ns / div / 1e3);
		qsort(tp->causes, tp->n_causes, sizeof(*tp->causes), cmp_cause);
		for (size_t i = 0; i < tp->n_causes && i < tp->o->causes; i++)
			fprintf(tp->out, "    %-44.44s %8" PRIu64 " spikes %12.3f usec %5.1f%%\n",
				tp->causes[i].name, tp->causes[i].spikes,
				(double)tp->causes[i].excess_ns / div / 1e3,
				tp->excess_ns ? 100.0 * (double)tp->causes[i].excess_ns /
							(double)tp->excess_ns
					      : 0.0);
	}
	fflush(tp->out);
}

/* A block was shown: the next interval starts empty. 0 or -ENOMEM. */
static int next_interval(struct top *tp)
{
	tp->shown = now_ns();
	tp->n_causes = 0;
	tp->spikes = tp->excess_ns = 0;
	tp->analyzed = 0;
	stats_acc__free(&tp->last);
	return stats_acc__init(&tp->last);
}

static void pause_ns(uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};

	nanosleep(&ts, NULL); /* a signal cuts it short: stop_requested() says why */
}

static void top_free(struct top *tp)
{
	trace_follow_close(tp->f);
	trace__free(tp->tables);
	free(tp->causes);
	free(tp->pending);
	free(tp->ev);
	stats_acc__free(&tp->run);
	stats_acc__free(&tp->last);
}

/*
 * A block is shown once round trips were counted: the first at once, then one an interval
 * (caught up or not), and one at the end; a trace already finished when first read, only
 * at its end.
 */
static int show_now(const struct top *tp, int done)
{
	if (done)
		return 1;
	if (!tp->round_trips || (!tp->frames && !trace_follow_live(tp->f)))
		return 0;
	return !tp->frames || now_ns() - tp->shown >= tp->o->interval_ns;
}

int report_top(const char *path, const struct top_opts *o, FILE *out)
{
	struct top tp = {.o = o, .out = out};
	int done = 0, waited = 0, err;

	tp.t0 = tp.shown = now_ns();
	tp.tables = trace__new();
	err = tp.tables ? trace_follow_open(path, &tp.f) : -ENOMEM;
	err = err ?: stats_acc__init(&tp.run);
	err = err ?: stats_acc__init(&tp.last);
	while (!err && !stop_requested()) {
		err = trace_follow_read(tp.f, tp.tables, &done);
		if (err == -ENOENT && !waited++) {
			log_info("top: waiting for %s (or %s.partial) to appear", path, path);
			err = 0;
		} else if (err == -ENOENT) {
			err = 0;
		}
		err = err ?: take(&tp);
		err = err ?: settle(&tp, done);
		if (!err && show_now(&tp, done)) {
			frame(&tp, path, done);
			err = next_interval(&tp);
		}
		if (err || done)
			break;
		if (!trace_follow_unread(tp.f)) /* caught up: wait for the next interval */
			pause_ns(tp.frames ? o->interval_ns - (now_ns() - tp.shown) % o->interval_ns
					   : o->interval_ns);
	}
	if (err && err != -EBADMSG)
		log_err("top %s: %s", path, strerror(-err));
	top_free(&tp);
	return err == -EBADMSG ? -TC_ERRNO__INPUT : err;
}
