/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stream_pool.h - private to core/stream: the records of a trace's blocks, read one
 * block at a time and merged in start order, for the streamed analysis
 * (analyze_stream.c).
 */
#ifndef TAILCAUSE_CORE_STREAM_POOL_H
#define TAILCAUSE_CORE_STREAM_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"
#include "stream_source.h"

/*
 * One kind of record (samples or events; both start with their u64 start time).
 * Blocks are opened in the order of their first start; the records of the open
 * blocks wait in rec[head, n), sorted. Those starting before the next unopened
 * block's first start are in their final order.
 */
struct stream_pool {
	uint32_t type;
	size_t size;
	const struct stream_block **pending; /* by min_start */
	size_t n_pending, next;
	uint8_t *rec;
	size_t head, n, cap; /* cap: records rec holds */
	uint8_t *spare;	     /* what a merge writes into (then swapped with rec) */
	size_t cap_spare;
};

/* The blocks of one type (TC_BLOCK_SAMPLES or TC_BLOCK_EVENTS) of src; 0 or -ENOMEM. */
int stream_pool_init(struct stream_pool *p, const struct stream_source *src, uint32_t type);
void stream_pool_free(struct stream_pool *p);
/* The start of waiting record i. */
uint64_t stream_pool_start_at(const struct stream_pool *p, size_t i);
/* The next unopened block's first start: records before it are in their final order. */
uint64_t stream_pool_limit(const struct stream_pool *p);
/* The first waiting record starting at or after k. */
size_t stream_pool_lower(const struct stream_pool *p, uint64_t k);
/* Opens the next block (read into scratch, a view); 0 or a negative errno. */
int stream_pool_open(struct stream_pool *p, const struct stream_source *src,
		     struct tc_trace *scratch);
/* Appends to t the next (up to) n samples in start order; how many, or a negative errno. */
long stream_pool_take_samples(struct stream_pool *p, const struct stream_source *src,
			      struct tc_trace *scratch, size_t n, struct tc_trace *t);
/* The next sample's start, UINT64_MAX when there is none (opens blocks as needed). */
int stream_pool_peek_sample(struct stream_pool *p, const struct stream_source *src,
			    struct tc_trace *scratch, uint64_t *start);

#endif /* TAILCAUSE_CORE_STREAM_POOL_H */
