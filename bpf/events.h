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
#define TC_EV_OFFCPU  1 /* a probe thread was off its CPU */
#define TC_EV_HARDIRQ 2 /* a hard IRQ handler ran on a probe CPU */
#define TC_EV_SOFTIRQ 3 /* a softirq vector ran on a probe CPU */
#define TC_EV_IPI                                                                                  \
	4	      /* an IPI handler ran on a probe CPU: arg = TC_IPI_*, aux = when             \
		       * it was sent (0: not seen), flags = TC_IPI_RPS */
#define TC_EV_TIMER 5 /* the local timer interrupt ran on a probe CPU */
#define TC_EV_PAGE_FAULT                                                                           \
	6		    /* a probe thread's user page fault until it mapped a page             \
			     * (instant when that was not seen); arg = error code, aux = address */
#define TC_EV_COMPACTION 7  /* memory compaction by tid (any CPU): arg = TC_COMPACT_* */
#define TC_EV_RECLAIM	 8  /* direct reclaim by tid (any CPU): arg = order */
#define TC_EV_IDLE	 9  /* a probe CPU idled in C-state arg */
#define TC_EV_MIGRATE	 10 /* instant: probe thread tid moved from CPU arg to cpu */
#define TC_EV_IRQ_MOVE	 11 /* instant: IRQ arg's vector moved to cpu from CPU aux */
#define TC_EV_NIC	 12 /* NIC driver work: arg = TC_NIC_*, interval or instant */
#define TC_EV_COLLAPSE	 13 /* instant: khugepaged collapsed or scanned a huge page by tid */
#define TC_EV_CPU_FREQ	 14 /* instant: a probe CPU changed frequency to arg kHz */
#define TC_EV_NAPI	 15 /* instant: a NAPI poll on a probe CPU, arg = work, aux = budget */
#define TC_EV_LOST                                                                                 \
	16 /* written by the recorder, not BPF: aux records of cpu were lost                       \
	    * to ring-buffer overrun between start and start + dur;                                \
	    * flags = their kind (0: not known, older traces) */
#define TC_EV_STEAL                                                                                \
	17 /* a probe CPU's steal time grew between two readings: start = the earlier              \
	    * reading, dur = until the later one, stolen_ns = by how much; arg = TC_STEAL_* */
#define TC_EV_SIGNAL                                                                               \
	18 /* a signal delivered to a thread of interest, until its handler returned               \
	    * (rt_sigreturn; an instant when no return was seen): arg = signo,                     \
	    * other_pid/other_comm = the sender's process and thread name (0: not seen),           \
	    * flags = TC_SIGNAL_* */
#define TC_EV_WORK                                                                                 \
	19 /* a workqueue item ran on a probe CPU: func = the work function,                       \
	    * other_pid/other_comm = the kworker that ran it; one record per stretch               \
	    * it ran (an item that sleeps or is preempted gives several) */
#define TC_EV_TIMER_FN                                                                             \
	20 /* a timer callback ran on a probe CPU: arg = TC_TIMER_*, func = the callback */
#define TC_EV_NMI                                                                                  \
	21 /* an NMI handler ran on a probe CPU: func = the handler, arg = 1 if it handled it */
#define TC_EV_SIBLING                                                                              \
	22 /* a task ran on the SMT sibling of probe CPU arg: cpu = the sibling,                   \
	    * other_pid/other_comm = the task */
#define TC_EV_MARK                                                                                 \
	23 /* instant: a thread of a traced command reached an iteration marker (--iter):          \
	    * arg = TC_MARK_*; the report makes the iterations from them                           \
	    * (core/iter/iter_samples.h)  */
#define TC_EV_COUNTER                                                                              \
	24 /* written by the recorder, not BPF: a NIC or fabric counter, or the probe's own,       \
	    * moved between two readings: start = the earlier reading, dur = until the later,      \
	    * delta = by how much; arg = the counter (its name is the trace's meta                 \
	    * counter.<arg>), flags = TC_PATH_* (what it evidences); cpu = 0 */
#define TC_EV_WAKEUP                                                                               \
	25 /* instant: a thread of interest, tid, was woken (sched_waking) by another waker than   \
	    * the last one recorded for it: cpu = where the waking ran, other_pid/other_comm =     \
	    * the waker (0, "": an interrupt, TC_WAKE_IRQ), arg = its process, flags =             \
	    * TC_WAKE_*. Until the next such record, every waking of tid was by the same waker     \
	    * from the same CPU: a blocked interval's waker is the last record before its end */
