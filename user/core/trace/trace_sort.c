// SPDX-License-Identifier: BSD-2-Clause
/* trace_sort.c - trace__sort(): events and samples in start order, stably. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/radix.h"
#include "trace.h"

/*
 * Sorting. Recorder output is nearly sorted: the ring buffer delivers intervals
 * in end order, so a record sits a few places after where its start belongs,
 * and now and then a long off-CPU interval sits far after. So first an
 * insertion sort with a budget of record moves: it sorts such input in one
 * cache-friendly pass without allocating (50 million records in about a
 * second). Past the budget, an LSD radix sort of (key, index) pairs, linear and
 * stable, then an in-place permutation of the records, with 32 bytes per record
 * of scratch. For small arrays, or when that scratch cannot be had, an in-place
 * stable merge sort (insertion-sorted blocks merged by SymMerge rotations,
 * O(n log^2 n)), so trace__sort() cannot fail. Each stage is stable and keeps
 * the order of equal keys that the one before left: the result is the stable
 * sort of the input.
 */
#define SORT_MAX_SIZE 64	 /* largest record the generic code moves */
#define SORT_BUDGET   8		 /* insertion moves allowed per record */
#define SORT_SLACK    (1u << 20) /* at most this many moves beyond the budget */
#define SORT_SMALL    1024	 /* below this, radix sort's setup costs more than it saves */

struct sort_ctx {
	char *base;
	size_t size;
	size_t key_off; /* offset of the uint64_t sort key in a record */
};

static inline void *elem(const struct sort_ctx *c, size_t i)
{
	return c->base + i * c->size;
}

static inline uint64_t key(const struct sort_ctx *c, size_t i)
{
	uint64_t k;

	memcpy(&k, c->base + i * c->size + c->key_off, sizeof(k));
	return k;
}

static inline int less(const struct sort_ctx *c, size_t i, size_t j)
{
	return key(c, i) < key(c, j);
}

static void swap(const struct sort_ctx *c, size_t i, size_t j)
{
	char tmp[SORT_MAX_SIZE];

	memcpy(tmp, elem(c, i), c->size);
	memcpy(elem(c, i), elem(c, j), c->size);
	memcpy(elem(c, j), tmp, c->size);
}

/*
 * Insertion sort of the whole array that gives up as soon as it has moved more
 * than SORT_BUDGET records per record seen, plus some slack for the odd long
 * interval early on; returns 0 when sorted, -1 when it gave up (the array is
 * then a stably sorted prefix followed by the untouched rest).
 */
static int insertion_sort_bounded(const struct sort_ctx *c, size_t n)
{
	size_t i, lo, hi, mid, moves = 0, slack = n < SORT_SLACK ? n : SORT_SLACK;
	char tmp[SORT_MAX_SIZE];
	uint64_t k;

	for (i = 1; i < n; i++) {
		k = key(c, i);
		if (key(c, i - 1) <= k)
			continue;
		/* the first of [0, i) with a key above k: after its equals, so stable */
		lo = i > 16 ? i - 16 : 0;
		if (lo && key(c, lo) > k)
			lo = 0; /* far from home: search all of the sorted prefix */
		for (hi = i - 1; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			if (key(c, mid) > k)
				hi = mid;
			else
				lo = mid + 1;
		}
		moves += i - lo;
		if (moves / SORT_BUDGET > i + slack / SORT_BUDGET)
			return -1;
		memcpy(tmp, elem(c, i), c->size);
		memmove(elem(c, lo + 1), elem(c, lo), (i - lo) * c->size);
		memcpy(elem(c, lo), tmp, c->size);
	}
	return 0;
}

static void insertion_sort(const struct sort_ctx *c, size_t a, size_t b)
{
	size_t i, j;

	for (i = a + 1; i < b; i++)
		for (j = i; j > a && less(c, j, j - 1); j--)
			swap(c, j, j - 1);
}

static void swap_range(const struct sort_ctx *c, size_t a, size_t b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		swap(c, a + i, b + i);
}

/* Rotates [a, b) so that [m, b) comes before [a, m). */
static void rotate(const struct sort_ctx *c, size_t a, size_t m, size_t b)
{
	size_t i = m - a, j = b - m;

	while (i != j) {
		if (i > j) {
			swap_range(c, m - i, m, j);
			i -= j;
		} else {
			swap_range(c, m - i, m + j - i, i);
			j -= i;
		}
	}
	swap_range(c, m - i, m, i);
}

