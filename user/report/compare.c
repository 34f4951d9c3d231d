// SPDX-License-Identifier: BSD-2-Clause
/* compare.c - a run for diff and rank, from a trace or from a JSON report. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "core/iter/iter_samples.h"
#include "core/compare/json_in.h"
#include "core/trace/wakeups.h"
#include "lib/exitcode.h"
#include "lib/infile.h"
#include "lib/log.h"
#include "tracefile/trace_file.h"

/* Blocks of consecutive samples for the bootstrap: 500 of them, of at least 1000 samples. */
static size_t block_size(size_t n)
{
	return n / 500 > 1000 ? n / 500 : 1000;
}

static int from_trace(const char *path, const struct compare_opts *o, struct summary *s)
{
	struct tc_analysis_opts ao = {.spike = o->spike, .nic_irq_pattern = o->nic_irq_pattern};
	struct tc_analysis *a = NULL;
	struct iter_stats st;
	struct tc_trace *t;
	int err = trace_file_read(path, &t);

	if (err)
		return tc_input_error(err);
	/* a --iter trace: its marked iterations; either: blocked intervals split at wake-up */
	if (trace__meta(t, "iter.spec") && !err)
		err = iter_samples_adopt(t, &st);
	if (!err && trace__split_wakeups(t) < 0)
		err = -ENOMEM;
	if (err) {
		log_err("%s: %s", path, strerror(-err));
		trace__free(t);
		return err;
	}
	if (!t->n_samples) {
		log_err("%s: no round trips (a trace of record -- CMD): give its JSON report of "
			"--samples instead",
			path);
		trace__free(t);
		return -TC_ERRNO__INPUT;
	}
	trace__sort(t);
	err = analysis__run(t, &ao, &a);
	if (err)
		log_err("analyze %s: %s", path, strerror(-err));
	else
		err = summary_from_analysis(s, t, a, iter_div_of(t), block_size(t->n_samples));
	if (err == -ENOMEM)
		log_err("%s: %s", path, strerror(ENOMEM));
	analysis__free(a);
	trace__free(t);
	return err == -EINVAL ? -TC_ERRNO__INPUT : err;
}

static int from_json(const char *path, const char *text, size_t len, struct summary *s)
{
	struct jv_error je = {0};
	struct jv *root;
	char why[256];
	int err = jv_parse(text, len, &root, &je);

	if (err) {
		if (err == -ENOMEM)
			log_err("%s: %s", path, strerror(ENOMEM));
		else
			log_err("%s: not valid JSON at byte %zu: %s", path, je.offset, je.msg);
		return tc_input_error(err);
	}
	err = summary_from_json(s, root, why, sizeof(why));
	jv__free(root);
	if (err == -EINVAL) {
		log_err("%s: %s", path, why);
		return -TC_ERRNO__INPUT;
	}
	if (err)
		log_err("%s: %s", path, strerror(-err));
	return err;
}

/* 1 when the file starts, after white space, with '{': a JSON report; 0 otherwise. */
static int looks_like_json(const char *path)
{
	FILE *f = fopen(path, "r");
	int c = EOF;

	if (!f)
		return 0;
	do
		c = fgetc(f);
	while (c == ' ' || c == '\t' || c == '\r' || c == '\n');
	fclose(f);
	return c == '{';
}

int compare_load(const char *path, const struct compare_opts *o, struct summary *s)
{
	size_t len = 0;
	char *text = NULL;
	int err;

	if (!looks_like_json(path)) {
		err = from_trace(path, o,
				 s); /* a trace, or what trace_file_read() says it is not */
	} else {
		err = infile_read(path, &text, &len);
		if (err)
			log_err("read %s: %s", path, strerror(-err));
		else
			err = from_json(path, text, len, s);
		free(text);
		if (err)
			err = tc_input_error(err);
	}
	if (!err)
		snprintf(s->source, sizeof(s->source), "%s", path);
	return err;
}
