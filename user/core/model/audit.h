/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * audit.h - the host tuning checklist (docs/domain.md) as a model: which checks
 * exist, why each matters, one result per check (status, a short finding,
 * the evidence read, the fix), and the snapshot a trace carries as meta keys
 * (audit.<check>.status / .summary / .evidence / .fix, audit.cpus).
 *
 * Pure: the checks themselves read the host in user/audit/.
 */
#ifndef TAILCAUSE_CORE_AUDIT_H
#define TAILCAUSE_CORE_AUDIT_H

#include <stddef.h>

#include "core/trace/trace.h"

/* Ordered by severity: a check over several subjects (NICs, CPUs) takes the worst. */
enum tc_audit_status {
	TC_AUDIT_OK = 0,
	TC_AUDIT_UNKNOWN, /* could not be read: the reason is the evidence */
	TC_AUDIT_WARN,	  /* off the checklist; may cost tail latency */
	TC_AUDIT_FAIL,	  /* off the checklist in a way known to cause spikes */
	TC_AUDIT_STATUS_COUNT,
};

/* The checks, in the order they are run and printed (docs/audit-schema.md). */
enum tc_audit_check {
	TC_AUDIT_IRQBALANCE = 0,
	TC_AUDIT_NIC_IRQ, /* NIC IRQ affinity vs NUMA node vs probe CPUs */
	TC_AUDIT_THP_ENABLED,
	TC_AUDIT_THP_DEFRAG,
	TC_AUDIT_KHUGEPAGED,
	TC_AUDIT_COMPACTION, /* /proc/vmstat counters since boot */
	TC_AUDIT_GOVERNOR,
	TC_AUDIT_CSTATES,
	TC_AUDIT_ISOLATION,
	TC_AUDIT_MTU,
	TC_AUDIT_RINGS,
	TC_AUDIT_COALESCE,
	TC_AUDIT_RDMA_PORT,
	TC_AUDIT_MEMLOCK,
	TC_AUDIT_STEAL, /* the hypervisor's steal time on the probe CPUs */
	TC_AUDIT_PFC,	/* RoCE: PFC on the RoCE priority only (or global pause) */
	TC_AUDIT_TRUST, /* RoCE: trust DSCP */
	TC_AUDIT_ECN,	/* RoCE: ECN on at both points of the RoCE priority; the CNPs' */
	TC_AUDIT_CHECK_COUNT,
};

struct tc_audit_info {
	enum tc_audit_check id;
	const char *name;  /* stable id: "irqbalance", "nic-irq-affinity", ... */
	const char *title; /* what is checked, a few words */
	const char *why;   /* one line: why it matters for tail latency */
};

#define TC_AUDIT_SUMMARY_LEN  200
#define TC_AUDIT_EVIDENCE_LEN 1536
#define TC_AUDIT_FIX_LEN      512

struct tc_audit_result {
	int present; /* 0: not in this snapshot */
	enum tc_audit_status status;
	char summary[TC_AUDIT_SUMMARY_LEN];   /* the finding, one clause */
	char evidence[TC_AUDIT_EVIDENCE_LEN]; /* what was read, "; "-separated */
	char fix[TC_AUDIT_FIX_LEN];	      /* what to do; "" when nothing */
};

struct tc_audit {
	char cpus[64]; /* the probe CPUs the checks used (cpulist) */
	struct tc_audit_result r[TC_AUDIT_CHECK_COUNT];
};

/* The catalogue entry of a check; NULL when id is out of range. */
const struct tc_audit_info *audit_info(enum tc_audit_check id);
/* The check called name, or -ENOENT. */
int audit_check_by_name(const char *name);
/* "ok", "unknown", "warn", "fail" */
const char *audit_status_name(enum tc_audit_status s);
/* Parses a status name; 0 or -EINVAL. */
int audit_status_parse(const char *s, enum tc_audit_status *out);
/* Counts the present checks by status into n[TC_AUDIT_STATUS_COUNT]; returns how many. */
size_t audit_count(const struct tc_audit *a, size_t n[TC_AUDIT_STATUS_COUNT]);

/* Stores a as meta keys of t (present checks only); 0 or -ENOMEM. */
int audit_to_meta(const struct tc_audit *a, struct tc_trace *t);
/* Reads the snapshot of t into a; 0, or -ENOENT when t carries none. */
int audit_from_meta(const struct tc_trace *t, struct tc_audit *a);

/*
 * Finds the kernel parameter name in a /proc/cmdline text (up to a " -- ",
 * after which the arguments belong to init). Returns 1 and its value in val
 * ("" for a bare flag such as "nohz"), or 0 when absent. The last occurrence
 * wins, as in the kernel.
 */
int audit_cmdline_param(const char *cmdline, const char *name, char *val, size_t len);

/*
 * The parameters of a /proc/cmdline text that bear on latency (CPU isolation, tick, RCU
 * callbacks, IRQ affinity, idle and frequency drivers, huge pages, mitigations,
 * watchdogs, clock source: the audit's among them) into out, as written and in their
 * order, space-separated; the rest (root=, UUIDs, init's arguments after "--") is left
 * out, and so is one that does not fit. Returns out's length.
 */
size_t audit_cmdline_latency(const char *cmdline, char *out, size_t len);

#endif /* TAILCAUSE_CORE_AUDIT_H */
