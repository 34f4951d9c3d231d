/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * active_set.h - the analyzer's active set: the intervals that may still
 * overlap a spike window, in a min-heap keyed by `until` so the sweep drops
 * expired ones in O(log n). Private to the analyzer.
 */
#ifndef TAILCAUSE_CORE_ACTIVE_SET_H
#define TAILCAUSE_CORE_ACTIVE_SET_H

#include <stddef.h>
#include <stdint.h>

/* An interval in the active set. */
struct active {
	uint64_t start; /* the weighed span [start, end), start == end for an instant */
	uint64_t end;
	uint64_t until; /* heap key: it overlaps no window that starts at or after until */
	size_t ev;
	uint32_t cpu;
	uint32_t cause;	    /* cached context-free cause index, TC_NO_CAUSE until first named */
	uint32_t probe_rel; /* on a probe thread or a probe thread's CPU */
	uint32_t mm;	    /* a compaction/reclaim interval: context for any task */
	uint64_t pre;	    /* [start, start + pre) and [end - post, end): the hidden cost */
	uint64_t post;	    /* the calibration added to the traced span */
};

struct active_set {
	struct active *items; /* items[0] has the smallest until */
	size_t n;
	size_t cap;
};

/* Adds a copy of x; 0 or -ENOMEM. */
int active_set_push(struct active_set *s, const struct active *x);
/* Removes items[0] (the smallest until); s->n > 0. */
void active_set_pop(struct active_set *s);
/* Frees the storage; the set is empty afterwards. */
void active_set_free(struct active_set *s);

#endif /* TAILCAUSE_CORE_ACTIVE_SET_H */
