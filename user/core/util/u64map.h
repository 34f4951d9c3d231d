/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * u64map.h - an open-addressing hash map from a 64-bit key to a size_t value
 * (an index into the caller's array), or a set of keys.
 */
#ifndef TAILCAUSE_CORE_U64MAP_H
#define TAILCAUSE_CORE_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct u64map_slot {
	uint64_t key;
	size_t val; /* value + 1; 0 marks an empty slot */
};

/* Zero-initialize; free with u64map__free. */
struct u64map {
	struct u64map_slot *slots;
	size_t size; /* power of two, or 0 */
	size_t used;
};

/* Points *val at the value of key and returns 1 if present, else returns 0. */
int u64map_get(const struct u64map *m, uint64_t key, size_t *val);
/* Sets key to val (present or not); 0 or -ENOMEM. */
int u64map_put(struct u64map *m, uint64_t key, size_t val);
void u64map__free(struct u64map *m);

#endif /* TAILCAUSE_CORE_U64MAP_H */
