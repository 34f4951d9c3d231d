// SPDX-License-Identifier: BSD-2-Clause
/* iter_log.c - perftest's -U list, placed on the tracers' clock by its marked first iterations. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iter_log.h"

/*
 * How far a benchmark's own clock may run off the trace's: nearer one than two, so
 * a log in other halves (one way read as round trips, or the reverse: a rate of 2 or
 * 1/2) is told, while perftest's MHz estimate is not held to more than it holds
 * itself (a regression it accepts at r^2 >= 0.9, used when it differs from the
 * nominal MHz by over 2 %: under TCG 2.7 % and 10.3 % off were seen).
 */
#define RATE_MAX M_SQRT2

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
				return samples_csv_fail(err, lineno,
							"row %llu, %g: expected row %zu, a latency",
							idx, x, want);
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
		return samples_csv_fail(
			err, 0,
			"no per-iteration list (\"#, usec\" then \"N, value\" rows: "
			"run perftest with -U)");
	}
	*us = v;
	return 0;
}

/* Least squares y = a + r x over the points with keep[i] set; 0, or -1 with fewer than 2. */
static int line_fit(const double *x, const double *y, const unsigned char *keep, size_t n,
		    double *a, double *r)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, m = 0, d;

	for (size_t i = 0; i < n; i++) {
		if (!keep[i])
			continue;
		sx += x[i];
		sy += y[i];
		m++;
	}
	if (m < 2)
		return -1;
	sx /= m;
	sy /= m;
	for (size_t i = 0; i < n; i++) {
		if (!keep[i])
			continue;
		sxx += (x[i] - sx) * (x[i] - sx);
		sxy += (x[i] - sx) * (y[i] - sy);
	}
	d = sxx;
	if (!(d > 0))
		return -1;
	*r = sxy / d;
	*a = sy - *r * sx;
	return 0;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* |rate of the first half of the kept anchors - rate of the second|, or 0 with too few. */
static double half_spread(const double *x, const double *y, unsigned char *keep, size_t k)
{
	double a, r1, r2;
	size_t h = k / 2;

	if (h < 4)
		return 0.0;
	if (line_fit(x, y, keep, h, &a, &r1) || line_fit(x + h, y + h, keep + h, k - h, &a, &r2))
		return 0.0;
	return fabs(r1 - r2);
}

/*
 * The line through the anchors, twice: a mark an odd delay displaced (the first
 * uprobe hit of a process is slow) is left out of the second fit when it lies more
 * than 3 times the median residual (and 1 us) off the first. Fills fit; 0 or -1.
 */
static int robust_fit(const double *x, const double *y, size_t k, unsigned char *keep, double *res,
		      double *a, struct iter_log_fit *fit)
{
	double cut, sr2 = 0, sxx = 0, mx = 0;
	size_t kept = 0;

	memset(keep, 1, k);
	if (line_fit(x, y, keep, k, a, &fit->rate))
		return -1;
	for (size_t i = 0; i < k; i++)
		res[i] = fabs(y[i] - *a - fit->rate * x[i]);
	memcpy(res + k, res, k * sizeof(*res));
	qsort(res + k, k, sizeof(*res), cmp_double);
	cut = fmax(3.0 * res[k + k / 2], 1000.0);
	for (size_t i = 0; i < k; i++)
		keep[i] = res[i] <= cut;
	if (line_fit(x, y, keep, k, a, &fit->rate))
		return -1;
	for (size_t i = 0; i < k; i++)
		if (keep[i]) {
			mx += x[i];
			kept++;
		}
	mx /= (double)kept;
	for (size_t i = 0, j = 0; i < k; i++) {
		double e = y[i] - *a - fit->rate * x[i];

		if (!keep[i])
			continue;
		res[j++] = fabs(e);
		sr2 += e * e;
		sxx += (x[i] - mx) * (x[i] - mx);
	}
	qsort(res, kept, sizeof(*res), cmp_double);
	fit->resid_ns = res[kept / 2];
	fit->anchors = kept;
	/*
	 * The rate's error, carried from the anchors' middle to the end: twice its standard
	 * error, or, where the clocks wander (the marks' scatter is not independent), how far
	 * the rates of the anchors' two halves lie apart, whichever is more.
	 */
	fit->drift_ns = kept > 2 && sxx > 0 ? 2.0 * sqrt(sr2 / (double)(kept - 2) / sxx) : 0.0;
	fit->drift_ns = fmax(fit->drift_ns, half_spread(x, y, keep, k));
	fit->drift_ns *= x[k] - mx;
	return 0;
}

