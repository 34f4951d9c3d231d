// SPDX-License-Identifier: BSD-2-Clause
/*
 * radix.c - one LSD radix sort for the records core/ sorts: plain keys (the
 * latencies of stats.c) and (key, index) pairs (trace_sort.c). The record size
 * is a constant at each call of sort(), so the compiler moves each record as a
 * word or two.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "radix.h"

#define RADIX_BITS	 11
#define RADIX_BUCKETS	 (1u << RADIX_BITS)
#define RADIX_MAX_PASSES ((64 + RADIX_BITS - 1) / RADIX_BITS)

/* The key of record i: the first 8 bytes. */
static inline uint64_t key_at(const char *v, size_t size, size_t i)
{
	uint64_t k;

	memcpy(&k, v + i * size, sizeof(k));
	return k;
}

static inline __attribute__((always_inline)) int sort(void *base, size_t n, size_t size)
{
	size_t(*count)[RADIX_BUCKETS];
	char *src = base, *dst, *tmp;
	uint64_t min, range = 0;
	unsigned int pass, passes;

	if (n < 2)
		return 0;
	if (n > SIZE_MAX / size)
		return -ENOMEM;
	tmp = malloc(n * size);
	count = calloc(RADIX_MAX_PASSES, sizeof(*count));
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return -ENOMEM;
	}
	dst = tmp;
	min = key_at(src, size, 0);
	for (size_t i = 1; i < n; i++) {
		uint64_t k = key_at(src, size, i);

		min = k < min ? k : min;
	}
	for (size_t i = 0; i < n; i++)
		range |= key_at(src, size, i) - min;
	for (passes = 0; passes < RADIX_MAX_PASSES && range >> (passes * RADIX_BITS); passes++)
		;
	/* One read of the input fills the histograms of every pass. */
	for (size_t i = 0; i < n; i++) {
		uint64_t k = key_at(src, size, i) - min;

		for (pass = 0; pass < passes; pass++)
			count[pass][(k >> (pass * RADIX_BITS)) & (RADIX_BUCKETS - 1)]++;
	}
	for (pass = 0; pass < passes; pass++) {
		unsigned int shift = pass * RADIX_BITS;
		size_t sum = 0, *c = count[pass];

		/* Every key has the same digit here: the pass would be a copy. */
		if (c[((key_at(src, size, 0) - min) >> shift) & (RADIX_BUCKETS - 1)] == n)
			continue;
		for (unsigned int d = 0; d < RADIX_BUCKETS; d++) {
			size_t k = c[d];

			c[d] = sum;
			sum += k;
		}
		for (size_t i = 0; i < n; i++) {
			size_t d = ((key_at(src, size, i) - min) >> shift) & (RADIX_BUCKETS - 1);

			memcpy(dst + c[d]++ * size, src + i * size, size);
		}
		tmp = src;
		src = dst;
		dst = tmp;
	}
	if (src != base)
		memcpy(base, src, n * size);
	free(src == base ? dst : src);
	free(count);
	return 0;
}

int radix_sort_u64(uint64_t *v, size_t n)
{
	return sort(v, n, sizeof(*v));
}

int radix_sort_pairs(struct radix_pair *v, size_t n)
{
	_Static_assert(offsetof(struct radix_pair, key) == 0, "the key comes first");
	return sort(v, n, sizeof(*v));
}
