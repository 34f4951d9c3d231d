/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * audit_join.h - joins a trace's audit snapshot to the causes the analysis
 * measured: which checks bear on which cause, and one sentence per group of
 * causes naming the spikes, where they hit, what the audit found and the fix,
 * e.g. "412 spikes were nic-irq:mlx5_comp2 on CPU 3 (a probe CPU); irqbalance
 * is running and will undo manual IRQ affinity — stop it: ..., then bind ...".
 *
 * Pure: reads a struct tc_audit, a trace and its analysis; prints nothing.
 */
#ifndef TAILCAUSE_CORE_AUDIT_JOIN_H
#define TAILCAUSE_CORE_AUDIT_JOIN_H

#include <stddef.h>
#include <stdint.h>

#include "core/attrib/analyze.h"
#include "audit.h"

#define TC_AUDIT_JOIN_CHECKS 4
#define TC_AUDIT_JOIN_LEN    2048

struct tc_audit_join {
	enum tc_cause_class cls;
	uint64_t spikes;	    /* spikes whose primary cause is in this group */
	enum tc_audit_status worst; /* worst status of the related checks present */
	size_t n_checks;	    /* related checks, present or not */
	enum tc_audit_check checks[TC_AUDIT_JOIN_CHECKS];
	char text[TC_AUDIT_JOIN_LEN];
};

/*
 * The checks that bear on a cause (its class, refined by its name: softirq:net_rx
 * goes with the NIC's IRQs, preemption:khugepaged with THP) into out; returns
 * how many (0 for causes no check covers, such as self).
 */
size_t audit_checks_for_cause(enum tc_cause_class cls, const char *name,
			      enum tc_audit_check out[TC_AUDIT_JOIN_CHECKS]);

/*
 * Writes one line per group of measured causes (causes with spikes, grouped by
 * the checks that bear on them), most spikes first, at most max, into out;
 * *n = lines written. 0 or -ENOMEM.
 */
int audit_join(const struct tc_audit *au, const struct tc_trace *t, const struct tc_analysis *a,
	       struct tc_audit_join *out, size_t max, size_t *n);

/*
 * The checks that warn or fail but that no line in j[0..n) cites, into out
 * (TC_AUDIT_CHECK_COUNT entries); returns how many.
 */
size_t audit_join_unused(const struct tc_audit *au, const struct tc_audit_join *j, size_t n,
			 enum tc_audit_check *out);

#endif /* TAILCAUSE_CORE_AUDIT_JOIN_H */
