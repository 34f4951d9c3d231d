// SPDX-License-Identifier: BSD-2-Clause
/* iter_log.c - perftest's -U list, placed on the tracers' clock by its marked first iterations. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iter_log.h"

static int fail(struct samples_csv_error *err, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct samples_csv_error *err, size_t line, const char *fmt, ...)
{
	va_list ap;

	err->line = line;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* "N, value": 1 with them, 0 for another line. */
static int row(const char *p, const char *end, unsigned long long *idx, double *v)
{
	char line[96], *e;
	size_t n = (size_t)(end - p);

	if (n >= sizeof(line))
		return 0;
	memcpy(line, p, n);
	line[n] = 0;
	*idx = strtoull(line, &e, 10);
	if (e == line || *e != ',')
		return 0;
	*v = strtod(e + 1, &e);
	while (*e == ' ' || *e == '\t' || *e == '\r')
		e++;
	return *e == 0;
}

int iter_log_parse_perftest(const char *buf, size_t len, double **us, size_t *n,
			    struct samples_csv_error *err)
{
	const char *p = buf, *end = buf + len;
	size_t cap = 0, lineno = 0;
	double *v = NULL;
	int in_list = 0;

	*us = NULL;
	*n = 0;
	memset(err, 0, sizeof(*err));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		unsigned long long idx;
		double x;

		lineno++;
		if (!in_list) {
			in_list = le - p >= 7 && !strncmp(p, "#, usec", 7);
		} else if (row(p, le, &idx, &x)) {
			if (idx != *n + 1 || !(x >= 0) || !isfinite(x)) {
				size_t want = *n + 1;

				free(v);
				*us = NULL;
				*n = 0;
				return fail(err, lineno,
					    "row %llu, %g: expected row %zu, a latency", idx, x,
					    want);
			}
			if (*n == cap) {
				double *g = realloc(v, (cap ? 2 * cap : 4096) * sizeof(*v));

				if (!g) {
					free(v);
					*n = 0;
					return -ENOMEM;
				}
				v = g;
				cap = cap ? 2 * cap : 4096;
			}
			v[(*n)++] = x;
		} else if (*n) {
			break; /* the list ends at its first other line */
		}
		p = le + 1;
	}
	if (!*n) {
		free(v);
		return fail(err, 0,
			    "no per-iteration list (\"#, usec\" then \"N, value\" rows: "
			    "run perftest with -U)");
	}
	*us = v;
	return 0;
}

int iter_log_place(const struct tc_sample *marked, size_t k, const double *us, size_t n,
		   unsigned int div, struct tc_sample **out, struct iter_log_fit *fit,
		   struct samples_csv_error *err)
{
	double listed = 0.0, at, rtt0, slope_err;
	struct tc_sample *s;
	uint64_t t0, span;

	memset(fit, 0, sizeof(*fit));
	memset(err, 0, sizeof(*err));
	*out = NULL;
	if (k < 2 || k > n)
		return fail(err, 0, "%zu marked iterations for a log of %zu: need 2 to %zu", k, n,
			    n);
	t0 = marked[0].t_start;
	span = marked[k - 1].t_end - t0;
	for (size_t i = 0; i < k; i++)
		listed += us[i] * 1000.0 * div;
	if (!(listed > 0))
		return fail(err, 0, "the log's first %zu iterations last no time", k);
	fit->rate = (double)span / listed;
	/* the same run: the marks' clock and the log's agree to well within a percent */
	if (fit->rate < 0.99 || fit->rate > 1.01)
		return fail(err, 0,
			    "the marked iterations last %.6f times the log's first %zu: not this "
			    "run's log",
			    fit->rate, k);
	s = malloc(n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	at = 0.0;
	for (size_t i = 0; i < n; i++) {
		double rtt = us[i] * 1000.0 * div * fit->rate;

		s[i] = (struct tc_sample){
			.t_start = t0 + (uint64_t)llround(at),
			.t_end = t0 + (uint64_t)llround(at + rtt),
			.cpu = marked[k - 1].cpu,
			.tid = marked[k - 1].tid,
		};
		if (i < k) {
			double d = fabs((double)marked[i].t_start - (double)s[i].t_start);

			if (d > fit->resid_ns)
				fit->resid_ns = d;
		}
		at += rtt;
	}
	/* a rate off by the marks' scatter over the anchored span, carried to the end */
	rtt0 = (double)span;
	slope_err = rtt0 > 0 ? 2.0 * fit->resid_ns / rtt0 : 0.0;
	fit->drift_ns = slope_err * at;
	fit->anchors = k;
	*out = s;
	return 0;
}
