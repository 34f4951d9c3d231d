// SPDX-License-Identifier: BSD-2-Clause
/* active_set.c - a binary min-heap of intervals on `until`. */
#include <errno.h>
#include <stdlib.h>

#include "active_set.h"
#include "core/util/grow.h"

static void swap(struct active *h, size_t i, size_t j)
{
	struct active tmp = h[i];

	h[i] = h[j];
	h[j] = tmp;
}

int active_set_push(struct active_set *s, const struct active *x)
{
	struct active *h;
	size_t i;

	if (grow(&s->items, &s->cap, s->n + 1, sizeof(*s->items)))
		return -ENOMEM;
	h = s->items;
	i = s->n++;
	h[i] = *x;
	while (i && h[(i - 1) / 2].until > h[i].until) {
		swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	return 0;
}

void active_set_pop(struct active_set *s)
{
	struct active *h = s->items;
	size_t i = 0, n = --s->n;

	h[0] = h[n];
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < n && h[l].until < h[m].until)
			m = l;
		if (l + 1 < n && h[l + 1].until < h[m].until)
			m = l + 1;
		if (m == i)
			return;
		swap(h, i, m);
		i = m;
	}
}

void active_set_free(struct active_set *s)
{
	free(s->items);
	s->items = NULL;
	s->n = s->cap = 0;
}
