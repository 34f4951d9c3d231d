/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * func_ids.h - the kernel functions a trace's callbacks ran (tc_event.func of TC_EV_WORK,
 * TC_EV_TIMER_FN and TC_EV_NMI) by id, never by address: the recorder gives each function
 * an id when it first sees it, 1, 2, ... in that order, before the event is written, and
 * names the id in the meta ("ksym.<hex id>" = the name kallsyms gives the address, or
 * "unnamed#<id>"). No value in the trace then tells where the kernel was loaded (KASLR).
 * An older trace holds the addresses themselves, above TC_FUNC_ID_MAX, named by
 * "ksym.<hex address>": both read alike.
 */
#ifndef TAILCAUSE_CORE_FUNC_IDS_H
#define TAILCAUSE_CORE_FUNC_IDS_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"
#include "core/util/u64map.h"

#define TC_FUNC_ID_MAX 0xffffffffull /* the last id; a 64-bit kernel's text lies far above */

/* The ids given so far (zero-initialize; free with func_ids__free()). */
struct func_ids {
	struct u64map by_addr; /* address -> its index in addr */
	uint64_t *addr;	       /* addr[id - 1]: the address of id */
	size_t n, cap;
};

/*
 * The id of the kernel function at addr, given on first sight; 0 (no function) for
 * addr 0, and where memory or ids ran out.
 */
uint64_t func_ids__id(struct func_ids *f, uint64_t addr);
void func_ids__free(struct func_ids *f);

/* The meta key naming func (an id, or an older trace's address): "ksym.<hex>", into buf. */
void func_ids_key(uint64_t func, char *buf, size_t len);

/* Names id in t's meta: name, or "unnamed#<id>" where name is NULL; 0 or -ENOMEM. */
int func_ids_name(struct tc_trace *t, uint64_t id, const char *name);

#endif /* TAILCAUSE_CORE_FUNC_IDS_H */
