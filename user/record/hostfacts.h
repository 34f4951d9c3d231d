/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hostfacts.h - what a trace records about the host it was taken on: kernel,
 * CPUs, NUMA, clock source, THP mode, kernel command line, and the name of
 * every IRQ (from /sys/kernel/irq/N/actions, else /proc/interrupts).
 */
#ifndef TAILCAUSE_RECORD_HOSTFACTS_H
#define TAILCAUSE_RECORD_HOSTFACTS_H

#include "core/trace.h"

/* Adds host facts as meta keys (host.*) to t; 0 or -ENOMEM. Missing files are skipped. */
int hostfacts_collect(struct tc_trace *t);
/* Adds an IRQ name for every IRQ the kernel lists; 0 or -ENOMEM. */
int hostfacts_irq_names(struct tc_trace *t);

#endif /* TAILCAUSE_RECORD_HOSTFACTS_H */
