/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hostfacts.h - what a trace records about the host it was taken on: kernel,
 * CPUs, NUMA, clock source, THP mode, kernel command line, and the name of
 * every IRQ (from /sys/kernel/irq/N/actions, else /proc/interrupts).
 */
#ifndef TAILCAUSE_RECORD_HOSTFACTS_H
#define TAILCAUSE_RECORD_HOSTFACTS_H

#include <stdio.h>

#include "core/trace.h"
#include "core/u64map.h"

/* Adds host facts as meta keys (host.*) to t; 0 or -ENOMEM. Missing files are skipped. */
int hostfacts_collect(struct tc_trace *t);
/* Adds an IRQ name for every IRQ the kernel lists; 0 or -ENOMEM. */
int hostfacts_irq_names(struct tc_trace *t);

/*
 * Names the kernel functions at the addresses in addrs (the keys; callbacks the
 * tracers saw) from kallsyms (/proc/kallsyms, opened by the caller while it had
 * CAP_SYSLOG: the file shows addresses by its opener's capabilities; NULL: none),
 * as meta "ksym.<hex address>" = name; 0 or -ENOMEM. An address kallsyms does
 * not list (or a kallsyms without addresses: kptr_restrict) stays unnamed, and
 * the report prints it as an address.
 */
int hostfacts_ksyms(struct tc_trace *t, const struct u64map *addrs, FILE *kallsyms);

#endif /* TAILCAUSE_RECORD_HOSTFACTS_H */
