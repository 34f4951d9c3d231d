// SPDX-License-Identifier: BSD-2-Clause
/*
 * noise_stretch.c - pass 1 of the noise report (noise.c): where each thread is
 * known to have run.
 *
 * The anchors of a thread (its off-CPU intervals, page faults, compaction and
 * reclaim) in time order bound the stretches it ran: between two anchors, on
 * the CPU of the later one. The events arrive sorted by start (noise.c checks
 * it), so one walk that keeps each thread's previous anchor yields every
 * stretch, in the order of their ends, without gathering the anchors first.
 *
 * The stretches are then ordered by (CPU, start, thread). No two share all
 * three (a thread's stretches start strictly later one after the other), so
 * any sort gives the same order. A counting pass by CPU keeps the order of
 * ends, and on one CPU a stretch that ends later nearly always starts later
 * (a CPU runs one thread at a time), so an insertion sort finishes each CPU
 * in about one pass; one that moves too far falls back to qsort.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/grow.h"
#include "noise_acc.h"

/* CPU numbers up to this are counted in an array; a trace with larger ones sorts by comparison. */
#define CPU_DIRECT_MAX (1u << 16)

/* Insertion-sort moves per stretch allowed before a CPU is handed to qsort. */
#define MOVES_PER_STRETCH 8

/* The previous anchor of a thread: where its next stretch starts. */
struct last_anchor {
	uint64_t from;
	int seen;
};

static int is_anchor(const struct tc_event *e)
{
	return e->kind == TC_EV_OFFCPU || e->kind == TC_EV_PAGE_FAULT ||
	       e->kind == TC_EV_COMPACTION || e->kind == TC_EV_RECLAIM;
}

static int cmp_stretch(const void *x, const void *y)
{
	const struct stretch *a = x, *b = y;

	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->thread < b->thread ? -1 : a->thread > b->thread;
}

static int before(const struct stretch *a, const struct stretch *b)
{
	return a->start < b->start || (a->start == b->start && a->thread < b->thread);
}

/* Sorts s[0..n) (one CPU) by start and thread; nearly sorted input is the common case. */
static void sort_cpu(struct stretch *s, size_t n)
{
	size_t moves = 0, budget = n * MOVES_PER_STRETCH + 64;

	for (size_t i = 1; i < n; i++) {
		struct stretch x = s[i];
		size_t j = i;

		while (j && before(&x, &s[j - 1])) {
			s[j] = s[j - 1];
			j--;
		}
		s[j] = x;
		moves += i - j;
		if (moves > budget) {
			qsort(s, n, sizeof(*s), cmp_stretch);
			return;
		}
	}
}

/* Every stretch, in the order of their ends, into s (room for one per anchor); returns how many. */
static size_t walk(const struct noise_acc *acc, struct last_anchor *last, struct stretch *s)
{
	const struct tc_trace *t = acc->t;
	uint32_t last_tid = 0;
	size_t th = SIZE_MAX, n = 0;

	for (size_t i = 0; i < t->n_events; i++) {
		const struct tc_event *e = &t->events[i];
		struct last_anchor *l;

		if (!is_anchor(e))
			continue;
		/* a thread's events come in bursts: look the tid up when it changes */
		if (e->tid != last_tid) {
			last_tid = e->tid;
			th = noise_thread_of(acc, e->tid);
		}
		if (th == SIZE_MAX)
			continue;
		l = &last[th];
		if (l->seen && e->start_ns > l->from)
			s[n++] = (struct stretch){l->from, e->start_ns, (uint32_t)th, e->cpu};
		l->from = e->kind == TC_EV_OFFCPU ? sat_add(e->start_ns, e->dur_ns) : e->start_ns;
		l->seen = 1;
	}
	return n;
}

/* Orders s[0..n) by (CPU, start, thread) into a new array; NULL on -ENOMEM. */
static struct stretch *order_stretches(const struct stretch *s, size_t n)
{
	struct stretch *out = malloc((n ? n : 1) * sizeof(*out));
	uint32_t max_cpu = 0;
	size_t *first;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++)
		max_cpu = s[i].cpu > max_cpu ? s[i].cpu : max_cpu;
	if (max_cpu >= CPU_DIRECT_MAX) {
		memcpy(out, s, n * sizeof(*s));
		qsort(out, n, sizeof(*out), cmp_stretch);
		return out;
	}
	first = calloc((size_t)max_cpu + 2, sizeof(*first));
	if (!first) {
		free(out);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		first[s[i].cpu + 1]++;
	for (uint32_t c = 0; c <= max_cpu; c++)
		first[c + 1] += first[c];
	for (size_t i = 0; i < n; i++)
		out[first[s[i].cpu]++] = s[i];
	/* first[c] is now where CPU c + 1 starts */
	for (uint32_t c = 0; c <= max_cpu; c++) {
		size_t lo = c ? first[c - 1] : 0;

		sort_cpu(out + lo, first[c] - lo);
	}
	free(first);
	return out;
}

int noise_stretch_build(struct noise_acc *acc, struct stretch **out, size_t *n_out)
{
	const struct tc_trace *t = acc->t;
	struct last_anchor *last = calloc(acc->n_tids ? acc->n_tids : 1, sizeof(*last));
	struct stretch *raw, *s;
	size_t n_anchors = 0, n, m = 0;

	if (!last)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_events; i++)
		n_anchors += is_anchor(&t->events[i]);
	raw = malloc((n_anchors ? n_anchors : 1) * sizeof(*raw));
	if (!raw) {
		free(last);
		return -ENOMEM;
	}
	n = walk(acc, last, raw);
	free(last);
	s = order_stretches(raw, n);
	free(raw);
	if (!s)
		return -ENOMEM;
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
