// SPDX-License-Identifier: BSD-2-Clause
/* func_ids.c - kernel functions by id, not by address (func_ids.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "func_ids.h"
#include "core/util/grow.h"

uint64_t func_ids__id(struct func_ids *f, uint64_t addr)
{
	size_t i;

	if (!addr)
		return 0;
	if (u64map_get(&f->by_addr, addr, &i))
		return i + 1;
	if (f->n == TC_FUNC_ID_MAX || grow(&f->addr, &f->cap, f->n + 1, sizeof(*f->addr)) ||
	    u64map_put(&f->by_addr, addr, f->n))
		return 0;
	f->addr[f->n++] = addr;
	return f->n;
}

void func_ids__free(struct func_ids *f)
{
	u64map__free(&f->by_addr);
	free(f->addr);
	memset(f, 0, sizeof(*f));
}

void func_ids_key(uint64_t func, char *buf, size_t len)
{
	snprintf(buf, len, "ksym.%llx", (unsigned long long)func);
}

int func_ids_name(struct tc_trace *t, uint64_t id, const char *name)
{
	char key[32];

	func_ids_key(id, key, sizeof(key));
	if (name)
		return trace__set_meta(t, key, name);
	return trace__set_metaf(t, key, "unnamed#%llu", (unsigned long long)id);
}
