// SPDX-License-Identifier: BSD-2-Clause
/* cause_table.c - the causes of an analysis, found by name. */
#include <stdlib.h>
#include <string.h>

#include "cause_table.h"
#include "grow.h"

static uint64_t hash_name(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int rehash(struct cause_table *c)
{
	size_t size = c->hash_size ? c->hash_size * 2 : 64;
	uint32_t *h = calloc(size, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < c->a->n_causes; i++) {
		size_t p = hash_name(c->a->causes[i].name) & (size - 1);

		while (h[p])
			p = (p + 1) & (size - 1);
		h[p] = (uint32_t)i + 1;
	}
	free(c->hash);
	c->hash = h;
	c->hash_size = size;
	return 0;
}

int cause_table_index(struct cause_table *c, const char *name, enum tc_cause_class cls,
		      uint32_t *out)
{
	struct tc_analysis *a = c->a;
	struct tc_cause *k;
	size_t p;

	if ((a->n_causes + 1) * 2 > c->hash_size && rehash(c))
		return -ENOMEM;
	for (p = hash_name(name) & (c->hash_size - 1); c->hash[p];
	     p = (p + 1) & (c->hash_size - 1)) {
		if (!strcmp(a->causes[c->hash[p] - 1].name, name)) {
			*out = c->hash[p] - 1;
			return 0;
		}
	}
	if (a->n_causes >= UINT32_MAX - 1 ||
	    grow(&a->causes, &c->cap_causes, a->n_causes + 1, sizeof(*k)))
		return -ENOMEM;
	k = &a->causes[a->n_causes];
	memset(k, 0, sizeof(*k));
	strncpy(k->name, name, sizeof(k->name) - 1);
	k->cls = cls;
	c->hash[p] = (uint32_t)a->n_causes + 1;
	*out = (uint32_t)a->n_causes++;
	return 0;
}

void cause_table__free(struct cause_table *c)
{
	free(c->hash);
	c->hash = NULL;
	c->hash_size = 0;
}
