// SPDX-License-Identifier: BSD-2-Clause
/* clock_sync.c - two hosts' clocks from the ping-pong's timestamps (clock_sync.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock_sync.h"
#include "core/util/grow.h"

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

/*
 * The lines causality allows. Round trip i bounds the line's residual at its t1 from
 * below by lo_i = t2 - t4 - line and from above by hi_i = t2 - t1 - line. Corrected by
 * k in drift, the residual at time T lies in [L(k, T), H(k, T)], L the largest of
 * lo_i - k (x_i - T) (convex in k) and H the smallest of hi_i - k (x_i - T) (concave):
 * only the upper hull of the (x_i, lo_i) and the lower hull of the (x_i, hi_i) bind.
 */
struct pt2 {
	double x, y;
};

struct hull {
	struct pt2 *v;
	size_t n, cap;
};

struct feasible {
	struct hull lo, hi; /* the upper hull of the lower bounds, the lower hull of the upper */
};

#define DRIFT_RANGE  1e-3 /* corrections searched: +-1000 ppm, beyond any oscillator's */
#define SEARCH_STEPS 200

static double cross(struct pt2 o, struct pt2 a, struct pt2 b)
{
	return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

/* Adds q (x ascending) to an upper (sign 1) or lower (sign -1) hull; 0 or -ENOMEM. */
static int hull_add(struct hull *h, struct pt2 q, double sign)
{
	if (h->n && h->v[h->n - 1].x == q.x) {
		if (sign * (q.y - h->v[h->n - 1].y) <= 0)
			return 0;
		h->n--;
	}
	while (h->n >= 2 && sign * cross(h->v[h->n - 2], h->v[h->n - 1], q) >= 0)
		h->n--;
	if (grow(&h->v, &h->cap, h->n + 1, sizeof(*h->v)))
		return -ENOMEM;
	h->v[h->n++] = q;
	return 0;
}

static double lower_at(const struct feasible *f, double k, double t)
{
	double v = -INFINITY;

	for (size_t i = 0; i < f->lo.n; i++)
		v = fmax(v, f->lo.v[i].y - k * (f->lo.v[i].x - t));
	return v;
}

static double upper_at(const struct feasible *f, double k, double t)
{
	double v = INFINITY;

	for (size_t i = 0; i < f->hi.n; i++)
		v = fmin(v, f->hi.v[i].y - k * (f->hi.v[i].x - t));
	return v;
}

/* The room causality leaves at drift correction k: concave, the same at any time t. */
static double room(const struct feasible *f, double k, double t)
{
	return upper_at(f, k, t) - lower_at(f, k, t);
}

/* The k in [a, b] where the concave fn(f, k, t) * sign is largest (ternary search). */
static double argmax(const struct feasible *f, double a, double b, double t, double sign,
		     double (*fn)(const struct feasible *, double, double))
{
	for (int i = 0; i < SEARCH_STEPS && b > a; i++) {
		double m1 = a + (b - a) / 3, m2 = b - (b - a) / 3;

		if (sign * fn(f, m1, t) < sign * fn(f, m2, t))
			a = m1;
		else
			b = m2;
	}
	return (a + b) / 2;
}

/* The edge of the drifts causality allows, from `in` (allowed) towards `out`. */
static double edge(const struct feasible *f, double in, double out)
{
	if (room(f, out, 0) >= 0)
		return out;
	for (int i = 0; i < SEARCH_STEPS; i++) {
		double m = (in + out) / 2;

		*(room(f, m, 0) >= 0 ? &in : &out) = m;
	}
	return in;
}

/* Where the allowed lines pass at time t: [*lo, *hi], over drifts [ka, kb]. */
static void span_at(const struct feasible *f, double ka, double kb, double t, double *lo,
		    double *hi)
{
	*hi = upper_at(f, argmax(f, ka, kb, t, 1, upper_at), t);
	*lo = lower_at(f, argmax(f, ka, kb, t, -1, lower_at), t);
}

/*
 * Moves the line to the middle of the lines causality allows at the run's first and last
 * round trips; the uncertainty is the larger half width there. Any line that satisfies
 * every round trip, the true one included, is inside that band all along the run: where
 * the allowed lines pass at time t is an interval whose ends are convex and concave in t.
 * 0, or -1 when no line is allowed (the caller says how far off).
 */
static int centre(struct feasible *f, double t0, double t1, struct clock_sync *c)
{
	double best = argmax(f, -DRIFT_RANGE, DRIFT_RANGE, 0, 1, room);
	double ka, kb, lo0, hi0, lo1, hi1, m0, m1, slope;

	if (room(f, best, 0) < 0)
		return -1;
	ka = edge(f, best, -DRIFT_RANGE);
	kb = edge(f, best, DRIFT_RANGE);
	span_at(f, ka, kb, t0, &lo0, &hi0);
	span_at(f, ka, kb, t1, &lo1, &hi1);
	m0 = (lo0 + hi0) / 2;
	m1 = (lo1 + hi1) / 2;
	slope = t1 > t0 ? (m1 - m0) / (t1 - t0) : 0;
	c->offset_ns += m0 - slope * t0;
	c->drift += slope;
	c->uncertainty_ns = fmax(hi0 - lo0, hi1 - lo1) / 2;
	c->consistent = 1;
	return 0;
}

/*
 * Causality over every round trip: the line moves to the middle of the lines it allows
 * (centre()); where it allows none, the uncertainty says by how much the fitted line
 * misses, on top of a typical half round trip. 0 or -ENOMEM.
 */
static int bound(const struct clock_sync_pt *p, size_t n, struct clock_sync *c, const double *rtts,
		 size_t n_win)
{
	struct feasible f = {0};
	double lo = -INFINITY, hi = INFINITY, t0 = NAN, t1 = 0;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		double x, line, l, h;

		if (p[i].t4 < p[i].t1)
			continue;
		x = rel(p[i].t1, c->t_ref);
		line = c->offset_ns + c->drift * x;
		/* t2 - t4 <= offset <= t2 - t1, here as residuals from the line */
		l = rel(p[i].t2, c->t_ref) - rel(p[i].t4, c->t_ref) - line;
		h = rel(p[i].t2, c->t_ref) - x - line;
		lo = fmax(lo, l);
		hi = fmin(hi, h);
		err = hull_add(&f.lo, (struct pt2){x, l}, 1)
			      ?: hull_add(&f.hi, (struct pt2){x, h}, -1);
		t0 = isnan(t0) ? x : t0;
		t1 = x;
	}
	if (!err && centre(&f, t0, t1, c)) {
		c->consistent = 0;
		c->uncertainty_ns = rtts[n_win / 2] / 2 + (lo - hi);
	}
	free(f.lo.v);
	free(f.hi.v);
	return err;
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
	err = bound(p, n, out, scratch, out->n_windows);
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
