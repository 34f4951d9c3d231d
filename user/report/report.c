// SPDX-License-Identifier: BSD-2-Clause
/*
 * report.c - trace file (+ the user's samples) -> analysis or noise report ->
 * each requested format. A file that cannot be read or used is bad input
 * (-TC_ERRNO__INPUT); memory and output failures keep their errno.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/model/plot.h"
#include "core/iter/iter_samples.h"
#include "report_iter.h"
#include "core/iter/samples_csv.h"
#include "core/hosts/peer_join.h"
#include "core/trace/wakeups.h"
#include "lib/exitcode.h"
#include "lib/log.h"
#include "lib/infile.h"
#include "lib/outfile.h"
#include "tracefile/trace_file.h"
#include "tracefile/trace_stream.h"
#include "report.h"

static const char *const format_names[] = {
	[REPORT_TEXT] = "text",
	[REPORT_JSON] = "json",
	[REPORT_HTML] = "html",
	[REPORT_PERFETTO] = "perfetto",
	[REPORT_OPENMETRICS] = "openmetrics",
};
#define N_FORMATS (sizeof(format_names) / sizeof(format_names[0]))

int report_format_parse(const char *s, enum report_format *out)
{
	for (size_t i = 0; i < N_FORMATS; i++) {
		if (!strcmp(s, format_names[i])) {
			*out = (enum report_format)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *report_format_names(void)
{
	return "text, json, html, perfetto, openmetrics";
}

/* ---- the user's samples ------------------------------------------------------------------ */

/* Checks that the samples lie on the trace's clock: all outside is an error, some a warning. */
static int check_span(const char *path, const struct tc_trace *t, const struct samples_csv *c)
{
	uint64_t lo, hi;
	size_t out;

	samples_csv_trace_span(t, &lo, &hi);
	out = samples_csv_outside(c->samples, c->n, lo, hi);
	if (out == c->n) {
		log_err("samples %s: none of the %zu rows falls inside the trace (CLOCK_MONOTONIC"
			" %.3f s .. %.3f s): were they taken with clock_gettime(CLOCK_MONOTONIC)"
			" while 'tailcause record' ran?",
			path, c->n, (double)lo / 1e9, (double)hi / 1e9);
		return -EINVAL;
	}
	if (out)
		log_warn("samples %s: %zu of %zu rows lie outside the trace; nothing was traced"
			 " for them",
			 path, out, c->n);
	return 0;
}

