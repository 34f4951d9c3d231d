// SPDX-License-Identifier: BSD-2-Clause
/* report_iter.c - a --iter trace's iterations: from its marks, or its benchmark's placed log. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/iter/coll.h"
#include "core/iter/iter_log.h"
#include "core/iter/iter_samples.h"
#include "core/iter/samples_csv.h"
#include "lib/exitcode.h"
#include "lib/infile.h"
#include "lib/log.h"
#include "report_iter.h"

static int set_made(struct tc_trace *t, const struct iter_stats *st)
{
	char buf[256];
	int n;

	if (!st->iterations) {
		snprintf(buf, sizeof(buf), "no iterations marked (%zu marks)", st->marks);
		return trace__set_meta(t, "iter.made", buf);
	}
	n = snprintf(buf, sizeof(buf), "%zu iterations from %zu marks of %zu thread%s",
		     st->iterations, st->marks, st->threads, st->threads == 1 ? "" : "s");
	if (st->unended + st->stray_ends && n > 0 && (size_t)n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - (size_t)n,
			 " (%zu begun and never ended, %zu ends with none begun: dropped)",
			 st->unended, st->stray_ends);
	return trace__set_meta(t, "iter.made", buf);
}

/* The log's iterations in place of the marked ones t holds now; 0 or -errno (reported). */
static int place_log(struct tc_trace *t, const char *path, const char *log_path)
{
	struct samples_csv_error e;
	struct iter_log_fit fit;
	struct tc_sample *s;
	char *text = NULL, buf[400];
	double *us = NULL;
	size_t len = 0, n = 0, k = t->n_samples; /* the marked ones */
	int err = infile_read(log_path, &text, &len);

	if (err) {
		log_err("read %s: %s", log_path, strerror(-err));
		return tc_input_error(err);
	}
	err = iter_log_parse_perftest(text, len, &us, &n, &e);
	free(text);
	if (!err)
		err = iter_log_place(t->samples, k, us, n, iter_div_of(t), &s, &fit, &e);
	free(us);
	if (err) {
		if (err == -ENOMEM)
			log_err("%s: %s", log_path, strerror(ENOMEM));
		else if (e.line)
			log_err("%s line %zu: %s", log_path, e.line, e.msg);
		else
			log_err("%s, with %s: %s", log_path, path, e.msg);
		return tc_input_error(err);
	}
	err = samples_csv_adopt(t, s, n);
	free(s);
	snprintf(
		buf, sizeof(buf),
		"%zu iterations of %s, placed by the first %zu marked, %zu of them kept (its "
		"clock runs %.7f times the trace's; the marks lie %.3f usec from that line, "
		"median; the rate's error, as the anchors estimate it, adds %.3f usec by the last)",
		n, log_path, k, fit.anchors, fit.rate, fit.resid_ns / 1000.0,
		fit.drift_ns / 1000.0);
	err = err ?: trace__set_meta(t, "iter.made", buf);
	err = err ?: trace__set_meta(t, "iter.log", log_path);
	if (err)
		log_err("%s: %s", log_path, strerror(-err));
	return err;
}

/* Why the log cannot be placed on t's marked iterations, or NULL: it can. */
static const char *unplaceable(const struct tc_trace *t, const struct iter_stats *st)
{
	if (!st->iterations)
		return "no marked iterations to place it by";
	if (strcmp(trace__meta(t, "iter.spec"), "perftest"))
		return "it reads perftest's -U list, and these iterations were not marked by "
		       "--iter perftest";
	if (st->threads != 1)
		return "several threads marked iterations, and a log is one thread's";
	return NULL;
}

/*
 * --iter mpi: each rank thread's steps between its collective calls are the samples
 * (core/iter/coll.h); the calls stay in the trace for the collectives section.
 */
static int apply_coll(struct tc_trace *t, const char *path, const char *log_path)
{
	struct coll_model m;
	struct tc_sample *s = NULL;
	size_t n = 0;
	char buf[320];
	int err;

	if (log_path) {
		log_err("report %s: --iter-log %s: it reads perftest's -U list, and these are "
			"MPI collectives (--iter mpi)",
			path, log_path);
		return -TC_ERRNO__INPUT;
	}
	err = coll_build(t, &m);
	err = err ?: coll_steps(&m, &s, &n);
	if (!err && n)
		err = samples_csv_adopt(t, s, n);
	free(s);
	if (err) {
		coll_model_free(&m);
		log_err("report %s: %s", path, strerror(-err));
		return err;
	}
	if (!m.n_calls)
		log_warn("report %s: --iter mpi recorded no collective call (%s rank files): was "
			 "the command an MPI program started on this host, with the MPI "
			 "libtailcause-mpi was built for? This is the noise report instead",
			 path, trace__meta(t, "coll.ranks") ? trace__meta(t, "coll.ranks") : "no");
	else if (!n)
		log_warn("report %s: --iter mpi recorded %zu collective calls: no rank made two, "
			 "so there are no steps between them; this is the noise report instead",
			 path, m.n_calls);
	snprintf(buf, sizeof(buf),
		 "%zu steps between %zu collective calls (%zu instances, %zu with a rank "
		 "missing)",
		 n, m.n_calls, m.n_inst, m.incomplete);
	coll_model_free(&m);
	err = trace__set_meta(t, "iter.made", buf);
	if (err)
		log_err("report %s: %s", path, strerror(-err));
	return err;
}

int report_apply_marks(struct tc_trace *t, const char *path, const char *log_path)
{
	const char *first = trace__meta(t, "iter.first"), *why;
	struct iter_stats st;
	int err;

	if (!strcmp(trace__meta(t, "iter.spec"), "mpi"))
		return apply_coll(t, path, log_path);
	err = iter_samples_adopt(t, &st);

	if (err) {
		log_err("report %s: %s", path, strerror(-err));
		return err;
	}
	if (log_path) {
		why = unplaceable(t, &st);
		if (!why)
			return place_log(t, path, log_path);
		log_err("report %s: --iter-log %s: %s", path, log_path, why);
		return -TC_ERRNO__INPUT;
	}
	if (!st.iterations)
		log_warn("report %s: no iterations marked (--iter %s: %zu marks): the command "
			 "never reached the marker; this is the noise report instead",
			 path, trace__meta(t, "iter.spec"), st.marks);
	else if (first)
		log_warn("report %s: only the first %s iterations were marked (--iter-first): "
			 "give the benchmark's own log with --iter-log for all of them",
			 path, first);
	err = set_made(t, &st);
	if (err)
		log_err("report %s: %s", path, strerror(-err));
	return err;
}
