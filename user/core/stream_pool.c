// SPDX-License-Identifier: BSD-2-Clause
/* stream_pool.c - a trace's blocks merged in start order (stream_pool.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stream_pool.h"
#include "trace_codec.h"

uint64_t key_at(const struct pool *p, size_t i)
{
	uint64_t k;

	memcpy(&k, p->rec + i * p->size, sizeof(k));
	return k;
}

uint64_t pool_limit(const struct pool *p)
{
	return p->next < p->n_pending ? p->pending[p->next]->min_start : UINT64_MAX;
}

/* The first waiting record starting at or after k. */
size_t pool_lower(const struct pool *p, uint64_t k)
{
	size_t lo = p->head, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (key_at(p, mid) < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int cmp_block(const void *x, const void *y)
{
	const struct stream_block *a = *(const struct stream_block *const *)x;
	const struct stream_block *b = *(const struct stream_block *const *)y;

	if (a->min_start != b->min_start)
		return a->min_start < b->min_start ? -1 : 1;
	return a->where < b->where ? -1 : a->where > b->where;
}

int pool_init(struct pool *p, const struct stream_source *src, uint32_t type)
{
	memset(p, 0, sizeof(*p));
	p->type = type;
	p->size = type == TC_BLOCK_SAMPLES ? sizeof(struct tc_sample) : sizeof(struct tc_event);
	p->pending = malloc((src->n_blocks ? src->n_blocks : 1) * sizeof(*p->pending));
	if (!p->pending)
		return -ENOMEM;
	for (size_t i = 0; i < src->n_blocks; i++)
		if (src->blocks[i].type == type && src->blocks[i].n)
			p->pending[p->n_pending++] = &src->blocks[i];
	qsort(p->pending, p->n_pending, sizeof(*p->pending), cmp_block);
	return 0;
}

void pool_free(struct pool *p)
{
	free(p->pending);
	free(p->rec);
}

/* Opens the next block: its records, sorted, merged with those waiting (ties: the
 * waiting ones first). 0 or a negative errno. */
int pool_open(struct pool *p, const struct stream_source *src, struct tc_trace *scratch)
{
	size_t wait = p->n - p->head, m, i = 0, j = 0, o = 0;
	const uint8_t *nw;
	uint8_t *out;
	int err;

	scratch->n_samples = scratch->n_events = 0;
	err = src->read(src->arg, p->pending[p->next++], scratch);
	if (err)
		return err;
	trace__sort(scratch);
	m = p->type == TC_BLOCK_SAMPLES ? scratch->n_samples : scratch->n_events;
	nw = p->type == TC_BLOCK_SAMPLES ? (const uint8_t *)scratch->samples
					 : (const uint8_t *)scratch->events;
	out = malloc((wait + m ? wait + m : 1) * p->size);
	if (!out)
		return -ENOMEM;
	while (i < wait || j < m) {
		uint64_t a = i < wait ? key_at(p, p->head + i) : UINT64_MAX, b = 0;

		if (j < m)
			memcpy(&b, nw + j * p->size, sizeof(b));
		if (i < wait && (j >= m || a <= b))
			memcpy(out + o++ * p->size, p->rec + (p->head + i++) * p->size, p->size);
		else
			memcpy(out + o++ * p->size, nw + j++ * p->size, p->size);
	}
	free(p->rec);
	p->rec = out;
	p->head = 0;
	p->n = p->cap = o;
	return 0;
}

/* Appends to t the next (up to) n samples in start order; how many, or a negative errno. */
long take_samples(struct pool *p, const struct stream_source *src, struct tc_trace *scratch,
		  size_t n, struct tc_trace *t)
{
	size_t ready;
	int err;

	for (;;) {
		ready = pool_lower(p, pool_limit(p)) - p->head;
		if (ready >= n || p->next == p->n_pending)
			break;
		err = pool_open(p, src, scratch);
		if (err)
			return err;
	}
	ready = ready < n ? ready : n;
	if (!ready)
		return 0;
	err = trace__add_samples(t, (const struct tc_sample *)(p->rec + p->head * p->size), ready);
	if (err)
		return err;
	p->head += ready;
	return (long)ready;
}

/* The next sample's start, UINT64_MAX when there is none (opens blocks as needed). */
int peek_sample(struct pool *p, const struct stream_source *src, struct tc_trace *scratch,
		uint64_t *start)
{
	int err;

	while (p->head == p->n || pool_limit(p) <= key_at(p, p->head)) {
		if (p->next == p->n_pending)
			break;
		err = pool_open(p, src, scratch);
		if (err)
			return err;
	}
	*start = p->head < p->n ? key_at(p, p->head) : UINT64_MAX;
	return 0;
}
