/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hostfacts.h - what a trace records about the host it was taken on: kernel,
 * CPUs, NUMA, clock source, THP mode, kernel command line, and the name of
 * every IRQ (from /sys/kernel/irq/N/actions, else /proc/interrupts).
 */
#ifndef TAILCAUSE_RECORD_HOSTFACTS_H
#define TAILCAUSE_RECORD_HOSTFACTS_H

#include <stdio.h>

#include "core/cpuset.h"
#include "core/trace.h"
#include "core/u64map.h"

/* Adds host facts as meta keys (host.*) to t; 0 or -ENOMEM. Missing files are skipped. */
int hostfacts_collect(struct tc_trace *t);
/* Adds an IRQ name for every IRQ the kernel lists; 0 or -ENOMEM. */
int hostfacts_irq_names(struct tc_trace *t);

/*
 * /proc/kallsyms opened for hostfacts_ksyms(), or NULL. Open it before dropping
 * privileges: the kernel decides at open whether the reader sees addresses
 * (CAP_SYSLOG, kptr_restrict), and a recorder past privs_drop() would read zeros.
 */
FILE *hostfacts_kallsyms_open(void);

/*
 * Names the kernel functions at the addresses in addrs (the keys; callbacks the
 * tracers saw) from kallsyms (hostfacts_kallsyms_open(), read from its start; NULL:
 * none), as meta "ksym.<hex address>" = name; 0 or -ENOMEM. An address kallsyms
 * does not list (or a kallsyms without addresses: kptr_restrict) stays unnamed,
 * and the report prints it as an address.
 */
int hostfacts_ksyms(struct tc_trace *t, const struct u64map *addrs, FILE *kallsyms);

/* The other hardware threads of cpu's core (SMT siblings) into out; 0, or -errno when the
 * topology cannot be read (out is then empty). */
int hostfacts_siblings(int cpu, struct tc_cpuset *out);

#endif /* TAILCAUSE_RECORD_HOSTFACTS_H */
