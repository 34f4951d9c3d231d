/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * heap.h - private to user/core: a binary heap of fixed-size elements whose root ranks
 * lowest, to keep the N highest of many (the top spikes of an analysis, the spikes a
 * streamed report keeps) and to sort them highest first.
 */
#ifndef TAILCAUSE_CORE_HEAP_H
#define TAILCAUSE_CORE_HEAP_H

#include <stddef.h>

#define HEAP_MAX_SIZE 16 /* largest element, in bytes */

/* Whether element x ranks below element y (ctx: the caller's). */
typedef int (*heap_below_fn)(const void *ctx, const void *x, const void *y);

struct heap {
	void *base;
	size_t size; /* of an element, at most HEAP_MAX_SIZE */
	heap_below_fn below;
	const void *ctx;
};

/* Moves element i of base[0..n) down to where it belongs. */
void heap_sift_down(const struct heap *h, size_t n, size_t i);
/* Moves element i up to where it belongs. */
void heap_sift_up(const struct heap *h, size_t i);
/* Makes base[0..n) a heap. */
void heap_build(const struct heap *h, size_t n);
/* Sorts the heap base[0..n) highest first. */
void heap_drain(const struct heap *h, size_t n);

#endif /* TAILCAUSE_CORE_HEAP_H */