#define TC_EV_COLL                                                                                 \
	26 /* written by the recorder, not BPF: one MPI rank's call of a collective (record        \
	    * --iter mpi, the records of mpi/coll.h): start = when it entered the call, dur =      \
	    * until it returned, tid = the calling thread, cpu = where it entered, aux = the       \
	    * communicator's key, arg = the call's number on that communicator, other_pid = the    \
	    * rank in MPI_COMM_WORLD, flags = the operation (TC_COLL_*), other_comm = its bytes    \
	    * as text; the communicator's size is in the meta (core/iter/coll_event.h) */
#define TC_EV_KIND_MAX 26

/* Keys of the drops map: a record kind (TC_EV_*), 0 for none known. */
#define TC_DROP_KINDS (TC_EV_KIND_MAX + 1)

/* tc_event.flags for TC_EV_OFFCPU */
#define TC_OFFCPU_PREEMPTED 0x1 /* switched out while runnable (prev_state == running) */
#define TC_OFFCPU_MIGRATED  0x2 /* switched back in on another CPU */
#define TC_OFFCPU_UNENDED                                                                          \
	0x4 /* an instant: its switch back in was never reported (the                              \
	     * task that ran instead is one this kernel does not                                   \
	     * trace), seen only when it left its CPU again */
#define TC_OFFCPU_WOKEN                                                                            \
	0x8 /* set by the report, not BPF (core/trace/wakeups.h): the part of a blocked interval   \
	     * after its wake-up, when the thread waited for its CPU (with PREEMPTED) */

/* tc_event.flags for TC_EV_WAKEUP */
#define TC_WAKE_IRQ                                                                                \
	0x1 /* woken from an interrupt (a hard IRQ or a softirq, on the interrupt stack) or by     \
	     * the idle task (queued wake-ups): no task woke it */
#define TC_WAKE_FOLLOWED                                                                           \
	0x2 /* the waker was not traced: it is from here on (TC_ROLE_WAKER), up to TC_MAX_WAKERS   \
	     */
#define TC_WAKE_UNFOLLOWED                                                                         \
	0x4 /* the waker was not traced and TC_MAX_WAKERS were followed already: it stays so */

/* tc_event.flags for TC_EV_SIGNAL */
#define TC_SIGNAL_KERNEL                                                                           \
	0x1 /* the kernel sent it (SI_KERNEL, SI_TIMER, SIGIO...: a timer, I/O, the tty),          \
	     * not a process: other_pid is 0 */
#define TC_SIGNAL_NO_HANDLER                                                                       \
	0x2 /* an instant: the signal's action was the default or ignore, no handler ran */
#define TC_SIGNAL_END_UNTRACED                                                                     \
	0x4 /* an instant: a handler ran from here, its end not traced (recorded without           \
	     * --signal-ends) */

/* tc_event.flags for TC_EV_COUNTER: what the counter evidences on the path */
#define TC_PATH_RETRANSMIT 1 /* a packet was lost and sent again (ACK timeout, sequence error) */
#define TC_PATH_RNR	   2 /* receiver not ready: the peer had no receive posted */
#define TC_PATH_ECN	   3 /* congestion: ECN-marked packets, CNPs sent or handled */
#define TC_PATH_PFC_PAUSE  4 /* link-level pause frames (PFC, global pause), IB port wait */
#define TC_PATH_KINDS	   5

/* tc_event.arg for TC_EV_MARK */
#define TC_MARK_BEGIN 1 /* an iteration begins here (and the one before ends, if no END) */
#define TC_MARK_END   2 /* the iteration begun last ends here */

/* tc_event.arg for TC_EV_IPI */
#define TC_IPI_RESCHEDULE	    1
#define TC_IPI_CALL_FUNCTION	    2
#define TC_IPI_CALL_FUNCTION_SINGLE 3
#define TC_IPI_IRQ_WORK		    4

/* tc_event.flags for TC_EV_IPI */
#define TC_IPI_RPS 0x1 /* it ran RPS's trigger: NET_RX work steered to this CPU */
#define TC_IPI_TTWU                                                                                \
	0x2 /* it ran the scheduler's queued wake-ups (sched_ttwu_pending): a task                 \
	     * woken from a CPU that shares no cache with this one, or while it idled */

