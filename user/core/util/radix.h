/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * radix.h - private to user/core: the LSD radix sort of the analyzer. Keys are
 * sorted as key - min, 11 bits a pass over the bits that vary, skipping passes
 * where every key has the same digit: latencies of one run take 2 or 3 passes,
 * the start times of a trace 3 or 4, where qsort() takes log2(n) compare rounds.
 * Stable; linear.
 */
#ifndef TAILCAUSE_CORE_RADIX_H
#define TAILCAUSE_CORE_RADIX_H

#include <stddef.h>
#include <stdint.h>

/* A key and what it belongs to (trace__sort(): a record's start, and its index). */
struct radix_pair {
	uint64_t key;
	uint64_t idx;
};

/* Sorts v[0..n) ascending; 0, or -ENOMEM with v untouched. */
int radix_sort_u64(uint64_t *v, size_t n);
/* Sorts v[0..n) by key, stably; 0, or -ENOMEM with v untouched. */
int radix_sort_pairs(struct radix_pair *v, size_t n);

#endif /* TAILCAUSE_CORE_RADIX_H */
