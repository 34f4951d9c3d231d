/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cause_table.h - private to user/core: the causes of an analysis, found by
 * name (an open-addressing hash over tc_analysis.causes), and the cause an
 * event names without context, remembered by the event fields its name
 * depends on.
 */
#ifndef TAILCAUSE_CORE_CAUSE_TABLE_H
#define TAILCAUSE_CORE_CAUSE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "analyze.h"

struct cause_memo;

/* Zero-initialize; owns only the indexes, the causes live in the analysis. */
struct cause_table {
	struct tc_analysis *a;
	uint32_t *hash; /* cause index + 1, 0 = empty; power-of-two size */
	size_t hash_size;
	size_t cap_causes;
	struct cause_memo *memo; /* event fields -> cause; power-of-two size */
	size_t memo_size, memo_used;
};

/* The index of the cause called name in a->causes, added with class cls if new; 0 or -ENOMEM. */
int cause_table_index(struct cause_table *c, const char *name, enum tc_cause_class cls,
		      uint32_t *out);
/*
 * The index of the cause e names without context (causes_name_event() with t and
 * nic_pattern, both the same for every call on c), added if new; 0 or -ENOMEM.
 * Names are made once per distinct (kind, flags, arg, other_pid, other_comm),
 * the fields they depend on, so causes are added in the same order as by naming
 * each event and calling cause_table_index().
 */
int cause_table_event(struct cause_table *c, const struct tc_trace *t, const struct tc_event *e,
		      const char *nic_pattern, uint32_t *out);
void cause_table__free(struct cause_table *c);

#endif /* TAILCAUSE_CORE_CAUSE_TABLE_H */
