// SPDX-License-Identifier: BSD-2-Clause
/* heap.c - a binary heap whose root ranks lowest (heap.h). */
#include <string.h>

#include "heap.h"

static void *at(const struct heap *h, size_t i)
{
	return (char *)h->base + i * h->size;
}

static void swap(const struct heap *h, size_t i, size_t j)
{
	char tmp[HEAP_MAX_SIZE];

	memcpy(tmp, at(h, i), h->size);
	memcpy(at(h, i), at(h, j), h->size);
	memcpy(at(h, j), tmp, h->size);
}

void heap_sift_down(const struct heap *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < n && h->below(h->ctx, at(h, l), at(h, m)))
			m = l;
		if (l + 1 < n && h->below(h->ctx, at(h, l + 1), at(h, m)))
			m = l + 1;
		if (m == i)
			return;
		swap(h, i, m);
		i = m;
	}
}

void heap_sift_up(const struct heap *h, size_t i)
{
	while (i) {
		size_t up = (i - 1) / 2;

		if (!h->below(h->ctx, at(h, i), at(h, up)))
			return;
		swap(h, i, up);
		i = up;
	}
}

void heap_build(const struct heap *h, size_t n)
{
	for (size_t j = n / 2; j-- > 0;)
		heap_sift_down(h, n, j);
}

void heap_drain(const struct heap *h, size_t n)
{
	for (size_t end = n; end-- > 1;) {
		swap(h, 0, end);
		heap_sift_down(h, end, 0);
	}
}
