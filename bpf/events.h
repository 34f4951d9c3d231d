/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * events.h - the kernel <-> user ABI of tailcause.
 *
 * Every BPF program writes struct tc_event records into the one ring buffer
 * `events`. A record is an *interval*: the entry stamps a slot, the exit emits
 * {start, duration, detail}. This header is the only one BPF and user space
 * share; keep it fixed-width and padded by hand.
 */
#ifndef TAILCAUSE_EVENTS_H
#define TAILCAUSE_EVENTS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Record kinds (tc_event.kind). Values are stored in trace files: append only. */
#define TC_EV_OFFCPU	1	/* a probe thread was off its CPU */
#define TC_EV_HARDIRQ	2	/* a hard IRQ handler ran on a probe CPU */
#define TC_EV_SOFTIRQ	3	/* a softirq vector ran on a probe CPU */
#define TC_EV_KIND_MAX	3

/* tc_event.flags for TC_EV_OFFCPU */
#define TC_OFFCPU_PREEMPTED	0x1	/* switched out while runnable (prev_state == running) */

/* Maximum CPUs the filter maps cover. */
#define TC_MAX_CPUS	1024

/* Value in the probe_tids map: which role a traced thread plays. */
#define TC_ROLE_PROBE	1	/* a latency-probe thread: its off-CPU time is traced */

#define TC_COMM_LEN	16

/*
 * One interval. For TC_EV_OFFCPU: tid = the probe thread, cpu = the CPU it
 * left, other_pid/other_comm = the task that ran longest on that CPU meanwhile,
 * arg = the prev_state it left in. For TC_EV_HARDIRQ: arg = IRQ number. For
 * TC_EV_SOFTIRQ: arg = vector (HI_SOFTIRQ=0 ... RCU_SOFTIRQ=9).
 */
struct tc_event {
	__u64 start_ns;		/* bpf_ktime_get_ns(), i.e. CLOCK_MONOTONIC */
	__u64 dur_ns;
	__u32 cpu;
	__u32 tid;		/* probe thread concerned, 0 for CPU-wide events */
	__u32 arg;
	__u32 other_pid;	/* TC_EV_OFFCPU: who ran instead (longest) */
	__u16 kind;
	__u16 flags;
	__u32 pad;
	char other_comm[TC_COMM_LEN];
};

/*
 * Per-thread slot of sched.bpf.c (map offcpu_start, key = tid), stamped when a
 * probe thread is switched out. While it waits, every task that runs on its
 * CPU is timed and the one that ran longest is kept: that is "who ran
 * instead", not merely whoever ran first. User space reads the slots still
 * open at the end of a recording so no off-CPU interval is lost.
 */
struct tc_offcpu_slot {
	__u64 start_ns;
	__u64 top_ns;		/* run time of top_pid inside the interval so far */
	__u32 cpu;
	__u32 state;
	__u32 top_pid;		/* longest-running other task so far (first task until one finishes) */
	__u32 preempted;
	char top_comm[TC_COMM_LEN];
};

#endif /* TAILCAUSE_EVENTS_H */
