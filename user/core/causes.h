/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * causes.h - the closed catalogue of host causes a tail spike can be blamed
 * on, and how a traced interval is named as one of them.
 */
#ifndef TAILCAUSE_CORE_CAUSES_H
#define TAILCAUSE_CORE_CAUSES_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

enum tc_cause_class {
	TC_CAUSE_UNATTRIBUTED = 0,	/* no traced event explains >= 50 % of the excess */
	TC_CAUSE_PREEMPTION,		/* preemption:<comm> */
	TC_CAUSE_HARDIRQ,		/* hardirq:<irq name> */
	TC_CAUSE_NIC_IRQ,		/* nic-irq:<irq name>, the name matches the NIC pattern */
	TC_CAUSE_SOFTIRQ,		/* softirq:<vector> */
	TC_CAUSE_IPI,			/* ipi:<kind> */
	TC_CAUSE_TIMER,			/* timer */
	TC_CAUSE_PAGE_FAULT,		/* page-fault */
	TC_CAUSE_THP_COMPACTION,	/* thp-compaction */
	TC_CAUSE_RECLAIM,		/* reclaim */
	TC_CAUSE_IDLE_EXIT,		/* idle-exit */
	TC_CAUSE_NIC_EVENT,		/* nic-event:<name> */
	TC_CAUSE_MIGRATION,		/* migration */
	TC_CAUSE_SELF,			/* self: the recorder's own threads */
	TC_CAUSE_CLASS_COUNT,
};

/* What the catalogue says about a class of cause. */
struct tc_cause_info {
	enum tc_cause_class cls;
	const char *prefix;	/* "preemption", "hardirq", ... */
	const char *what;	/* one line: what happened */
	const char *fix;	/* one line: what to do about it (from DOMAIN.md's checklist) */
};

/* The catalogue entry for cls; never NULL for a valid class. */
const struct tc_cause_info *causes_info(enum tc_cause_class cls);

/* Default shell pattern (fnmatch) for IRQ names that belong to the NIC. */
#define TC_NIC_IRQ_PATTERN_DEFAULT "mlx5_*"

/* The kernel's name for a softirq vector ("NET_RX", "TIMER"...), or "?" */
const char *causes_softirq_name(uint32_t vec);

/*
 * Names the cause an interval evidences, e.g. "preemption:stress" or
 * "nic-irq:mlx5_comp3@pci:0000:81:00.0", into buf. nic_pattern may be NULL
 * for the default. Returns its class; an off-CPU interval in which the thread
 * blocked (not preempted) names no host cause: TC_CAUSE_UNATTRIBUTED, with buf
 * describing it ("blocked, then <comm> ran").
 */
enum tc_cause_class causes_name_event(const struct tc_trace *t, const struct tc_event *e,
				      const char *nic_pattern, char *buf, size_t len);

#endif /* TAILCAUSE_CORE_CAUSES_H */
