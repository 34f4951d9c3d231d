// SPDX-License-Identifier: BSD-2-Clause
/* cause_table.c - the causes of an analysis, found by name and by event. */
#include <stdlib.h>
#include <string.h>

#include "cause_table.h"
#include "core/util/grow.h"

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

/*
 * What an event's context-free name depends on (causes.h): its kind, flags
 * (preempted, RPS), arg (IRQ number, vector, signal...), other_pid (the
 * recorder's own thread is `self`), other_comm, and for callbacks the function.
 * Naming formats a string and looks it up by name; the analyzer names ~5
 * intervals per spike, mostly the same few causes, so the result is kept by
 * these fields.
 */
#define MEMO_WORDS 5

struct cause_memo {
	uint64_t w[MEMO_WORDS]; /* arg | other_pid << 32, kind | flags << 16 | peer << 32,
				   other_comm, func */
	uint32_t cause;
	uint32_t used;
};

_Static_assert(sizeof(((struct tc_event *)0)->other_comm) == 2 * sizeof(uint64_t), "comm size");

static void memo_key(const struct tc_trace *t, const struct tc_event *e, uint64_t *w)
{
	w[0] = (uint64_t)e->arg | (uint64_t)e->other_pid << 32;
	w[1] = (uint64_t)e->kind | (uint64_t)e->flags << 16 | (uint64_t)trace__is_peer(t, e) << 32;
	memcpy(&w[2], e->other_comm, 2 * sizeof(*w));
	w[4] = e->kind == TC_EV_WORK || e->kind == TC_EV_TIMER_FN ? e->func : 0;
}

static size_t memo_hash(const uint64_t *w)
{
	uint64_t h = w[0] * 0x9e3779b97f4a7c15ull ^ w[1] * 0xc2b2ae3d27d4eb4full ^
		     w[2] * 0x165667b19e3779f9ull ^ w[3] * 0xff51afd7ed558ccdull ^
		     w[4] * 0xc4ceb9fe1a85ec53ull;

	return (size_t)(h ^ h >> 29);
}

/* The slot holding w, or the empty slot where it goes. */
static struct cause_memo *memo_slot(struct cause_memo *m, size_t size, const uint64_t *w)
{
	size_t p;

	for (p = memo_hash(w) & (size - 1); m[p].used; p = (p + 1) & (size - 1))
		if (!memcmp(m[p].w, w, sizeof(m[p].w)))
			break;
	return &m[p];
}

static int memo_grow(struct cause_table *c)
{
	size_t size = c->memo_size ? c->memo_size * 2 : 256;
	struct cause_memo *m = calloc(size, sizeof(*m));

	if (!m)
		return -ENOMEM;
	for (size_t i = 0; i < c->memo_size; i++)
		if (c->memo[i].used)
			*memo_slot(m, size, c->memo[i].w) = c->memo[i];
	free(c->memo);
	c->memo = m;
	c->memo_size = size;
	return 0;
}

int cause_table_event(struct cause_table *c, const struct tc_trace *t, const struct tc_event *e,
		      const char *nic_pattern, uint32_t *out)
{
	char name[TC_CAUSE_NAME_LEN];
	enum tc_cause_class cls;
	struct cause_memo *slot;
	uint64_t w[MEMO_WORDS];
	int err;

	if ((c->memo_used + 1) * 2 > c->memo_size && memo_grow(c))
		return -ENOMEM;
	memo_key(t, e, w);
	slot = memo_slot(c->memo, c->memo_size, w);
	if (slot->used) {
		*out = slot->cause;
		return 0;
	}
	cls = causes_name_event(t, e, nic_pattern, name, sizeof(name));
	err = cause_table_index(c, name, cls, out);
	if (err)
		return err;
	memcpy(slot->w, w, sizeof(w));
	slot->cause = *out;
	slot->used = 1;
	c->memo_used++;
	return 0;
}

void cause_table__free(struct cause_table *c)
{
	free(c->hash);
	c->hash = NULL;
	c->hash_size = 0;
	free(c->memo);
	c->memo = NULL;
	c->memo_size = c->memo_used = 0;
}
