// SPDX-License-Identifier: BSD-2-Clause
/*
 * noise_stretch.c - pass 1 of the noise report (noise.c): where each thread is
 * known to have run.
 *
 * The anchors of a thread (its off-CPU intervals, page faults, compaction and
 * reclaim) in time order bound the stretches it ran: between two anchors, on
 * the CPU of the later one. The events arrive sorted by start (noise.c checks
 * it), so no comparison sort is needed: a counting pass by thread puts each
 * thread's anchors together, still in time order, and a counting pass by CPU
 * followed by a merge of each thread's (ascending) run orders the stretches by
 * CPU and start. Both are stable, so the result is the stable sort by (thread,
 * start) and then by (CPU, start), and linear in events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "noise_acc.h"

/* CPU numbers up to this are counted in an array; a trace with larger ones sorts by comparison. */
#define CPU_DIRECT_MAX (1u << 16)

struct anchor {
	uint64_t start;
	uint64_t end;
	size_t thread;
	uint32_t cpu;
	uint32_t off; /* an off-CPU interval: it resumes at end; else it runs through [start, end] */
};

static int is_anchor(const struct tc_event *e)
{
	return e->kind == TC_EV_OFFCPU || e->kind == TC_EV_PAGE_FAULT ||
	       e->kind == TC_EV_COMPACTION || e->kind == TC_EV_RECLAIM;
}

/* The anchors, grouped by thread, each thread's in time order. */
static int collect_anchors(struct noise_acc *acc, struct anchor **out, size_t *n_out)
{
	const struct tc_trace *t = acc->t;
	struct anchor *a = NULL, *by_thread;
	size_t n = 0, cap = 0, *first;

	for (size_t i = 0; i < t->n_events; i++) {
		const struct tc_event *e = &t->events[i];
		size_t th = is_anchor(e) ? noise_thread_of(acc, e->tid) : SIZE_MAX;

		if (th == SIZE_MAX)
			continue;
		if (grow(&a, &cap, n + 1, sizeof(*a))) {
			free(a);
			return -ENOMEM;
		}
		a[n++] = (struct anchor){.start = e->start_ns,
					 .end = sat_add(e->start_ns, e->dur_ns),
					 .thread = th,
					 .cpu = e->cpu,
					 .off = e->kind == TC_EV_OFFCPU};
	}
	by_thread = malloc((n ? n : 1) * sizeof(*by_thread));
	first = calloc(acc->n_tids + 1, sizeof(*first));
	if (!by_thread || !first) {
		free(a);
		free(by_thread);
		free(first);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		first[a[i].thread + 1]++;
	for (size_t th = 0; th < acc->n_tids; th++)
		first[th + 1] += first[th];
	for (size_t i = 0; i < n; i++)
		by_thread[first[a[i].thread]++] = a[i];
	free(first);
	free(a);
	*out = by_thread;
	*n_out = n;
	return 0;
}

static int cmp_stretch(const void *x, const void *y)
{
	const struct stretch *a = x, *b = y;

	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* Merges the ascending runs s[lo, mid) and s[mid, hi) through tmp, the left first on ties. */
static void merge(struct stretch *s, size_t lo, size_t mid, size_t hi, struct stretch *tmp)
{
	size_t i = lo, j = mid, k = 0;

	if (s[mid - 1].start <= s[mid].start)
		return;
	while (i < mid && j < hi)
		tmp[k++] = s[j].start < s[i].start ? s[j++] : s[i++];
	while (i < mid)
		tmp[k++] = s[i++];
	memcpy(s + lo, tmp, (j - lo) * sizeof(*s));
}

/*
 * Sorts s[0..n) by start, stably, by merging its ascending runs pairwise (one
 * run per thread that ran on the CPU, usually few).
 */
static void sort_runs(struct stretch *s, size_t n, struct stretch *tmp)
{
	for (;;) {
		size_t lo = 0, runs = 0;

		while (lo < n) {
			size_t mid = lo + 1, hi;

			while (mid < n && s[mid - 1].start <= s[mid].start)
				mid++;
			for (hi = mid; hi < n && (hi == mid || s[hi - 1].start <= s[hi].start); hi++)
				;
			if (mid < n)
				merge(s, lo, mid, hi, tmp);
			lo = hi;
			runs++;
		}
		if (runs <= 1)
			return;
	}
}

/* Orders the stretches by CPU and start, stably; 0 or -ENOMEM. */
static int order_stretches(struct stretch *s, size_t n)
{
	struct stretch *tmp;
	uint32_t max_cpu = 0;
	size_t *first;

	for (size_t i = 0; i < n; i++)
		max_cpu = s[i].cpu > max_cpu ? s[i].cpu : max_cpu;
	if (max_cpu >= CPU_DIRECT_MAX) {
		qsort(s, n, sizeof(*s), cmp_stretch);
		return 0;
	}
	tmp = malloc((n ? n : 1) * sizeof(*tmp));
	first = calloc((size_t)max_cpu + 2, sizeof(*first));
	if (!tmp || !first) {
		free(tmp);
		free(first);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		first[s[i].cpu + 1]++;
	for (uint32_t c = 0; c <= max_cpu; c++)
		first[c + 1] += first[c];
	for (size_t i = 0; i < n; i++)
		tmp[first[s[i].cpu]++] = s[i];
	memcpy(s, tmp, n * sizeof(*s));
	/* first[c] is now where CPU c + 1 starts */
	for (uint32_t c = 0; c <= max_cpu; c++) {
		size_t lo = c ? first[c - 1] : 0;

		sort_runs(s + lo, first[c] - lo, tmp);
	}
	free(first);
	free(tmp);
	return 0;
}

int noise_stretch_build(struct noise_acc *acc, struct stretch **out, size_t *n_out)
{
	struct anchor *a;
	struct stretch *s;
	size_t n_a, n = 0, m = 0;
	int err = collect_anchors(acc, &a, &n_a);

	if (err)
		return err;
	s = malloc((n_a ? n_a : 1) * sizeof(*s));
	if (!s) {
		free(a);
		return -ENOMEM;
	}
	for (size_t i = 1; i < n_a; i++) {
		const struct anchor *p = &a[i - 1], *q = &a[i];
		uint64_t from = p->off ? p->end : p->start;

		if (p->thread == q->thread && q->start > from)
			s[n++] = (struct stretch){from, q->start, q->thread, q->cpu};
	}
	free(a);
	err = order_stretches(s, n);
	if (err) {
		free(s);
		return err;
	}
	for (size_t i = 0; i < n; i++) {
		if (m && s[m - 1].cpu == s[i].cpu && s[i].start < s[m - 1].end)
			s[i].start = s[m - 1].end;
		if (s[i].start < s[i].end)
			s[m++] = s[i];
	}
	*out = s;
	*n_out = m;
	return 0;
}