/* The median iteration of the log, from its cumulative times x[0..n]. */
static double median_step(const double *x, size_t n)
{
	double *d = malloc(n * sizeof(*d)), m;

	if (!d)
		return INFINITY; /* no memory: no refusal on this ground */
	for (size_t i = 0; i < n; i++)
		d[i] = x[i + 1] - x[i];
	qsort(d, n, sizeof(*d), cmp_double);
	m = d[n / 2];
	free(d);
	return m;
}

int iter_log_place(const struct tc_sample *marked, size_t k, const double *us, size_t n,
		   unsigned int div, struct tc_sample **out, struct iter_log_fit *fit,
		   struct samples_csv_error *err)
{
	double *x, *y, *res, a;
	unsigned char *keep;
	struct tc_sample *s;
	uint64_t t0;
	int bad;

	memset(fit, 0, sizeof(*fit));
	memset(err, 0, sizeof(*err));
	*out = NULL;
	if (k < 2 || k > n)
		return samples_csv_fail(
			err, 0, "%zu marked iterations for a log of %zu: need 2 to %zu", k, n, n);
	t0 = marked[0].t_start;
	x = malloc((n + 1) * sizeof(*x)); /* the listed time before iteration i, own clock */
	y = malloc(k * sizeof(*y));	  /* where it was marked, from the first mark */
	res = malloc(2 * k * sizeof(*res));
	keep = malloc(k);
	s = malloc(n * sizeof(*s));
	if (!x || !y || !res || !keep || !s) {
		free(x), free(y), free(res), free(keep), free(s);
		return -ENOMEM;
	}
	x[0] = 0;
	for (size_t i = 0; i < n; i++)
		x[i + 1] = x[i] + us[i] * 1000.0 * div;
	for (size_t i = 0; i < k; i++)
		y[i] = (double)marked[i].t_start - (double)t0; /* signed: the first may be late */
	bad = robust_fit(x, y, k, keep, res, &a, fit);
	free(y), free(res), free(keep);
	/*
	 * The same run's log: the benchmark's clock is its own estimate, so the rate only
	 * has to be a clock's (RATE_MAX); what tells another run's log is that its
	 * iterations do not line up with the marks, by more than one whole iteration.
	 */
	if (bad || fit->rate < 1.0 / RATE_MAX || fit->rate > RATE_MAX) {
		free(x), free(s);
		return samples_csv_fail(
			err, 0,
			"the marked iterations run at %.6f times the log's first %zu: not this "
			"run's log",
			bad ? 0.0 : fit->rate, k);
	}
	if (fit->resid_ns > median_step(x, n)) {
		free(x), free(s);
		return samples_csv_fail(
			err, 0,
			"the marks lie %.3f usec from the log's first %zu iterations, "
			"more than one iteration: not this run's log",
			fit->resid_ns / 1e3, k);
	}
	for (size_t i = 0; i < n; i++) {
		double at = a + fit->rate * x[i], rtt = fit->rate * (x[i + 1] - x[i]);

		s[i] = (struct tc_sample){
			.t_start = (uint64_t)llround((double)t0 + at),
			.t_end = (uint64_t)llround((double)t0 + at + rtt),
			.cpu = marked[k - 1].cpu,
			.tid = marked[k - 1].tid,
		};
	}
	free(x);
	*out = s;
	return 0;
}