/* tc_event.arg for TC_EV_COMPACTION */
#define TC_COMPACT_RUN	     1 /* mm_compaction_begin .. end: a compaction pass */
#define TC_COMPACT_DIRECT    2 /* instant: try_to_compact_pages (direct, in an allocation) */
#define TC_COMPACT_KCOMPACTD 3 /* kcompactd wake .. sleep on a node */

/* tc_event.arg for TC_EV_STEAL: where the steal time was read */
#define TC_STEAL_RQ  1 /* the run queue's prev_steal_time_rq (the scheduler's copy, per tick) */
#define TC_STEAL_KVM 2 /* the KVM steal_time area the host writes (finer) */

/* tc_event.arg for TC_EV_TIMER_FN */
#define TC_TIMER_HRTIMER 1 /* hrtimer_expire_entry .. exit (hard IRQ or HRTIMER softirq) */
#define TC_TIMER_LIST	 2 /* timer_expire_entry .. exit (timer-list callbacks, TIMER softirq) */

/* tc_event.arg for TC_EV_NIC */
#define TC_NIC_COMP_EQ	1 /* mlx5_eq_comp_int: completion EQ interrupt work */
#define TC_NIC_ASYNC_EQ 2 /* mlx5_eq_async_int: async EQ (port, health) work */
#define TC_NIC_HEALTH	3 /* instant: devlink health report */
#define TC_NIC_HWERR	4 /* instant: devlink hardware error */
#define TC_NIC_RXE_RCV	5 /* rxe_rcv: soft-RoCE receive path (the lab's stand-in NIC) */

/* Maximum CPUs the filter maps cover. */
#define TC_MAX_CPUS 1024

/* Value in the probe_tids map: which role a traced thread plays. */
#define TC_ROLE_PROBE  1 /* a latency-probe thread: its off-CPU time is traced */
#define TC_ROLE_TARGET 2 /* a thread of `record -- CMD`; its children are followed */
#define TC_ROLE_WAKER                                                                              \
	3 /* a task that woke a thread of interest, traced from then on (sched.bpf.c); not         \
	   * its children */

/* The most wakers a recording starts to trace (TC_ROLE_WAKER). */
#define TC_MAX_WAKERS 64

#define TC_COMM_LEN 16

/*
 * One interval (or an instant, dur_ns == 0). For TC_EV_OFFCPU: tid = the
 * probe thread, cpu = the CPU it left, other_pid/other_comm = the task that
 * ran longest on that CPU meanwhile, arg = the prev_state it left in. For
 * TC_EV_HARDIRQ: arg = IRQ number. For TC_EV_SOFTIRQ: arg = vector
 * (HI_SOFTIRQ=0 ... RCU_SOFTIRQ=9). Other kinds: see their definitions above.
 * Where a field's meaning depends on the kind it has a name for each; aux and
 * flags are the kind-free names of the same bytes. 64 bytes, fixed.
 */
struct tc_event {
	__u64 start_ns; /* bpf_ktime_get_ns(), i.e. CLOCK_MONOTONIC */
	__u64 dur_ns;
	union {
		__u64 aux;
		__u64 woken_after_ns; /* TC_EV_OFFCPU: from start until woken (0: runnable
				       * throughout, or not seen) */
		__u64 fault_addr;     /* TC_EV_PAGE_FAULT: the address that faulted */
		__u64 sent_ns;	      /* TC_EV_IPI: when it was sent (0: not seen) */
		__u64 from_cpu;	      /* TC_EV_IRQ_MOVE: the CPU the vector left */
		__u64 lost;	      /* TC_EV_LOST: records lost in the window */
		__u64 stolen_ns;      /* TC_EV_STEAL: steal time between the readings */
		__u64 func;	      /* TC_EV_WORK, TC_EV_TIMER_FN, TC_EV_NMI: the kernel
				       * function's address, which the recorder replaces by
				       * an id before writing (core/trace/func_ids.h) */
		__u64 delta;	      /* TC_EV_COUNTER: how much the counter moved */
	};
	__u32 cpu;
	__u32 tid; /* thread concerned, 0 for CPU-wide events */
	__u32 arg;
	__u32 other_pid; /* TC_EV_OFFCPU: who ran instead (longest) */
	__u16 kind;
	union {
		__u16 flags;
		__u16 lost_kind; /* TC_EV_LOST: the kind of the records lost (0: not known) */
	};
	__u32 pad;
	char other_comm[TC_COMM_LEN];
};

