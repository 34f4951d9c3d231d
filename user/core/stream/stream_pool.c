// SPDX-License-Identifier: BSD-2-Clause
/* stream_pool.c - a trace's blocks merged in start order (stream_pool.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/grow.h"
#include "stream_pool.h"
#include "core/trace/trace_codec.h"

static uint64_t key_of(const uint8_t *b, size_t size, size_t i)
{
	uint64_t k;

	memcpy(&k, b + i * size, sizeof(k));
	return k;
}

uint64_t stream_pool_start_at(const struct stream_pool *p, size_t i)
{
	return key_of(p->rec, p->size, i);
}

uint64_t stream_pool_limit(const struct stream_pool *p)
{
	return p->next < p->n_pending ? p->pending[p->next]->min_start : UINT64_MAX;
}

/* The first waiting record starting at or after k. */
size_t stream_pool_lower(const struct stream_pool *p, uint64_t k)
{
	size_t lo = p->head, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (stream_pool_start_at(p, mid) < k)
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

int stream_pool_init(struct stream_pool *p, const struct stream_source *src, uint32_t type)
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

void stream_pool_free(struct stream_pool *p)
{
	free(p->pending);
	free(p->rec);
	free(p->spare);
}

/* How many records of b, from i (below n), start at or before k (strictly before k if lt). */
static size_t run_of(const uint8_t *b, size_t size, size_t i, size_t n, uint64_t k, int lt)
{
	size_t j = i;

	for (; j < n; j++) {
		uint64_t x;

		memcpy(&x, b + j * size, sizeof(x));
		if (lt ? x >= k : x > k)
			break;
	}
	return j - i;
}

/* The waiting records and the new block's m, merged into p->spare a run at a time (ties:
 * the waiting ones first), which becomes p->rec. */
static int merge(struct stream_pool *p, const uint8_t *nw, size_t m)
{
	const uint8_t *old = p->rec + p->head * p->size;
	size_t wait = p->n - p->head, i = 0, j = 0, o = 0, k;
	uint8_t *swap;

	if (grow((void **)&p->spare, &p->cap_spare, wait + m, p->size))
		return -ENOMEM;
	while (i < wait || j < m) {
		if (j == m || (i < wait && key_of(old, p->size, i) <= key_of(nw, p->size, j))) {
			k = j < m ? run_of(old, p->size, i, wait, key_of(nw, p->size, j), 0)
				  : wait - i;
			memcpy(p->spare + o * p->size, old + i * p->size, k * p->size);
			i += k;
		} else {
			k = i < wait ? run_of(nw, p->size, j, m, key_of(old, p->size, i), 1)
				     : m - j;
			memcpy(p->spare + o * p->size, nw + j * p->size, k * p->size);
			j += k;
		}
		o += k;
	}
	swap = p->rec;
	p->rec = p->spare;
	p->spare = swap;
	k = p->cap;
	p->cap = p->cap_spare;
	p->cap_spare = k;
	p->head = 0;
	p->n = o;
	return 0;
}

/*
 * Opens the next block: its records, sorted, merged with those waiting. Where none wait,
 * or all the waiting ones start before the block's first record (its start is known
 * from the index), the block is read after them into the scratch's array, which
 * becomes the pool's (and the pool's old one the scratch's): its records are not
 * copied again. 0 or a negative errno.
 */
int stream_pool_open(struct stream_pool *p, const struct stream_source *src,
		     struct tc_trace *scratch)
{
	const struct stream_block *b = p->pending[p->next++];
	int samples = p->type == TC_BLOCK_SAMPLES;
	void **arr = samples ? (void **)&scratch->samples : (void **)&scratch->events;
	size_t *cap = samples ? &scratch->cap_samples : &scratch->cap_events;
	size_t wait = p->n - p->head, m, c;
	int after = !wait || stream_pool_start_at(p, p->n - 1) <= b->min_start;
	const uint8_t *old = wait ? p->rec + p->head * p->size : NULL;
	void *swap;
	int err = 0;

	scratch->n_samples = scratch->n_events = 0;
	if (after && wait)
		err = samples ? trace__add_samples(scratch, (const struct tc_sample *)old, wait)
			      : trace__add_events(scratch, (const struct tc_event *)old, wait);
	err = err ?: src->read(src->arg, b, scratch);
	if (err < 0)
		return err;
	m = samples ? scratch->n_samples : scratch->n_events;
	/* sorted unless the block came out of order or starts before the waiting ones end */
	if (!err || (after && wait && m > wait &&
		     key_of(*arr, p->size, wait - 1) > key_of(*arr, p->size, wait)))
		trace__sort(scratch); /* stable: of equal starts, the waiting ones stay first */
	if (!after)
		return merge(p, *arr, m);
	swap = p->rec;
	p->rec = *arr;
	*arr = swap;
	c = p->cap;
	p->cap = *cap;
	*cap = c;
	p->head = 0;
	p->n = m;
	return 0;
}

/* Appends to t the next (up to) n samples in start order; how many, or a negative errno. */
long stream_pool_take_samples(struct stream_pool *p, const struct stream_source *src,
			      struct tc_trace *scratch, size_t n, struct tc_trace *t)
{
	size_t ready;
	int err;

	for (;;) {
		ready = stream_pool_lower(p, stream_pool_limit(p)) - p->head;
		if (ready >= n || p->next == p->n_pending)
			break;
		err = stream_pool_open(p, src, scratch);
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
int stream_pool_peek_sample(struct stream_pool *p, const struct stream_source *src,
			    struct tc_trace *scratch, uint64_t *start)
{
	int err;

	while (p->head == p->n || stream_pool_limit(p) <= stream_pool_start_at(p, p->head)) {
		if (p->next == p->n_pending)
			break;
		err = stream_pool_open(p, src, scratch);
		if (err)
			return err;
	}
	*start = p->head < p->n ? stream_pool_start_at(p, p->head) : UINT64_MAX;
	return 0;
}
