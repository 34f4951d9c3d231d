// SPDX-License-Identifier: BSD-2-Clause
/* plot.c - log-axis bins, the IRQ matrix and nesting-safe lanes (columns: plot_series.c). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/grow.h"
#include "plot.h"

/* ---- histogram bins on a log axis ------------------------------------------------------ */

struct hist *plot_rtt_hist(const struct tc_sample *s, size_t n)
{
	struct hist *h = hist__new();

	for (size_t i = 0; h && i < n; i++)
		hist__add(h, tc_sample_rtt(&s[i]), 1);
	return h;
}

size_t plot_hist_bins(const struct hist *h, struct plot_bin *out, size_t max_bins)
{
	size_t used = 0, last_k = SIZE_MAX;
	double lmin, w;

	if (!h->total || !max_bins)
		return 0;
	lmin = log((double)(h->min ? h->min : 1));
	w = (log((double)(h->max ? h->max : 1)) - lmin) / (double)max_bins;
	for (size_t b = hist_next(h, 0); b < HIST_BUCKETS; b = hist_next(h, b + 1)) {
		uint64_t lo = hist_bucket_low(b), hi = hist_bucket_high(b);
		double x = log((double)(lo ? lo : 1));
		size_t k = w > 0 && x > lmin ? (size_t)((x - lmin) / w) : 0;

		if (k >= max_bins)
			k = max_bins - 1;
		lo = lo < h->min ? h->min : lo;
		hi = hi > h->max ? h->max : hi;
		if (k == last_k) {
			out[used - 1].hi = hi;
			out[used - 1].count += h->counts[b];
			continue;
		}
		out[used++] = (struct plot_bin){lo, hi, h->counts[b]};
		last_k = k;
	}
	return used;
}

/* ---- IRQ placement ---------------------------------------------------------------------- */

struct irq_total {
	uint32_t irq;
	uint64_t total;
};

static int cmp_irq_total(const void *x, const void *y)
{
	const struct irq_total *a = x, *b = y;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return a->irq < b->irq ? -1 : a->irq > b->irq;
}

/* Totals per IRQ, most handled first; the caller frees *out. */
static int irq_totals(const struct tc_trace *t, struct irq_total **out, size_t *n_out,
		      uint32_t *n_cpus)
{
	struct irq_total *v = NULL;
	size_t n = 0, cap = 0;

	*n_cpus = 0;
	for (size_t i = 0; i < t->n_counters; i++) {
		const struct tc_counter *c = &t->counters[i];
		size_t j;

		if (c->kind != TC_COUNTER_IRQ || !c->value || c->cpu >= TC_MAX_CPUS)
			continue;
		if (c->cpu + 1 > *n_cpus)
			*n_cpus = c->cpu + 1;
		for (j = 0; j < n && v[j].irq != c->key; j++)
			;
		if (j == n) {
			if (grow(&v, &cap, n + 1, sizeof(*v))) {
				free(v);
				return -ENOMEM;
			}
			v[n++] = (struct irq_total){c->key, 0};
		}
		v[j].total = sat_add(v[j].total, c->value);
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_irq_total);
	*out = v;
	*n_out = n;
	return 0;
}

int plot_irq_matrix(const struct tc_trace *t, size_t max_rows, struct plot_irq_matrix *m)
{
	struct irq_total *v = NULL;
	size_t n;
	int err;

	memset(m, 0, sizeof(*m));
	err = irq_totals(t, &v, &n, &m->n_cpus);
	if (err || !n) {
		free(v);
		return err;
	}
	m->n_irqs_all = n;
	m->n_irqs = n < max_rows ? n : max_rows;
	m->irqs = calloc(m->n_irqs, sizeof(*m->irqs));
	m->totals = calloc(m->n_irqs, sizeof(*m->totals));
	m->counts = calloc(m->n_irqs * m->n_cpus, sizeof(*m->counts));
	if (!m->irqs || !m->totals || !m->counts) {
		free(v);
		plot_irq_matrix__free(m);
		return -ENOMEM;
	}
	for (size_t r = 0; r < m->n_irqs; r++) {
		m->irqs[r] = v[r].irq;
		m->totals[r] = v[r].total;
	}
	free(v);
	for (size_t i = 0; i < t->n_counters; i++) {
		const struct tc_counter *c = &t->counters[i];
		uint64_t *cell;
		size_t r;

		if (c->kind != TC_COUNTER_IRQ || !c->value || c->cpu >= m->n_cpus)
			continue;
		for (r = 0; r < m->n_irqs && m->irqs[r] != c->key; r++)
			;
		if (r == m->n_irqs)
			continue;
		cell = &m->counts[r * m->n_cpus + c->cpu];
		*cell = sat_add(*cell, c->value);
		if (*cell > m->max)
			m->max = *cell;
	}
	return 0;
}

