/* SPDX-License-Identifier: BSD-2-Clause */
/* grow.h - private to user/core: the growable arrays of the analyzer. */
#ifndef TAILCAUSE_CORE_GROW_H
#define TAILCAUSE_CORE_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* Grows *pp to hold at least need elements of size sz, doubling; 0 or -ENOMEM. */
static inline int grow(void *pp, size_t *cap, size_t need, size_t sz)
{
	void **p = pp;
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2 / sz)
			return -ENOMEM;
		n *= 2;
	}
	q = realloc(*p, n * sz);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* a + b, saturating at UINT64_MAX. */
static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

#endif /* TAILCAUSE_CORE_GROW_H */