/* Replaces t's samples by the CSV's rows; 0, -ENOMEM or -TC_ERRNO__INPUT (reported). */
static int apply_samples(struct tc_trace *t, const char *path)
{
	struct samples_csv_error e;
	struct samples_csv c;
	char buf[32], *text = NULL;
	size_t len = 0;
	int err;

	err = infile_read(path, &text, &len);
	if (err) {
		log_err("read samples %s: %s", path, strerror(-err));
		return tc_input_error(err);
	}
	err = samples_csv_parse(text, len, &c, &e);
	free(text);
	if (err == -ENOMEM) {
		log_err("read samples %s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	if (err) {
		if (e.line)
			log_err("samples %s line %zu: %s", path, e.line, e.msg);
		else
			log_err("samples %s: %s", path, e.msg);
		return -TC_ERRNO__INPUT;
	}
	err = check_span(path, t, &c);
	if (!err) {
		err = samples_csv_adopt(t, c.samples, c.n);
		snprintf(buf, sizeof(buf), "%zu", c.n);
		err = err ?: trace__set_meta(t, "samples.file", path);
		err = err ?: trace__set_meta(t, "samples.rows", buf);
		snprintf(buf, sizeof(buf), "%u", c.columns);
		err = err ?: trace__set_meta(t, "samples.columns", buf);
		if (err)
			log_err("read samples %s: %s", path, strerror(-err));
	}
	samples_csv__free(&c);
	return err == -EINVAL ? -TC_ERRNO__INPUT : err;
}

/* ---- output ------------------------------------------------------------------------------ */

static int write_format(FILE *out, const struct report_model *m, enum report_format f)
{
	switch (f) {
	case REPORT_TEXT:
		if (m->noise)
			report_text_noise(out, m);
		else
			report_text(out, m);
		return 0;
	case REPORT_JSON:
		return report_json(out, m);
	case REPORT_HTML:
		return report_html(out, m);
	case REPORT_PERFETTO:
		return report_perfetto(out, m);
	case REPORT_OPENMETRICS:
		return report_openmetrics(out, m);
	}
	return -EINVAL;
}

/* Writes format f to path (whole or not at all), or to out when path is NULL. */
static int write_report(const struct report_model *m, enum report_format f, const char *path,
			FILE *out)
{
	struct outfile of;
	int err;

	if (!path) {
		err = write_format(out, m, f);
		if (!err && (fflush(out) || ferror(out)))
			err = -(errno ? errno : EIO);
		if (err)
			log_err("write %s report: %s", format_names[f], strerror(-err));
		return err;
	}
	err = outfile_open(&of, path, 0644);
	if (err)
		return err;
	err = write_format(of.f, m, f);
	if (err) {
		log_err("write %s report %s: %s", format_names[f], path, strerror(-err));
		outfile_abort(&of);
		return err;
	}
	return outfile_commit(&of);
}

/* The model of t and a, or of t and n, in every format asked for. */
int report_render(const struct report_opts *o, const struct tc_trace *t,
		  const struct tc_analysis *a, const struct hist *h, const struct tc_noise *n,
		  FILE *out)
{
	struct report_model_opts mo = {
		.path = o->trace_kept ? o->path : NULL,
		.top = o->top,
		.nic_irq_pattern = o->nic_irq_pattern,
		/* The user's iterations are whole operations; the probe's are ping-pong round
		   trips. */
		.div = o->samples_path ? 1 : iter_div_of(t),
		.series = o->series,
	};
	struct report_model *m = malloc(sizeof(*m));
	int err;

	err = m ? report_model__build(m, t, a, h, n, &mo) : -ENOMEM;
	if (err) {
		log_err("report %s: %s", o->path, strerror(-err));
		free(m);
		return err;
	}
	err = write_report(m, o->format, o->out_path, out);
	if (!err && o->html_path)
		err = write_report(m, REPORT_HTML, o->html_path, out);
	report_model__free(m);
	free(m);
	return err;
}

/* A trace without samples (record -- CMD): the per-interval noise of the command's threads. */
static int noise_report(const struct report_opts *o, const struct tc_trace *t, const char *path,
			FILE *out)
{
	struct tc_noise_opts no = {.interval_ns = o->interval_ns,
				   .nic_irq_pattern = o->nic_irq_pattern};
	struct tc_noise *n;
	int err;

	err = noise__run(t, &no, &n);
	if (err) {
		if (err == -E2BIG)
			log_err("report %s: the trace is too long for a %.3f ms interval", path,
				(double)no.interval_ns / 1e6);
		else
			log_err("noise report %s: %s", path, strerror(-err));
		return tc_input_error(err);
	}
	err = report_render(o, t, NULL, NULL, n, out);
	noise__free(n);
	return err;
}

static int latency_report(const struct report_opts *o, const struct tc_trace *t, const char *path,
			  FILE *out)
{
	struct tc_analysis_opts ao = {.spike = o->spike, .nic_irq_pattern = o->nic_irq_pattern};
	struct tc_analysis *a = NULL;
	struct hist *h;
	int err;

	err = analysis__run(t, &ao, &a);
	if (err) {
		log_err("analyze %s: %s", path, strerror(-err));
		return err == -EINVAL ? -TC_ERRNO__INPUT : err;
	}
	h = plot_rtt_hist(t->samples, t->n_samples);
	if (!h) {
		log_err("analyze %s: %s", path, strerror(ENOMEM));
		analysis__free(a);
		return -ENOMEM;
	}
	err = report_render(o, t, a, h, NULL, out);
	hist__free(h);
	analysis__free(a);
	return err;
}

void report_no_stretch(const char *path, const struct report_opts *o)
{
	if (!o->to_ns || o->to_ns == UINT64_MAX)
		log_err("report %s: no round trip from +%.3f s after the first to the end", path,
			(double)o->from_ns / 1e9);
	else
		log_err("report %s: no round trip from +%.3f s to +%.3f s after the first", path,
			(double)o->from_ns / 1e9, (double)o->to_ns / 1e9);
}

static uint64_t first_start(const struct tc_trace *t)
{
	uint64_t first = t->n_samples ? t->samples[0].t_start : 0;

	for (size_t i = 1; i < t->n_samples; i++)
		if (t->samples[i].t_start < first)
			first = t->samples[i].t_start;
	return first;
}

/*
 * --from/--to: the stretch of the run to report, from its first round trip (first) of
 * all; t holds the whole run, or already only the stretch (read_stretch()).
 */
static int cut_stretch(struct tc_trace *t, const char *path, const struct report_opts *o,
		       uint64_t first, uint64_t all)
{
	uint64_t lo, hi;
	size_t kept;

	if (!all) {
		log_err("report %s: --from/--to: the trace has no round trips to count from", path);
		return -TC_ERRNO__INPUT;
	}
	lo = first + o->from_ns;
	hi = o->to_ns == UINT64_MAX || first + o->to_ns < first ? UINT64_MAX : first + o->to_ns;
	kept = trace__cut(t, lo, hi, REPORT_STRETCH_MARGIN_NS);
	if (!kept) {
		report_no_stretch(path, o);
		return -TC_ERRNO__INPUT;
	}
	if (hi == UINT64_MAX)
		return trace__set_metaf(t, "report.stretch",
					"+%.3f s to the end: %zu of the %" PRIu64 " round trips",
					(double)o->from_ns / 1e9, kept, all);
	return trace__set_metaf(t, "report.stretch",
				"+%.3f s to +%.3f s: %zu of the %" PRIu64 " round trips",
				(double)o->from_ns / 1e9, (double)o->to_ns / 1e9, kept, all);
}

static int has_stretch(const struct report_opts *o)
{
	return o->from_ns || (o->to_ns && o->to_ns != UINT64_MAX);
}

/*
 * A stretch of a trace whose round trips are its own: only the blocks it needs are
 * read (through the index, where the file has one), whatever the report's format.
 * 0 with *out, its run's first start and round trips; 1: read the file whole (the
 * round trips are made or paired from the whole run: --samples, --iter, --peer).
 */
static int read_stretch(const char *path, const struct report_opts *o, struct tc_trace **out,
			uint64_t *first, uint64_t *all)
{
	struct trace_stream_opts so = {
		.from_ns = o->from_ns,
		.to_ns = o->to_ns ? o->to_ns : UINT64_MAX,
		.margin_ns = REPORT_STRETCH_MARGIN_NS,
		.no_stats = 1,
	};
	struct trace_stream *ts = NULL;
	int err;

	/* --samples and --peer pair round trips by their place in the whole run */
	if (!has_stretch(o) || o->samples_path || o->peer_path)
		return 1;
	err = trace_stream_open(path, &so, &ts);
	if (err)
		return tc_input_error(err);
	if (!trace_stream_run_samples(ts) || trace__meta(trace_stream_skeleton(ts), "iter.spec")) {
		trace_stream_close(ts); /* its iterations are made from the whole trace */
		return 1;
	}
	*first = trace_stream_run_first(ts);
	*all = trace_stream_run_samples(ts);
	err = trace_stream_read(ts, out);
	trace_stream_close(ts);
	return err ? tc_input_error(err) : 0;
}

/* --peer: the other host's trace, joined to t on t's clock. */
static int join_peer(struct tc_trace *t, const char *path, const char *peer_path, int kept)
{
	struct tc_trace *p = NULL;
	struct peer_join j;
	int err;

	err = trace_file_read(peer_path, &p);
	if (err)
		return tc_input_error(err);
	/* an unmodified benchmark's other end: its iterations from its marks, like ours */
	if (trace__meta(p, "iter.spec")) {
		err = report_apply_marks(p, peer_path, NULL);
		if (err) {
			trace__free(p);
			return err;
		}
	}
	err = peer_join(t, p, &j);
	trace__free(p);
	if (err == -EINVAL) {
		log_err("--peer %s: cannot join it to %s: %s", peer_path, path, j.why);
		return -TC_ERRNO__INPUT;
	}
	if (err) {
		log_err("--peer %s: %s", peer_path, strerror(-err));
		return err;
	}
	return trace__set_meta(t, "peer.path",
			       kept ? peer_path
				    : "(the server's trace, sent over the link, not kept)");
}

/* MemAvailable of /proc/meminfo in bytes; 0 when it cannot be read. */
static uint64_t mem_available(void)
{
	unsigned long long kb = 0;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return (uint64_t)kb * 1024;
}

/*
 * A long trace read whole must fit: its records' arrays alone (before any analysis)
 * taking more than the memory available is refused in one line, where the kernel's
 * OOM killer would end the report minutes later without a word. 0 or -TC_ERRNO__ENV.
 */
static int fits_whole(const char *path)
{
	uint64_t samples, events, need, avail;
	struct stat st;

	if (stat(path, &st) || (uint64_t)st.st_size < REPORT_STREAM_FILE_MIN ||
	    trace_file_counts(path, &samples, &events))
		return 0; /* small, or no index: the read says what it finds */
	need = samples * sizeof(struct tc_sample) + events * sizeof(struct tc_event);
	avail = mem_available();
	if (!avail || need <= avail)
		return 0;
	log_err("report %s: read whole, its %" PRIu64 " round trips and %" PRIu64
		" events need over %.1f GiB, and %.1f GiB are available: %s",
		path, samples, events, (double)need / (1 << 30), (double)avail / (1 << 30),
		samples ? "report a stretch of it (--from/--to), or as text, JSON, HTML or "
			  "OpenMetrics, which read it a segment at a time"
			: "a noise report reads the whole trace; record a shorter run");
	return -TC_ERRNO__ENV;
}

int report_file(const char *path, struct report_opts *o, FILE *out)
{
	struct tc_trace *t = NULL;
	uint64_t first = 0, all = 0;
	struct stat st;
	int err, rc, whole;

	/* a long trace a segment at a time, where the report allows it */
	if (o->stream > 0 ||
	    (!o->stream && !stat(path, &st) && (uint64_t)st.st_size >= REPORT_STREAM_FILE_MIN)) {
		rc = report_stream(path, o, out);
		if (rc != 1)
			return rc;
	}
	whole = read_stretch(path, o, &t, &first, &all);
	if (whole < 0)
		return whole;
	err = whole ? fits_whole(path) : 0;
	if (err)
		return err;
	err = whole ? trace_file_read(path, &t) : 0;
	if (err)
		return tc_input_error(err);
	o->path = path;
	if (o->iter_log_path && !trace__meta(t, "iter.spec")) {
		log_err("--iter-log: %s was not recorded with --iter (no marked iterations to place "
			"%s by)",
			path, o->iter_log_path);
		trace__free(t);
		return -TC_ERRNO__INPUT;
	}
	if (o->samples_path || trace__meta(t, "iter.spec")) {
		rc = o->samples_path ? apply_samples(t, o->samples_path)
				     : report_apply_marks(t, path, o->iter_log_path);
		if (rc) {
			trace__free(t);
			return rc;
		}
	}
	if (o->peer_path) {
		rc = join_peer(t, path, o->peer_path, o->trace_kept);
		if (rc) {
			trace__free(t);
			return rc;
		}
	}
	if (has_stretch(o)) {
		/* read whole: counted from its round trips, its iterations' where they are */
		rc = cut_stretch(t, path, o, whole ? first_start(t) : first,
				 whole ? t->n_samples : all);
		if (rc) {
			trace__free(t);
			return rc;
		}
	}
	rc = trace__split_wakeups(t) < 0 ? -ENOMEM : 0;
	if (rc) {
		log_err("report %s: %s", path, strerror(ENOMEM));
		trace__free(t);
		return rc;
	}
	trace__sort(t);
	if (t->n_samples)
		rc = latency_report(o, t, path, out);
	else
		rc = noise_report(o, t, path, out);
	trace__free(t);
	return rc;
}
