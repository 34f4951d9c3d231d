/* SPDX-License-Identifier: BSD-2-Clause */
/* grow.h - private to user/core: growable arrays, and saturating arithmetic. */
#ifndef TAILCAUSE_CORE_GROW_H
#define TAILCAUSE_CORE_GROW_H

#include <errno.h>
#include <math.h>
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

/* floor(x) into a uint64_t, saturating (0 for what is not above 0). */
static inline uint64_t clamp_floor(long double x)
{
	if (!(x > 0.0L))
		return 0;
	if (x >= 18446744073709551615.0L)
		return UINT64_MAX;
	return (uint64_t)floorl(x);
}

#endif /* TAILCAUSE_CORE_GROW_H */
