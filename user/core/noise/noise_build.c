// SPDX-License-Identifier: BSD-2-Clause
/* noise_build.c - accumulators -> struct tc_noise: rows by thread and time, totals, rankings. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/grow.h"
#include "noise_acc.h"

const char *noise_group_name(enum tc_noise_group g)
{
	static const char *const names[] = {
		[TC_NOISE_OFFCPU] = "offcpu",	[TC_NOISE_IRQ] = "irq",
		[TC_NOISE_MM] = "mm",		[TC_NOISE_SIGNAL] = "signal",
		[TC_NOISE_BLOCKED] = "blocked", [TC_NOISE_FAULT] = "fault",
	};

	return (unsigned int)g < TC_NOISE_GROUPS ? names[g] : "?";
}

static size_t find_tid(const uint32_t *tids, size_t n, uint32_t tid)
{
	size_t lo = 0, hi = n;

	while (tid && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tids[mid] == tid)
			return mid;
		if (tids[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

/* Names each thread after the latest event that shows its comm (other_pid == tid). */
static void name_threads(const struct noise_acc *acc, struct tc_noise *n)
{
	const struct tc_trace *t = acc->t;

	for (size_t i = 0; i < n->n_threads; i++) {
		n->threads[i].tid = acc->tids[i];
		n->threads[i].role = trace__thread_role(t, acc->tids[i]) == TC_THREAD_TARGET
					     ? TC_THREAD_TARGET
					     : 0;
		strcpy(n->threads[i].comm, "?");
	}
	for (size_t i = 0; i < t->n_events; i++) {
		const struct tc_event *e = &t->events[i];
		size_t th = find_tid(acc->tids, acc->n_tids, e->other_pid);

		if (th != SIZE_MAX && e->other_comm[0])
			causes_comm(e, n->threads[th].comm, sizeof(n->threads[th].comm));
	}
}

static int cmp_row(const void *x, const void *y, void *ctx)
{
	const struct noise_racc *rows = ctx;
	const struct noise_racc *a = &rows[*(const size_t *)x], *b = &rows[*(const size_t *)y];

	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return a->bin < b->bin ? -1 : a->bin > b->bin;
}

static int cmp_part(const void *x, const void *y)
{
	const struct noise_pacc *a = x, *b = y;

	if (a->row != b->row)
		return a->row < b->row ? -1 : 1;
	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return a->cause < b->cause ? -1 : a->cause > b->cause;
}

/* Rows in (thread, time) order; parts re-pointed at them and sorted by row, time. */
static int order(struct noise_acc *acc, struct tc_noise *n, size_t *perm)
{
	size_t *pos = malloc((acc->n_rows ? acc->n_rows : 1) * sizeof(*pos));

	if (!pos)
		return -ENOMEM;
	for (size_t i = 0; i < acc->n_rows; i++)
		perm[i] = i;
	qsort_r(perm, acc->n_rows, sizeof(*perm), cmp_row, acc->rows);
	for (size_t i = 0; i < acc->n_rows; i++)
		pos[perm[i]] = i;
	for (size_t i = 0; i < acc->n_parts; i++)
		acc->parts[i].row = pos[acc->parts[i].row];
	free(pos);
	qsort(acc->parts, acc->n_parts, sizeof(*acc->parts), cmp_part);
	for (size_t i = 0; i < acc->n_parts; i++) {
		const struct noise_pacc *p = &acc->parts[i];

		n->parts[i] =
			(struct tc_noise_part){.cause = p->cause, .ns = p->ns, .count = p->count};
	}
	n->n_parts = acc->n_parts;
	return 0;
}

static void fill_row(const struct noise_acc *acc, struct tc_noise *n, size_t i,
		     const struct noise_racc *r)
{
	struct tc_noise_row *row = &n->rows[i];
	uint64_t end;

	row->start_ns = acc->t0 + r->bin * acc->iv;
	end = row->start_ns + acc->iv;
	row->end_ns = end < acc->t1 ? end : acc->t1 > row->start_ns ? acc->t1 : end;
	row->thread = r->thread;
	row->run_ns = r->run_ns;
	row->faults = r->faults;
	row->migrations = r->migrations;
	memcpy(row->cpus, r->cpus, sizeof(row->cpus));
	row->n_cpus = r->n_cpus;
}

/* Sums each row's parts into its groups, and rows into threads, causes and the totals. */
static void sum_up(struct tc_noise *n, const struct noise_acc *acc)
{
	size_t p = 0;

	for (size_t i = 0; i < n->n_rows; i++) {
		struct tc_noise_row *row = &n->rows[i];
		struct tc_noise_thread *th = &n->threads[row->thread];

		row->first_part = p;
		for (; p < acc->n_parts && acc->parts[p].row == i; p++) {
			const struct tc_noise_part *part = &n->parts[p];
			struct tc_noise_cause *c = &n->causes[part->cause];

			row->group_ns[c->group] = sat_add(row->group_ns[c->group], part->ns);
			c->ns = sat_add(c->ns, part->ns);
			c->count += part->count;
		}
		row->n_parts = p - row->first_part;
		for (int g = 0; g < TC_NOISE_NOISY; g++)
			row->noise_ns = sat_add(row->noise_ns, row->group_ns[g]);
		if (!th->n_rows)
			th->first_row = i;
		th->n_rows++;
		th->run_ns += row->run_ns;
		th->noise_ns = sat_add(th->noise_ns, row->noise_ns);
		th->faults += row->faults;
		th->migrations += row->migrations;
		for (int g = 0; g < TC_NOISE_GROUPS; g++)
			th->group_ns[g] = sat_add(th->group_ns[g], row->group_ns[g]);
	}
	for (size_t i = 0; i < n->n_threads; i++) {
		const struct tc_noise_thread *th = &n->threads[i];

		n->run_ns += th->run_ns;
		n->noise_ns = sat_add(n->noise_ns, th->noise_ns);
		n->faults += th->faults;
		n->migrations += th->migrations;
		for (int g = 0; g < TC_NOISE_GROUPS; g++)
			n->group_ns[g] = sat_add(n->group_ns[g], th->group_ns[g]);
	}
}

