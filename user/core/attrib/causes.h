/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * causes.h - the closed catalogue of host causes a tail spike can be blamed
 * on, and how a traced interval is named as one of them.
 *
 * A name holds only safe text: a task name is escaped here (causes_comm()), the
 * IRQ and function names come escaped from the trace's tables (trace.h).
 */
#ifndef TAILCAUSE_CORE_CAUSES_H
#define TAILCAUSE_CORE_CAUSES_H

#include <stddef.h>
#include <stdint.h>

#include "lib/str.h"
#include "core/trace/trace.h"

enum tc_cause_class {
	TC_CAUSE_UNATTRIBUTED = 0, /* no traced event explains >= 50 % of the excess */
	TC_CAUSE_PREEMPTION,	   /* preemption:<comm> */
	TC_CAUSE_HARDIRQ,	   /* hardirq:<irq name> */
	TC_CAUSE_NIC_IRQ,	   /* nic-irq:<irq name>, the name matches the NIC pattern */
	TC_CAUSE_SOFTIRQ,	   /* softirq:<vector> */
	TC_CAUSE_IPI,		   /* ipi:<kind> */
	TC_CAUSE_TIMER,		   /* timer, timer:tick, timer:<function> */
	TC_CAUSE_PAGE_FAULT,	   /* page-fault */
	TC_CAUSE_THP_COMPACTION,   /* thp-compaction */
	TC_CAUSE_RECLAIM,	   /* reclaim */
	TC_CAUSE_IDLE_EXIT,	   /* idle-exit */
	TC_CAUSE_NIC_EVENT,	   /* nic-event:<name> */
	TC_CAUSE_MIGRATION,	   /* migration */
	TC_CAUSE_SELF,		   /* self: the recorder's own threads */
	TC_CAUSE_SIGNAL,	   /* signal:<SIGNAME> */
	TC_CAUSE_WORKQUEUE,	   /* workqueue:<function> */
	TC_CAUSE_NMI,		   /* nmi */
	TC_CAUSE_SMT_SIBLING,	   /* smt-sibling:<comm> */
	TC_CAUSE_STEAL,		   /* steal: the hypervisor ran something else on the vCPU */
	TC_CAUSE_HW_NOISE,	   /* hw-noise: no OS event at all, with complete tracing */
	TC_CAUSE_PATH,		   /* path: two hosts, neither host's intervals explain it */
	TC_CAUSE_VCPU_HALT,	   /* vcpu-halt: an interrupt to an idle vCPU ran late */
	TC_CAUSE_WAIT,		   /* wait:<comm>: blocked on a task that did its own work */
	TC_CAUSE_CPU_VARIANCE,	   /* cpu-variance: no OS event, and less than one exit */
	TC_CAUSE_CLASS_COUNT,
};

/* What the catalogue says about a class of cause. */
struct tc_cause_info {
	enum tc_cause_class cls;
	const char *prefix; /* "preemption", "hardirq", ... */
	const char *what;   /* one line: what happened */
	const char *fix;    /* one line: what to do about it (its source: docs/domain.md) */
};

/* The catalogue entry for cls; never NULL for a valid class. */
const struct tc_cause_info *causes_info(enum tc_cause_class cls);
/* What hw-noise is on a host whose hypervisor (host.hypervisor) the trace names: on a VM
 * the hypervisor's exits and interrupts, on bare metal ("none") SMIs, firmware and the
 * SMT sibling; causes_info()'s words where the trace does not say (NULL). */
const char *causes_hw_noise_what(const char *hypervisor);

/* Default shell pattern (fnmatch) for IRQ names that belong to the NIC. */
#define TC_NIC_IRQ_PATTERN_DEFAULT "mlx5_*"

/* What a path counter evidences, TC_PATH_* ("retransmit", "rnr", "ecn", "pfc-pause"), or "other".
 */
const char *causes_path_name(uint16_t what);

/* The kernel's name for a softirq vector ("NET_RX", "TIMER"...), or "?" */
const char *causes_softirq_name(uint32_t vec);

/* No softirq vector: tc_name_ctx.softirq_vec when none ran. */
#define TC_NO_VECTOR UINT32_MAX

/* The signal's name ("SIGPROF", "SIGRTMIN+3") for Linux signal number signo, into buf. */
void causes_signal_name(uint32_t signo, char *buf, size_t len);

/*
 * The name of kernel function func (its id, or an older trace's address: func_ids.h), as
 * the recorder resolved it, or NULL.
 */
const char *causes_ksym(const struct tc_trace *t, uint64_t func);

/* 1 when fn is the scheduler tick's hrtimer callback (tick_nohz_handler, tick_sched_timer). */
int causes_is_tick_fn(const char *fn);

/*
 * 1 when func (a kernel function, resolved by causes_ksym()) is a timer callback whose
 * whole work is waking a sleeping task (hrtimer_wakeup: nanosleep, futex and poll
 * timeouts; process_timeout: schedule_timeout()); 0 for any other or an unknown one.
 */
int causes_is_wakeup_fn(const struct tc_trace *t, uint64_t func);

/*
 * What the analyzer saw around a preempted off-CPU interval inside one spike
 * (user/core/attrib/spike_context.c finds it): it can change the name of the cause.
 */