/*
 * Per-thread slot of sched.bpf.c, stamped when a probe thread is switched out:
 * in the thread's task storage (map task_state) on the tp_btf path, in the
 * hash offcpu_start (key = tid) on the classic-tracepoint path. top_pid and
 * top_comm name the task switched to; the longest runner is kept per CPU
 * (struct tc_sched_cpu). User space reads the slots still open at the end of
 * a recording so no off-CPU interval is lost.
 */
struct tc_offcpu_slot {
	__u64 start_ns;
	__u64 woken_ns;	 /* when it was runnable again (0: unknown, or preempted) */
	__u64 rq_clock;	 /* tp_btf with sched_info: its run queue's clock when it left */
	__u64 run_delay; /* and its sched_info.run_delay then */
	__u32 cpu;
	__u32 state;
	__u32 top_pid; /* the task switched to when it left */
	__u32 preempted;
	char top_comm[TC_COMM_LEN];
	__u32 waker; /* who woke it last, as its last TC_EV_WAKEUP record said (0: an interrupt) */
	__u32 waker_at; /* and from where: its CPU + 1, | TC_WAKE_AT_IRQ (0: none recorded yet) */
};

/* tc_offcpu_slot.waker_at: the waking was an interrupt's. */
#define TC_WAKE_AT_IRQ 0x80000000u

/*
 * While a probe thread is off a probe CPU, every task that runs there is
 * timed and the one that ran longest is kept: that is "who ran instead", not
 * merely whoever ran first. Kept per CPU (map cpu_state), in entry
 * tid % TC_SCHED_WAITERS, matched by tid and start_ns when the thread returns
 * (two waiters on one CPU in one entry: the older keeps its first runner).
 */
#define TC_SCHED_WAITERS 4

struct tc_sched_waiter {
	__u64 start_ns; /* the waiter's slot start_ns; 0: entry free */
	__u64 top_ns;	/* run time of top_pid inside the interval so far */
	__u32 tid;
	__u32 top_pid;
	char top_comm[TC_COMM_LEN];
};

struct tc_sched_cpu {
	__u64 last_switch_ns; /* when the running task was switched in */
	struct tc_sched_waiter waiters[TC_SCHED_WAITERS];
};

/*
 * Per-CPU slot of mm.bpf.c (map fault_open): the user page fault a thread of
 * interest is in, until its RSS changes. User space closes a slot still open at
 * the end of a recording as an instant.
 */
struct tc_fault_slot {
	__u64 start_ns;
	__u64 address;
	__u64 ip;  /* the faulting user instruction */
	__u32 tid; /* 0: no fault open */
	__u32 error_code;
};

/*
 * Per-kworker slot of workqueue.bpf.c (map work_open, key = the kworker's tid):
 * the work item it runs, opened when the item started on a probe CPU. start_ns
 * is when the stretch running now began, 0 while the kworker is switched out.
 * User space emits the stretches still running at the end of a recording.
 */
struct tc_work_slot {
	__u64 start_ns;
	__u64 func; /* the work function */
	__u32 cpu;  /* where the stretch runs */
	__u32 pad;
	char comm[TC_COMM_LEN]; /* the kworker's */
};

/*
 * Per-thread slot of signal.bpf.c (hash signal_open, key = tid): the signal a
 * thread of interest is handling, from its delivery until rt_sigreturn. User
 * space closes a slot still open at the end of a recording as an instant.
 */
struct tc_signal_slot {
	__u64 start_ns;
	__u32 cpu;
	__u32 signo;
	__u32 sender_pid; /* 0: not seen */
	__u16 flags;	  /* TC_SIGNAL_* */
	__u16 pad;
	char sender_comm[TC_COMM_LEN];
};

/* Counter kinds (user/core trace counters): kept in maps, not as events. */
#define TC_COUNTER_IRQ	   1 /* key = IRQ number: handler runs on cpu, all CPUs */
#define TC_COUNTER_SOFTIRQ 2 /* key = vector: runs on cpu (probe CPUs) */

#endif /* TAILCAUSE_EVENTS_H */