/* Merges the sorted runs [a, m) and [m, b) in place, stably (Kim & Kutzner's SymMerge). */
static void sym_merge(const struct sort_ctx *c, size_t a, size_t m, size_t b)
{
	size_t i, j, h, k, mid, n, start, r, end;

	if (m - a == 1) {
		/* one element on the left: binary-search its place, bubble it there */
		for (i = m, j = b; i < j;) {
			h = i + (j - i) / 2;
			if (less(c, h, a))
				i = h + 1;
			else
				j = h;
		}
		for (k = a; k + 1 < i; k++)
			swap(c, k, k + 1);
		return;
	}
	if (b - m == 1) {
		for (i = a, j = m; i < j;) {
			h = i + (j - i) / 2;
			if (!less(c, m, h))
				i = h + 1;
			else
				j = h;
		}
		for (k = m; k > i; k--)
			swap(c, k, k - 1);
		return;
	}
	mid = a + (b - a) / 2;
	n = mid + m;
	if (m > mid) {
		start = n - b;
		r = mid;
	} else {
		start = a;
		r = m;
	}
	while (start < r) {
		h = start + (r - start) / 2;
		if (!less(c, n - 1 - h, h))
			start = h + 1;
		else
			r = h;
	}
	end = n - start;
	if (start < m && m < end)
		rotate(c, start, m, end);
	if (a < start && start < mid)
		sym_merge(c, a, start, mid);
	if (mid < end && end < b)
		sym_merge(c, mid, end, b);
}

static void stable_inplace(const struct sort_ctx *c, size_t n)
{
	size_t block = 20, a;

	for (a = 0; a < n; a += block)
		insertion_sort(c, a, a + block < n ? a + block : n);
	for (; block < n; block *= 2) {
		for (a = 0; n - a > 2 * block; a += 2 * block)
			sym_merge(c, a, a + block, a + 2 * block);
		if (n - a > block)
			sym_merge(c, a, a + block, n);
	}
}

/* Moves records so that record i becomes the old record perm[i]; perm is consumed. */
static void permute(const struct sort_ctx *c, struct radix_pair *perm, size_t n)
{
	char tmp[SORT_MAX_SIZE];
	size_t i, j, k;

	for (i = 0; i < n; i++) {
		if (perm[i].idx == i)
			continue;
		memcpy(tmp, elem(c, i), c->size);
		for (j = i;; j = k) {
			k = perm[j].idx;
			perm[j].idx = j;
			if (k == i) {
				memcpy(elem(c, j), tmp, c->size);
				break;
			}
			memcpy(elem(c, j), elem(c, k), c->size);
		}
	}
}

/* The (key, index) pairs sorted by radix.c, then the records moved to their places. */
static int radix_sort(const struct sort_ctx *c, size_t n)
{
	struct radix_pair *a;

	if (n > SIZE_MAX / sizeof(*a))
		return -ENOMEM;
	a = malloc(n * sizeof(*a));
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		a[i] = (struct radix_pair){key(c, i), i};
	if (radix_sort_pairs(a, n)) {
		free(a);
		return -ENOMEM;
	}
	permute(c, a, n);
	free(a);
	return 0;
}

static void sort_records(void *base, size_t n, size_t size, size_t key_off)
{
	struct sort_ctx c = {.base = base, .size = size, .key_off = key_off};

	if (n < 2 || !insertion_sort_bounded(&c, n))
		return;
	if (n < SORT_SMALL || radix_sort(&c, n))
		stable_inplace(&c, n);
}

/*
 * Sorts unless the records are in order already, as a decoded synthetic trace
 * is: inlined with constant sizes, the test costs a third of the instructions
 * of the same test in the generic insertion sort.
 */
static inline void sort_unordered(void *base, size_t n, size_t size, size_t key_off)
{
	const struct sort_ctx c = {.base = base, .size = size, .key_off = key_off};
	size_t i = 1;

	while (i < n && key(&c, i - 1) <= key(&c, i))
		i++;
	if (i < n)
		sort_records(base, n, size, key_off);
}

void trace__sort(struct tc_trace *t)
{
	_Static_assert(sizeof(struct tc_event) <= SORT_MAX_SIZE, "SORT_MAX_SIZE too small");
	sort_unordered(t->events, t->n_events, sizeof(*t->events),
		       offsetof(struct tc_event, start_ns));
	sort_unordered(t->samples, t->n_samples, sizeof(*t->samples),
		       offsetof(struct tc_sample, t_start));
}