struct tc_name_ctx {
	/* THP_COMPACTION or RECLAIM: the task that ran instead was compacting or
	 * reclaiming meanwhile; else UNATTRIBUTED */
	enum tc_cause_class task_was;
	/* ksoftirqd ran instead: the vector with the most time inside the
	 * interval, or TC_NO_VECTOR */
	uint32_t softirq_vec;
	/* The callback with the most time inside the interval on its CPU (0: none seen): a
	 * work function inside a kworker's preemption, a timer callback inside the local
	 * timer interrupt or the TIMER softirq. It names them. */
	uint64_t func;
	/* An IPI sent to its CPU while it idled, which ran later than a whole IPI costs a
	 * running CPU here (the calibration's): on a VM the host ran the halted vCPU late
	 * (vcpu-halt), on bare metal the C-state exit (idle-exit). */
	uint32_t halted_late;
	/* A blocked off-CPU interval of the timing thread ended by this waking by a task (the
	 * wait chain's first link): the wait on it, named by it. */
	const struct tc_event *waking;
};

/*
 * 1 for kinds that are evidence only: they appear in spike timelines but never
 * take credit and are never a spike's candidate (the analyzer weighs them as
 * instants whatever their duration). TC_EV_MIGRATE, TC_EV_IRQ_MOVE,
 * TC_EV_CPU_FREQ, TC_EV_NAPI, and any kind this build does not know.
 */
int causes_evidence_only(uint16_t kind);

/*
 * Names the cause an interval evidences into buf and returns its class:
 *   TC_EV_OFFCPU, blocked          "blocked, then <comm> ran" (UNATTRIBUTED: the
 *                                  thread slept, no host cause)
 *   TC_EV_OFFCPU, preempted, by    first match of:
 *                                  "self"            the recorder's own thread
 *                                  "thp-compaction"  ctx: the task was compacting
 *                                  "reclaim"         ctx: the task was reclaiming
 *                                  "thp-compaction"  comm "kcompactd..." or "khugepaged..."
 *                                  "reclaim"         comm "kswapd..."
 *                                  "migration"       comm "migration/..."
 *                                  "softirq:<vec>"   comm "ksoftirqd/...", ctx vector;
 *                                                    "softirq:ksoftirqd" without one
 *                                  "workqueue:<fn>"  comm "kworker/...", ctx callback
 *                                  "preemption:<comm>"
 *   TC_EV_HARDIRQ                  "nic-irq:<name>" when the IRQ name matches
 *                                  nic_pattern (NULL: the default), else
 *                                  "hardirq:<name>" ("irq<N>" when unnamed)
 *   TC_EV_SOFTIRQ                  "softirq:<vector>" (lower case, "vec<N>" unknown);
 *                                  the TIMER vector with a ctx callback: "timer:<fn>"
 *   TC_EV_IPI                      "ipi:reschedule", "ipi:call_function",
 *                                  "ipi:call_function_single", "ipi:irq_work",
 *                                  "ipi:other"
 *   TC_EV_TIMER                    "timer:tick" when ctx's callback is the tick's,
 *                                  "timer:<function>" for another callback, "timer"
 *                                  when none was seen
 *   TC_EV_TIMER_FN                 the same, from its own callback
 *   TC_EV_SIGNAL                   "signal:<SIGNAME>"
 *   TC_EV_WORK                     "workqueue:<function>"
 *   TC_EV_NMI                      "nmi"
 *   TC_EV_SIBLING                  "smt-sibling:<comm>"
 *   TC_EV_STEAL                    "steal"
 *   TC_EV_PAGE_FAULT               "page-fault"
 *   TC_EV_COMPACTION, _COLLAPSE    "thp-compaction"
 *   TC_EV_RECLAIM                  "reclaim"
 *   TC_EV_IDLE                     "idle-exit" (weighed by exit latency, analyze.h)
 *   TC_EV_NIC                      "nic-event:mlx5_eq_comp", "nic-event:mlx5_eq_async",
 *                                  "nic-event:devlink_health", "nic-event:devlink_hwerr",
 *                                  "nic-event:rxe_rcv", "nic-event:other"
 *   evidence only (above)          "<what> (evidence only)", "unknown event kind <N>"
 *                                  (UNATTRIBUTED)
 * ctx may be NULL (nothing known around the interval). <comm> is causes_comm()'s.
 */
enum tc_cause_class causes_name_event_ctx(const struct tc_trace *t, const struct tc_event *e,
					  const struct tc_name_ctx *ctx, const char *nic_pattern,
					  char *buf, size_t len);

/* causes_name_event_ctx() without context. */
enum tc_cause_class causes_name_event(const struct tc_trace *t, const struct tc_event *e,
				      const char *nic_pattern, char *buf, size_t len);

/* Room for a task name as causes_comm() writes it. */
#define TC_COMM_TEXT_LEN STR_ESCAPED_LEN(TC_COMM_LEN)

/*
 * e's task name (other_comm: up to TC_COMM_LEN bytes, a NUL or not) escaped into buf
 * (lib/str.h), "" where it has none: how every report and `dump` show it. Returns buf.
 */
const char *causes_comm(const struct tc_event *e, char *buf, size_t len);

#endif /* TAILCAUSE_CORE_CAUSES_H */