void plot_irq_matrix__free(struct plot_irq_matrix *m)
{
	free(m->irqs);
	free(m->totals);
	free(m->counts);
	memset(m, 0, sizeof(*m));
}

/* ---- spike timelines -------------------------------------------------------------------- */

struct pick {
	int evidence; /* a path counter */
	uint64_t credit;
	uint64_t overlap;
	size_t i;
};

static int cmp_pick(const void *x, const void *y)
{
	const struct pick *a = x, *b = y;

	if (a->evidence != b->evidence)
		return a->evidence ? -1 : 1;
	if (a->credit != b->credit)
		return a->credit > b->credit ? -1 : 1;
	if (a->overlap != b->overlap)
		return a->overlap > b->overlap ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static int cmp_size(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	return a < b ? -1 : a > b;
}

size_t plot_timeline_pick(const struct tc_trace *t, const struct tc_analysis *a,
			  const struct tc_spike *sp, size_t k, size_t *idx)
{
	size_t n = sp->n_contrib;
	struct pick *p;

	if (k >= n || !(p = malloc(n * sizeof(*p)))) {
		k = k < n ? k : n;
		for (size_t i = 0; i < k; i++)
			idx[i] = i;
		return k;
	}
	for (size_t i = 0; i < n; i++) {
		const struct tc_contrib *c = &a->contribs[sp->first_contrib + i];

		p[i] = (struct pick){t->events[c->event].kind == TC_EV_COUNTER, c->attributed_ns,
				     c->overlap_ns, i};
	}
	qsort(p, n, sizeof(*p), cmp_pick);
	for (size_t i = 0; i < k; i++)
		idx[i] = p[i].i;
	free(p);
	qsort(idx, k, sizeof(*idx), cmp_size);
	return k;
}

/* ---- lanes ------------------------------------------------------------------------------- */

struct span {
	uint64_t start;
	uint64_t end;
};

/* The open intervals of one lane, outermost first. */
struct lane {
	struct span *open;
	size_t depth, cap;
};

static int fits(struct lane *l, uint64_t s, uint64_t e, uint64_t slack)
{
	const struct span *top;

	while (l->depth && sat_add(l->open[l->depth - 1].end, slack) <= s)
		l->depth--;
	if (!l->depth)
		return 1;
	top = &l->open[l->depth - 1];
	if (s < top->start || e > top->end)
		return 0;
	return s == top->start || sat_add(e, slack) <= top->end;
}

static int push(struct lane *l, uint64_t s, uint64_t e)
{
	if (grow(&l->open, &l->cap, l->depth + 1, sizeof(*l->open)))
		return -ENOMEM;
	l->open[l->depth++] = (struct span){s, e};
	return 0;
}

uint32_t plot_lanes(const uint64_t *start, const uint64_t *end, size_t n, uint64_t slack,
		    uint32_t *lane)
{
	struct lane *lanes = NULL;
	size_t n_lanes = 0, cap = 0;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		uint64_t e = end[i] > start[i] ? end[i] : start[i];
		size_t k = 0;

		while (k < n_lanes && !fits(&lanes[k], start[i], e, slack))
			k++;
		if (k == n_lanes) {
			err = grow(&lanes, &cap, n_lanes + 1, sizeof(*lanes));
			if (err)
				break;
			memset(&lanes[n_lanes++], 0, sizeof(*lanes));
		}
		err = push(&lanes[k], start[i], e);
		lane[i] = (uint32_t)k;
	}
	for (size_t k = 0; k < n_lanes; k++)
		free(lanes[k].open);
	free(lanes);
	if (err) {
		errno = ENOMEM;
		return 0;
	}
	return (uint32_t)n_lanes;
}
