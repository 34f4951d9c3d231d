// SPDX-License-Identifier: BSD-2-Clause
/*
 * plot_series.c - a latency series reduced to one column per pixel: min, p50, p99
 * and max of the round trips starting in each column, filled as they come in start
 * order (a whole trace's at once, a streamed report's a segment at a time).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/grow.h"
#include "plot.h"
#include "core/stats/stats.h"

static void swap_u64(uint64_t *a, uint64_t *b)
{
	uint64_t t = *a;

	*a = *b;
	*b = t;
}

static uint64_t median3(uint64_t a, uint64_t b, uint64_t c)
{
	if (a > b)
		swap_u64(&a, &b);
	if (b > c)
		b = c;
	return a > b ? a : b;
}

/*
 * The k-th smallest of v[0..n) (0-based), reordering v: quickselect with a
 * three-way partition, so runs of equal latencies cost nothing extra.
 */
static uint64_t select_kth(uint64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 1) {
		uint64_t pivot = median3(v[lo], v[lo + (hi - lo) / 2], v[hi - 1]);
		size_t lt = lo, i = lo, gt = hi;

		while (i < gt) {
			if (v[i] < pivot)
				swap_u64(&v[lt++], &v[i++]);
			else if (v[i] > pivot)
				swap_u64(&v[i], &v[--gt]);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return pivot;
	}
	return v[k];
}

/* The current column reduced: exactly from its values, or from its histogram. */
static void reduce(struct plot_series *ps)
{
	struct plot_column *c = &ps->c[ps->cur];
	uint64_t *v = ps->v;
	size_t n = ps->n_v;

	if (ps->binned_now) {
		c->n = ps->h->total;
		c->min = ps->h->min;
		c->max = ps->h->max;
		c->p50 = hist_percentile(ps->h, 50);
		c->p99 = hist_percentile(ps->h, 99);
		ps->binned++;
		ps->binned_now = 0;
		return;
	}
	c->n = n;
	if (!n)
		return;
	c->min = c->max = v[0];
	for (size_t i = 1; i < n; i++) {
		if (v[i] < c->min)
			c->min = v[i];
		if (v[i] > c->max)
			c->max = v[i];
	}
	c->p99 = select_kth(v, n, stats_rank(n, 99) - 1);
	c->p50 = select_kth(v, n, stats_rank(n, 50) - 1);
}

/* Column k holds the starts in [t0 + k * span / cols, t0 + (k + 1) * span / cols). */
static uint64_t column_start(const struct plot_series *ps, size_t k)
{
	return ps->t0 + (uint64_t)((long double)ps->span * k / ps->cols);
}

int plot_series_init(struct plot_series *ps, uint64_t first_start, uint64_t last_start, size_t cols,
		     size_t exact_max)
{
	memset(ps, 0, sizeof(*ps));
	if (!cols || last_start < first_start || !exact_max)
		return -EINVAL;
	ps->t0 = first_start;
	ps->span = last_start - first_start + 1;
	ps->cols = cols;
	ps->exact_max = exact_max;
	ps->c = calloc(cols, sizeof(*ps->c));
	if (!ps->c)
		return -ENOMEM;
	for (size_t k = 0; k < cols; k++)
		ps->c[k].t_start = column_start(ps, k);
	ps->cur_end = cols > 1 ? column_start(ps, 1) : UINT64_MAX;
	return 0;
}

/* Past exact_max values the column counts into the (reused) histogram. */
static int to_hist(struct plot_series *ps)
{
	if (!ps->h && !(ps->h = hist__new()))
		return -ENOMEM;
	memset(ps->h, 0, sizeof(*ps->h));
	for (size_t i = 0; i < ps->n_v; i++)
		hist__add(ps->h, ps->v[i], 1);
	ps->n_v = 0;
	ps->binned_now = 1;
	return 0;
}

int plot_series_add(struct plot_series *ps, const struct tc_sample *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t rtt = tc_sample_rtt(&s[i]);

		/* a start before the current column's (out of order) stays in it */
		while (s[i].t_start >= ps->cur_end) {
			reduce(ps);
			ps->n_v = 0;
			ps->cur++;
			ps->cur_end =
				ps->cur + 1 < ps->cols ? column_start(ps, ps->cur + 1) : UINT64_MAX;
		}
		ps->n++;
		if (ps->binned_now) {
			hist__add(ps->h, rtt, 1);
			continue;
		}
		if (ps->n_v == ps->exact_max) {
			if (to_hist(ps))
				return -ENOMEM;
			hist__add(ps->h, rtt, 1);
			continue;
		}
		if (grow(&ps->v, &ps->cap_v, ps->n_v + 1, sizeof(*ps->v)))
			return -ENOMEM;
		ps->v[ps->n_v++] = rtt;
	}
	return 0;
}

void plot_series_finish(struct plot_series *ps)
{
	reduce(ps);
	ps->n_v = 0;
	free(ps->v);
	ps->v = NULL;
	ps->cap_v = 0;
	hist__free(ps->h);
	ps->h = NULL;
}

void plot_series__free(struct plot_series *ps)
{
	free(ps->c);
	free(ps->v);
	hist__free(ps->h);
	memset(ps, 0, sizeof(*ps));
}

int plot_series_of(const struct tc_sample *s, size_t n, size_t cols, struct plot_series *ps)
{
	int err;

	memset(ps, 0, sizeof(*ps));
	if (!n || !cols)
		return -EINVAL;
	err = plot_series_init(ps, s[0].t_start, s[n - 1].t_start, cols, SIZE_MAX);
	if (!err && grow(&ps->v, &ps->cap_v, n, sizeof(*ps->v)))
		err = -ENOMEM;
	err = err ?: plot_series_add(ps, s, n);
	if (err) {
		plot_series__free(ps);
		return err;
	}
	plot_series_finish(ps);
	return 0;
}
