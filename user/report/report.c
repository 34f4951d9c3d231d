// SPDX-License-Identifier: BSD-2-Clause
/*
 * report.c - the report pipeline, driven from one place (report_file()): open the trace
 * once, plan how to read it (report_plan.h), load it, prepare it (report_prepare.c),
 * analyze it whole or a segment at a time (report_stream.c) into one result, render each
 * format asked for; one cleanup path. A file that cannot be read or used is bad input
 * (-TC_ERRNO__INPUT); memory and output failures keep their errno.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/attrib/spike_rule.h"
#include "core/iter/iter_samples.h"
#include "core/model/plot.h"
#include "lib/exitcode.h"
#include "lib/log.h"
#include "lib/outfile.h"
#include "report.h"
#include "report_plan.h"
#include "report_stages.h"
#include "tracefile/trace_stream.h"

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
	/* A report names the host's tasks: its owner's alone, as the trace. OpenMetrics
	   (counts, a few labels) is for node_exporter's collector, another user. */
	err = outfile_open(&of, path, f == REPORT_OPENMETRICS ? 0644 : 0600);
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

/* The model of r in every format asked for. */
int report_render(const char *path, const struct report_opts *o, const struct report_result *r,
		  FILE *out)
{
	struct report_model_opts mo = {
		.path = o->trace_kept ? path : NULL,
		.top = o->top,
		.nic_irq_pattern = o->nic_irq_pattern,
		/* The user's iterations are whole operations; the probe's are ping-pong round
		   trips. */
		.div = o->samples_path ? 1 : iter_div_of(r->t),
		.series = r->series.c ? &r->series : NULL,
	};
	struct report_model *m = malloc(sizeof(*m));
	int err;

	err = m ? report_model__build(m, r->t, r->a, r->h, r->n, &mo) : -ENOMEM;
	if (err) {
		log_err("report %s: %s", path, strerror(-err));
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

void report_result__free(struct report_result *r)
{
	plot_series__free(&r->series);
	hist__free(r->h);
	noise__free(r->n);
	analysis__free(r->a);
	trace__free(r->t);
	memset(r, 0, sizeof(*r));
}

/* ---- the pipeline ------------------------------------------------------------------------ */

/* One report on its way through the stages: each stage fills in what the next one reads. */
struct report_run {
	const char *path;
	const struct report_opts *o;
	struct trace_stream *in;     /* open: the file, until what the plan reads of it is read */
	struct report_facts facts;   /* open: what opening it told */
	struct report_plan plan;     /* plan */
	struct tc_trace *t;	     /* load: the trace read whole or as a stretch */
	struct report_run_span span; /* load: the run a stretch is counted in, read by blocks */
	struct report_result r;	     /* analyze */
};

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

/* Open: the file mapped once, its tables read and its blocks placed, and what that told
 * (what could not be read is said by the read the plan makes). */
static int open_trace(struct report_run *run)
{
	int err = trace_stream_open_file(run->path, &run->in);

	if (err) {
		log_err("read %s: %s", run->path, strerror(-err));
		return err;
	}
	trace_stream_info(run->in, &run->facts.file);
	run->facts.marked = trace__meta(trace_stream_skeleton(run->in), "iter.spec") != NULL;
	run->facts.mem_avail = mem_available();
	return 0;
}

/* Plan: whole, a stretch or streamed (report_plan.h); a refusal said in its line. */
static int plan(struct report_run *run)
{
	int err = report_plan(run->path, run->o, &run->facts, &run->plan);

	if (err) {
		log_err("%s", run->plan.msg);
		return err;
	}
	log_dbg("report %s: %s", run->path, run->plan.why);
	return 0;
}

/* The blocks of the stretch asked for (every block without one), the run it counts in, and
 * for a read by blocks the run's statistics. */
static int select_blocks(struct report_run *run)
{
	const struct report_opts *o = run->o;
	struct trace_stream_opts so = {
		.pct = spike_rule_percentile(&o->spike),
		.from_ns = o->from_ns,
		.to_ns = o->to_ns ? o->to_ns : UINT64_MAX,
		.margin_ns = REPORT_STRETCH_MARGIN_NS,
		.no_stats = run->plan.read != REPORT_READ_STREAMED,
	};
	int err = trace_stream_select(run->in, &so);

	if (err == -ERANGE)
		report_no_stretch(run->path, o);
	run->span.first = trace_stream_run_first(run->in);
	run->span.all = trace_stream_run_samples(run->in);
	return err;
}

/* Load: the trace as planned. Read whole or as a stretch, the file is then closed; read by
 * blocks, it stays open for the analysis. */
static int load(struct report_run *run)
{
	int err;

	if (run->plan.read == REPORT_READ_WHOLE) {
		err = trace_stream_read_whole(run->in, &run->t);
	} else {
		err = select_blocks(run);
		if (!err && run->plan.read == REPORT_READ_STREAMED)
			return 0; /* the analysis reads it, a segment at a time */
		err = err ?: trace_stream_read(run->in, &run->t);
	}
	trace_stream_close(run->in); /* all it held is read */
	run->in = NULL;
	return err ? tc_input_error(err) : 0;
}

/* Prepare: the trace read, for the analysis; read by blocks, the tables the analysis copies
 * say the stretch. */
static int prepare(struct report_run *run)
{
	switch (run->plan.read) {
	case REPORT_READ_STREAMED:
		return report_stretch_meta(trace_stream_tables(run->in), run->path, run->o,
					   &run->span,
					   trace_stream_skeleton(run->in)->streamed.n_samples);
	case REPORT_READ_STRETCH:
		return report_prepare(run->t, run->path, run->o, run->facts.marked, &run->span);
	case REPORT_READ_WHOLE:
	default:
		return report_prepare(run->t, run->path, run->o, run->facts.marked, NULL);
	}
}

/* A trace with round trips: its latency analysis and their histogram. */
static int analyze_latency(const struct report_run *run, struct report_result *r)
{
	struct tc_analysis_opts ao = {.spike = run->o->spike,
				      .nic_irq_pattern = run->o->nic_irq_pattern};
	int err = analysis__run(r->t, &ao, &r->a);

	if (err) {
		log_err("analyze %s: %s", run->path, strerror(-err));
		return err == -EINVAL ? -TC_ERRNO__INPUT : err;
	}
	r->h = plot_rtt_hist(r->t->samples, r->t->n_samples);
	if (!r->h) {
		log_err("analyze %s: %s", run->path, strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

/* A trace without (record -- CMD): the per-interval noise of the command's threads. */
static int analyze_noise(const struct report_run *run, struct report_result *r)
{
	struct tc_noise_opts no = {.interval_ns = run->o->interval_ns,
				   .nic_irq_pattern = run->o->nic_irq_pattern};
	int err = noise__run(r->t, &no, &r->n);

	if (!err)
		return 0;
	if (err == -E2BIG)
		log_err("report %s: the trace is too long for a %.3f ms interval", run->path,
			(double)no.interval_ns / 1e6);
	else
		log_err("noise report %s: %s", run->path, strerror(-err));
	return tc_input_error(err);
}

/* Analyze: the prepared trace (the result takes it), or the open file a segment at a time. */
static int analyze(struct report_run *run)
{
	if (run->plan.read == REPORT_READ_STREAMED)
		return report_analyze_stream(run->in, run->path, run->o, &run->r);
	run->r.t = run->t;
	run->t = NULL;
	return run->r.t->n_samples ? analyze_latency(run, &run->r) : analyze_noise(run, &run->r);
}

int report_file(const char *path, const struct report_opts *o, FILE *out)
{
	struct report_run run = {.path = path, .o = o};
	int err;

	err = open_trace(&run);
	err = err ?: plan(&run);
	err = err ?: load(&run);
	err = err ?: prepare(&run);
	err = err ?: analyze(&run);
	err = err ?: report_render(path, o, &run.r, out);
	report_result__free(&run.r);
	trace__free(run.t);
	trace_stream_close(run.in);
	return err;
}
