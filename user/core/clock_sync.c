// SPDX-License-Identifier: BSD-2-Clause
/* clock_sync.c - two hosts' clocks from the ping-pong's timestamps (clock_sync.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock_sync.h"

#define WINDOWS	   128 /* aimed at: enough to fit a drift, each with many round trips */
#define MIN_WINDOW 8
#define OUTLIER_K  4.0 /* a window this many median residuals off is left out of the refit */

struct win_est {
	double t;     /* midpoint, relative to t_ref */
	double theta; /* server - client, the least delayed round trip's */
	double rtt;
	int used;
};

static double rel(uint64_t t, uint64_t ref)
{
	return (double)(int64_t)(t - ref);
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* Least squares over the used windows; 0, or -1 with fewer than two. */
static int fit(const struct win_est *w, size_t n, double *off, double *drift)
{
	double st = 0, sy = 0, stt = 0, sty = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (!w[i].used)
			continue;
		st += w[i].t;
		sy += w[i].theta;
		k++;
	}
	if (k < 1)
		return -1;
	st /= (double)k;
	sy /= (double)k;
	for (size_t i = 0; i < n; i++) {
		if (!w[i].used)
			continue;
		stt += (w[i].t - st) * (w[i].t - st);
		sty += (w[i].t - st) * (w[i].theta - sy);
	}
	*drift = k > 1 && stt > 0 ? sty / stt : 0;
	*off = sy - *drift * st;
	return 0;
}

/* Leaves out the windows far off the line; 1 when any went. */
static int drop_outliers(struct win_est *w, size_t n, double off, double drift, double *scratch)
{
	size_t k = 0;
	double med;
	int dropped = 0;

	for (size_t i = 0; i < n; i++)
		if (w[i].used)
			scratch[k++] = fabs(w[i].theta - (off + drift * w[i].t));
	if (k < 4)
		return 0;
	qsort(scratch, k, sizeof(*scratch), cmp_double);
	med = scratch[k / 2];
	for (size_t i = 0; i < n; i++) {
		double r = fabs(w[i].theta - (off + drift * w[i].t));

		if (w[i].used && r > OUTLIER_K * med && r > w[i].rtt / 2) {
			w[i].used = 0;
			dropped = 1;
		}
	}
	return dropped;
}

/* The least delayed round trip of each window. */
static size_t windows(const struct clock_sync_pt *p, size_t n, uint64_t ref, struct win_est *w,
		      size_t *n_points, double *min_rtt)
{
	size_t size = n / WINDOWS > MIN_WINDOW ? n / WINDOWS : MIN_WINDOW;
	size_t nw = 0;

	*n_points = 0;
	*min_rtt = INFINITY;
	for (size_t i = 0; i < n; i += size) {
		size_t best = SIZE_MAX;

		for (size_t j = i; j < n && j < i + size; j++) {
			if (p[j].t4 < p[j].t1)
				continue;
			++*n_points;
			if (best == SIZE_MAX || p[j].t4 - p[j].t1 < p[best].t4 - p[best].t1)
				best = j;
		}
		if (best == SIZE_MAX)
			continue;
		w[nw].rtt = (double)(p[best].t4 - p[best].t1);
		w[nw].t = rel(p[best].t1, ref) + w[nw].rtt / 2;
		w[nw].theta = rel(p[best].t2, ref) - w[nw].t;
		w[nw].used = 1;
		if (w[nw].rtt < *min_rtt)
			*min_rtt = w[nw].rtt;
		nw++;
	}
	return nw;
}

/* Causality over every round trip: moves the line into its bound, returns the half width. */
static void bound(const struct clock_sync_pt *p, size_t n, struct clock_sync *c, const double *rtts,
		  size_t n_win)
{
	double lo = -INFINITY, hi = INFINITY;

	for (size_t i = 0; i < n; i++) {
		double line;

		if (p[i].t4 < p[i].t1)
			continue;
		line = c->offset_ns + c->drift * rel(p[i].t1, c->t_ref);
		/* t2 - t4 <= offset <= t2 - t1, here as residuals from the line */
		lo = fmax(lo, rel(p[i].t2, c->t_ref) - rel(p[i].t4, c->t_ref) - line);
		hi = fmin(hi, rel(p[i].t2, c->t_ref) - rel(p[i].t1, c->t_ref) - line);
	}
	if (lo <= hi) {
		c->offset_ns += (lo + hi) / 2;
		c->uncertainty_ns = (hi - lo) / 2;
		c->consistent = 1;
		return;
	}
	/* no line fits them all: say how far off, on top of a typical half round trip */
	c->consistent = 0;
	c->uncertainty_ns = rtts[n_win / 2] / 2 + (lo - hi);
}

int clock_sync_estimate(const struct clock_sync_pt *p, size_t n, struct clock_sync *out)
{
	struct win_est *w;
	double *scratch;
	size_t nw;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!p || n < 2)
		return -EINVAL;
	/* at most one window per MIN_WINDOW round trips */
	w = calloc(n / MIN_WINDOW + 1, sizeof(*w));
	scratch = calloc(n / MIN_WINDOW + 1, sizeof(*scratch));
	if (!w || !scratch) {
		err = -ENOMEM;
		goto out;
	}
	out->t_ref = p[0].t1;
	nw = windows(p, n, out->t_ref, w, &out->n_points, &out->min_rtt_ns);
	if (out->n_points < 2 || fit(w, nw, &out->offset_ns, &out->drift)) {
		err = -EINVAL;
		goto out;
	}
	if (drop_outliers(w, nw, out->offset_ns, out->drift, scratch))
		fit(w, nw, &out->offset_ns, &out->drift);
	out->n_windows = 0;
	for (size_t i = 0; i < nw; i++)
		if (w[i].used)
			scratch[out->n_windows++] = w[i].rtt;
	qsort(scratch, out->n_windows, sizeof(*scratch), cmp_double);
	bound(p, n, out, scratch, out->n_windows);
out:
	free(w);
	free(scratch);
	return err;
}

double clock_sync_offset_at(const struct clock_sync *c, uint64_t t)
{
	return c->offset_ns + c->drift * rel(t, c->t_ref);
}

uint64_t clock_sync_server_to_client(const struct clock_sync *c, uint64_t server_ns)
{
	/* server = client + off + drift (client - ref)  =>  client - ref = (server - ref - off) /
	 * (1 + drift) */
	double x = (rel(server_ns, c->t_ref) - c->offset_ns) / (1.0 + c->drift);

	return c->t_ref + (uint64_t)(int64_t)llround(x);
}

uint64_t clock_sync_client_to_server(const struct clock_sync *c, uint64_t client_ns)
{
	return client_ns + (uint64_t)(int64_t)llround(clock_sync_offset_at(c, client_ns));
}
