/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cause_table.h - private to user/core: the causes of an analysis, found by
 * name (an open-addressing hash over tc_analysis.causes).
 */
#ifndef TAILCAUSE_CORE_CAUSE_TABLE_H
#define TAILCAUSE_CORE_CAUSE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "analyze.h"

/* Zero-initialize; owns only the index, the causes live in the analysis. */
struct cause_table {
	struct tc_analysis *a;
	uint32_t *hash; /* cause index + 1, 0 = empty; power-of-two size */
	size_t hash_size;
	size_t cap_causes;
};

/* The index of the cause called name in a->causes, added with class cls if new; 0 or -ENOMEM. */
int cause_table_index(struct cause_table *c, const char *name, enum tc_cause_class cls,
		      uint32_t *out);
void cause_table__free(struct cause_table *c);

#endif /* TAILCAUSE_CORE_CAUSE_TABLE_H */
