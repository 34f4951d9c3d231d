/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hostfacts.h - what a trace records about the host it was taken on: kernel,
 * CPUs, NUMA, clock source, THP mode, the kernel parameters that bear on latency,
 * the name of every IRQ (from /sys/kernel/irq/N/actions, else /proc/interrupts), and
 * the callbacks' kernel functions by id (docs/privacy.md lists what a trace reveals).
 */
#ifndef TAILCAUSE_RECORD_HOSTFACTS_H
#define TAILCAUSE_RECORD_HOSTFACTS_H

#include <stdio.h>

#include "core/util/cpuset.h"
#include "core/trace/func_ids.h"
#include "core/trace/trace.h"

/* Adds host facts as meta keys (host.*) to t; 0 or -ENOMEM. Missing files are skipped. */
int hostfacts_collect(struct tc_trace *t);
/* Adds an IRQ name for every IRQ the kernel lists; 0 or -ENOMEM. */
int hostfacts_irq_names(struct tc_trace *t);

/* The kernel's functions by address, from /proc/kallsyms (hostfacts_ksyms_load()). */
struct ksym {
	uint64_t addr;
	size_t name; /* offset into ksyms.names */
};

struct ksyms {
	struct ksym *v; /* by address, then name offset: an alias after the first name */
	char *names;
	size_t n, cap, names_len, names_cap;
};

/*
 * Reads /proc/kallsyms's functions into k, once, before the run: naming a callback is
 * then a lookup, never another pass over the file while the probe runs. Call it
 * before dropping privileges: the kernel decides at open whether the reader sees
 * addresses (CAP_SYSLOG, kptr_restrict); without them k stays empty. 0 or -ENOMEM.
 */
int hostfacts_ksyms_load(struct ksyms *k);
void hostfacts_ksyms_free(struct ksyms *k);

/*
 * Names the kernel functions of f from id from + 1 on (the callbacks the tracers saw) in
 * t's meta by their ids (core/trace/func_ids.h), with the first name k gives the address; one
 * k does not hold is "unnamed#<id>". 0 or -ENOMEM.
 */
int hostfacts_ksyms(struct tc_trace *t, const struct func_ids *f, size_t from,
		    const struct ksyms *k);

/* The other hardware threads of cpu's core (SMT siblings) into out; 0, or -errno when the
 * topology cannot be read (out is then empty). */
int hostfacts_siblings(int cpu, struct tc_cpuset *out);

#endif /* TAILCAUSE_RECORD_HOSTFACTS_H */
