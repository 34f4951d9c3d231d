// SPDX-License-Identifier: BSD-2-Clause
/* u64map.c - linear probing over a power-of-two table, kept at most half full. */
#include <errno.h>
#include <stdlib.h>

#include "u64map.h"

static size_t slot_of(uint64_t key, size_t size)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	key *= 0xc4ceb9fe1a85ec53ull;
	key ^= key >> 33;
	return (size_t)key & (size - 1);
}

int u64map_get(const struct u64map *m, uint64_t key, size_t *val)
{
	if (!m->size)
		return 0;
	for (size_t i = slot_of(key, m->size);; i = (i + 1) & (m->size - 1)) {
		const struct u64map_slot *s = &m->slots[i];

		if (!s->val)
			return 0;
		if (s->key == key) {
			*val = s->val - 1;
			return 1;
		}
	}
}

static void insert(struct u64map_slot *slots, size_t size, uint64_t key, size_t val1)
{
	size_t i = slot_of(key, size);

	while (slots[i].val && slots[i].key != key)
		i = (i + 1) & (size - 1);
	slots[i].key = key;
	slots[i].val = val1;
}

static int rehash(struct u64map *m)
{
	size_t size = m->size ? m->size * 2 : 64;
	struct u64map_slot *s;

	if (size > SIZE_MAX / sizeof(*s))
		return -ENOMEM;
	s = calloc(size, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < m->size; i++)
		if (m->slots[i].val)
			insert(s, size, m->slots[i].key, m->slots[i].val);
	free(m->slots);
	m->slots = s;
	m->size = size;
	return 0;
}

int u64map_put(struct u64map *m, uint64_t key, size_t val)
{
	size_t old;

	if (!u64map_get(m, key, &old)) {
		if ((m->used + 1) * 2 > m->size && rehash(m))
			return -ENOMEM;
		m->used++;
	}
	insert(m->slots, m->size, key, val + 1);
	return 0;
}

void u64map__free(struct u64map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->size = m->used = 0;
}