/*
 * Drops the causes that took no time and never happened (an IRQ seen on a CPU
 * only while no thread of the command ran there) and the empty parts.
 */
static void drop_empty(struct tc_noise *n)
{
	uint32_t *map = malloc((n->n_causes ? n->n_causes : 1) * sizeof(*map));
	size_t m = 0, p = 0;

	if (!map)
		return; /* keeps them: harmless */
	for (size_t i = 0; i < n->n_causes; i++) {
		map[i] = UINT32_MAX;
		if (!n->causes[i].ns && !n->causes[i].count)
			continue;
		map[i] = (uint32_t)m;
		n->causes[m++] = n->causes[i];
	}
	for (size_t i = 0; i < n->n_rows; i++) {
		struct tc_noise_row *r = &n->rows[i];
		size_t first = p;

		for (size_t k = 0; k < r->n_parts; k++) {
			struct tc_noise_part part = n->parts[r->first_part + k];

			if (map[part.cause] == UINT32_MAX || (!part.ns && !part.count))
				continue;
			part.cause = map[part.cause];
			n->parts[p++] = part;
		}
		r->first_part = first;
		r->n_parts = p - first;
	}
	n->n_causes = m;
	n->n_parts = p;
	free(map);
}

static struct tc_noise *alloc_noise(const struct noise_acc *acc)
{
	struct tc_noise *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->threads = calloc(acc->n_tids ? acc->n_tids : 1, sizeof(*n->threads));
	n->rows = calloc(acc->n_rows ? acc->n_rows : 1, sizeof(*n->rows));
	n->parts = calloc(acc->n_parts ? acc->n_parts : 1, sizeof(*n->parts));
	n->causes = calloc(acc->n_causes ? acc->n_causes : 1, sizeof(*n->causes));
	if (!n->threads || !n->rows || !n->parts || !n->causes) {
		noise__free(n);
		return NULL;
	}
	return n;
}

int noise_acc_build(struct noise_acc *acc, struct tc_noise **out)
{
	struct tc_noise *n = alloc_noise(acc);
	size_t *perm;

	if (!n)
		return -ENOMEM;
	perm = malloc((acc->n_rows ? acc->n_rows : 1) * sizeof(*perm));
	if (!perm || order(acc, n, perm)) {
		free(perm);
		noise__free(n);
		return -ENOMEM;
	}
	n->interval_ns = acc->iv;
	n->t0 = acc->t0;
	n->t1 = acc->t1;
	n->n_intervals = (size_t)acc->n_bins;
	n->n_threads = acc->n_tids;
	name_threads(acc, n);
	for (size_t i = 0; i < acc->n_causes; i++) {
		n->causes[i] = acc->causes[i];
		n->causes[i].ns = n->causes[i].count = 0;
	}
	n->n_causes = acc->n_causes;
	n->n_rows = acc->n_rows;
	for (size_t i = 0; i < acc->n_rows; i++)
		fill_row(acc, n, i, &acc->rows[perm[i]]);
	free(perm);
	sum_up(n, acc);
	drop_empty(n);
	*out = n;
	return 0;
}

void noise__free(struct tc_noise *n)
{
	if (!n)
		return;
	free(n->threads);
	free(n->rows);
	free(n->parts);
	free(n->causes);
	free(n);
}

/* ---- rankings ------------------------------------------------------------------------- */

struct rank {
	uint64_t key;
	uint64_t tie;
	size_t idx;
};

static int cmp_rank(const void *x, const void *y)
{
	const struct rank *a = x, *b = y;

	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	if (a->tie != b->tie)
		return a->tie < b->tie ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

size_t noise_worst_rows(const struct tc_noise *n, size_t *idx, size_t k)
{
	struct rank *r;

	if (!n || !n->n_rows || !k)
		return 0;
	r = malloc(n->n_rows * sizeof(*r));
	if (!r)
		return 0;
	for (size_t i = 0; i < n->n_rows; i++)
		r[i] = (struct rank){n->rows[i].noise_ns, n->rows[i].start_ns, i};
	qsort(r, n->n_rows, sizeof(*r), cmp_rank);
	if (k > n->n_rows)
		k = n->n_rows;
	for (size_t i = 0; i < k; i++)
		idx[i] = r[i].idx;
	free(r);
	return k;
}

size_t noise_causes_by_time(const struct tc_noise *n, size_t *idx)
{
	struct rank *r;

	if (!n || !n->n_causes)
		return 0;
	r = malloc(n->n_causes * sizeof(*r));
	if (!r) {
		for (size_t i = 0; i < n->n_causes; i++)
			idx[i] = i;
		return n->n_causes;
	}
	for (size_t i = 0; i < n->n_causes; i++)
		r[i] = (struct rank){n->causes[i].ns, UINT64_MAX - n->causes[i].count, i};
	qsort(r, n->n_causes, sizeof(*r), cmp_rank);
	for (size_t i = 0; i < n->n_causes; i++)
		idx[i] = r[i].idx;
	free(r);
	return n->n_causes;
}
