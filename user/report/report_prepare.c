// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_prepare.c - the prepare stage of a report (report_stages.h): a trace read whole or
 * as a stretch made ready for the analysis, and the stretch said in its meta.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/hosts/peer_join.h"
#include "core/iter/samples_csv.h"
#include "core/trace/wakeups.h"
#include "lib/exitcode.h"
#include "lib/infile.h"
#include "lib/log.h"
#include "report_iter.h"
#include "report_plan.h"
#include "report_stages.h"
#include "tracefile/trace_file.h"

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

/* ---- the peer ---------------------------------------------------------------------------- */

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

/* ---- the stretch ------------------------------------------------------------------------- */

void report_no_stretch(const char *path, const struct report_opts *o)
{
	if (!o->to_ns || o->to_ns == UINT64_MAX)
		log_err("report %s: no round trip from +%.3f s after the first to the end", path,
			(double)o->from_ns / 1e9);
	else
		log_err("report %s: no round trip from +%.3f s to +%.3f s after the first", path,
			(double)o->from_ns / 1e9, (double)o->to_ns / 1e9);
}

/* Whether --to reaches past the run's end from first: no end to the stretch. */
static int to_the_end(const struct report_opts *o, uint64_t first)
{
	return !o->to_ns || o->to_ns == UINT64_MAX || first + o->to_ns < first;
}

int report_stretch_meta(struct tc_trace *t, const char *path, const struct report_opts *o,
			const struct report_run_span *run, uint64_t kept)
{
	int err;

	if (!report_has_stretch(o))
		return 0;
	if (to_the_end(o, run->first))
		err = trace__set_metaf(t, "report.stretch",
				       "+%.3f s to the end: %" PRIu64 " of the %" PRIu64
				       " round trips",
				       (double)o->from_ns / 1e9, kept, run->all);
	else
		err = trace__set_metaf(
			t, "report.stretch",
			"+%.3f s to +%.3f s: %" PRIu64 " of the %" PRIu64 " round trips",
			(double)o->from_ns / 1e9, (double)o->to_ns / 1e9, kept, run->all);
	if (err)
		log_err("report %s: %s", path, strerror(-err));
	return err;
}

/* The run of t read whole: its round trips (its iterations', where they are), from the first. */
static struct report_run_span run_of(const struct tc_trace *t)
{
	struct report_run_span run = {t->n_samples ? t->samples[0].t_start : 0, t->n_samples};

	for (size_t i = 1; i < t->n_samples; i++)
		if (t->samples[i].t_start < run.first)
			run.first = t->samples[i].t_start;
	return run;
}

/* --from/--to: t (the whole run, or already only the stretch) cut to the stretch of run. */
static int cut_stretch(struct tc_trace *t, const char *path, const struct report_opts *o,
		       const struct report_run_span *run)
{
	uint64_t lo, hi;
	size_t kept;

	if (!run->all) {
		log_err("report %s: --from/--to: the trace has no round trips to count from", path);
		return -TC_ERRNO__INPUT;
	}
	lo = run->first + o->from_ns;
	hi = to_the_end(o, run->first) ? UINT64_MAX : run->first + o->to_ns;
	kept = trace__cut(t, lo, hi, REPORT_STRETCH_MARGIN_NS);
	if (!kept) {
		report_no_stretch(path, o);
		return -TC_ERRNO__INPUT;
	}
	return report_stretch_meta(t, path, o, run, kept);
}

int report_prepare(struct tc_trace *t, const char *path, const struct report_opts *o, int marked,
		   const struct report_run_span *run)
{
	struct report_run_span own;
	int err = 0;

	if (o->iter_log_path && !marked) {
		log_err("--iter-log: %s was not recorded with --iter (no marked iterations to place "
			"%s by)",
			path, o->iter_log_path);
		return -TC_ERRNO__INPUT;
	}
	if (o->samples_path)
		err = apply_samples(t, o->samples_path);
	else if (marked)
		err = report_apply_marks(t, path, o->iter_log_path);
	if (!err && o->peer_path)
		err = join_peer(t, path, o->peer_path, o->trace_kept);
	if (!err && report_has_stretch(o)) {
		own = run_of(t);
		err = cut_stretch(t, path, o, run ? run : &own);
	}
	if (!err && trace__split_wakeups(t) < 0) {
		log_err("report %s: %s", path, strerror(ENOMEM));
		err = -ENOMEM;
	}
	if (!err)
		trace__sort(t);
	return err;
}
