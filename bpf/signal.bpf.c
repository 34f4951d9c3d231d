// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * signal.bpf.c - signals delivered to the threads of interest, from their
 * delivery until their handler returned.
 *
 * A signal handler runs in user space, where no other kernel event shows it: a
 * profiler's SIGPROF, a runtime's preemption signal (Go's SIGURG), a SIGALRM
 * timer take the thread's time without the kernel seeing anything but the
 * delivery. Three points bound it:
 *   signal_generate   in the sender's context: who sent which signal to which
 *                     thread (or process: any thread of the group may take a
 *                     process-directed signal), kept in signal_sender until the
 *                     delivery takes it;
 *   signal_deliver    in the target's context, on its way back to user space
 *                     with a handler to run: opens the thread's slot in
 *                     signal_open (an ignored or default action runs no handler:
 *                     an instant);
 *   rt_sigreturn      the handler's end (syscalls:sys_enter_rt_sigreturn, a
 *                     classic tracepoint with no tp_btf twin: a raw_syscalls
 *                     program would run on every system call of the machine).
 * The last is loaded only with --signal-ends: a system-call tracepoint puts every
 * system call of the machine on its slow path (~50 ns each on the project's VM).
 * Without it (cfg_handler_ends 0) a delivery with a handler is an instant flagged
 * TC_SIGNAL_END_UNTRACED, which the analyzer bounds by the round trip it falls in.
 * One TC_EV_SIGNAL per delivery: start = the delivery, dur = until the handler
 * returned. A slot that a second delivery finds still open (a nested signal, a
 * handler that left by siglongjmp) is closed as an instant; so are the slots
 * user space finds open at the end of a recording (tracer_read.c).
 *
 * The sender is the task that ran the generation when a process asked for the
 * signal (kill, tgkill, sigqueue, mq_notify) or the kernel raised it on behalf
 * of the running task (a fault, SIGCHLD from the exiting child). A signal the
 * kernel raises from a timer, I/O or the tty (SI_KERNEL, SI_TIMER, SIGIO) runs
 * in whatever task an interrupt found: it has no sender, only TC_SIGNAL_KERNEL.
 */
#include "common.bpf.h"

/* 1: the rt_sigreturn program is loaded and closes the slots; 0: deliveries are instants. */
const volatile __u32 cfg_handler_ends = 1;

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* include/uapi/asm-generic/siginfo.h, signal.h */
#define TC_SI_USER   0
#define TC_SI_KERNEL 0x80
#define TC_SI_QUEUE  -1
#define TC_SI_MESGQ  -3
#define TC_SI_TKILL  -6
#define TC_SIGIO     29
#define TC_SIG_DFL   0
#define TC_SIG_IGN   1

/* include/trace/events/signal.h: enum trace_signal_deliver */
#define TC_TRACE_SIGNAL_DELIVERED 0
#define TC_TRACE_SIGNAL_LOSE_INFO 4

struct signal_sender {
	__u32 pid; /* the sender's process (tgid); 0: the kernel, see flags */
	__u16 flags;
	__u16 pad;
	char comm[TC_COMM_LEN];
};

/*
 * (target, signo, process-directed) -> who sent it, from the generation to the
 * delivery. An LRU: a signal that stays blocked, or that a thread of no
 * interest takes, is evicted in time.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct signal_sender);
} signal_sender SEC(".maps");

/* tid -> the signal its handler is running for. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct tc_signal_slot);
} signal_open SEC(".maps");

/* A thread's pending signals and its process's are separate queues: so are their keys. */
static __always_inline __u64 sender_key(__u32 id, int sig, int group)
{
	return (__u64)id | (__u64)(sig & 0xff) << 32 | (__u64)(group != 0) << 40;
}

/* Did the task running the generation send it (1), or the kernel from some interrupt (0)? */
static __always_inline int sent_by_current(int sig, int code)
{
	switch (code) {
	case TC_SI_USER:
	case TC_SI_QUEUE:
	case TC_SI_MESGQ:
	case TC_SI_TKILL:
		return 1;
	case TC_SI_KERNEL:
		return 0;
	}
	/* Positive codes are the kernel's on behalf of the running task (a fault, an
	 * exiting child's SIGCHLD), except SIGIO's, raised wherever the I/O completes.
	 * Other negative ones (SI_TIMER, SI_ASYNCIO, SI_SIGIO) come from interrupts. */
	return code > 0 && sig != TC_SIGIO;
}

static __always_inline void generated(int sig, int code, __u32 tid, __u32 tgid, int group,
				      int result)
{
	struct signal_sender s = {};
	__u64 key;

	if (result != TC_TRACE_SIGNAL_DELIVERED && result != TC_TRACE_SIGNAL_LOSE_INFO)
		return; /* ignored, or already pending: its first sender keeps it */
	if (group ? !tid_of_interest(tid) && !tid_of_interest(tgid) : !tid_of_interest(tid))
		return;
	if (sent_by_current(sig, code)) {
		s.pid = (__u32)(bpf_get_current_pid_tgid() >> 32);
		bpf_get_current_comm(s.comm, sizeof(s.comm));
	} else {
		s.flags = TC_SIGNAL_KERNEL;
	}
	key = sender_key(group ? tgid : tid, sig, group);
	bpf_map_update_elem(&signal_sender, &key, &s, BPF_ANY);
}

/* The record of slot: an interval up to end, or an instant (end 0). */
static __always_inline void emit_signal(const struct tc_signal_slot *slot, __u32 tid, __u64 end)
{
	struct tc_event *e = event_reserve(TC_EV_SIGNAL);

	if (!e)
		return;
	__builtin_memset(e, 0, sizeof(*e));
	e->start_ns = slot->start_ns;
	e->dur_ns = end > slot->start_ns ? end - slot->start_ns : 0;
	e->cpu = slot->cpu;
	e->tid = tid;
	e->arg = slot->signo;
	e->other_pid = slot->sender_pid;
	e->kind = TC_EV_SIGNAL;
	e->flags = slot->flags;
	__builtin_memcpy(e->other_comm, slot->sender_comm, TC_COMM_LEN);
	event_submit(e);
}

/* The sender of signal sig the current thread takes now: its own queue first, as the kernel. */
static __always_inline void take_sender(struct tc_signal_slot *slot, __u32 tid, __u32 tgid, int sig)
{
	__u64 key = sender_key(tid, sig, 0);
	struct signal_sender *s = bpf_map_lookup_elem(&signal_sender, &key);

	if (!s) {
		key = sender_key(tgid, sig, 1);
		s = bpf_map_lookup_elem(&signal_sender, &key);
	}
	if (!s)
		return;
	slot->sender_pid = s->pid;
	slot->flags = s->flags;
	__builtin_memcpy(slot->sender_comm, s->comm, TC_COMM_LEN);
	bpf_map_delete_elem(&signal_sender, &key);
}

static __always_inline void delivered(int sig, unsigned long handler)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct tc_signal_slot slot = {}, *open;

	if (!tid_of_interest(tid))
		return;
	slot.start_ns = bpf_ktime_get_ns();
	slot.cpu = bpf_get_smp_processor_id();
	slot.signo = (__u32)sig;
	take_sender(&slot, tid, (__u32)(id >> 32), sig);
	/* A handler still running, or one that never returned: its end was not seen. */
	open = bpf_map_lookup_elem(&signal_open, &tid);
	if (open && open->start_ns)
		emit_signal(open, tid, 0);
	if (handler == TC_SIG_DFL || handler == TC_SIG_IGN || !cfg_handler_ends) {
		slot.flags |= handler == TC_SIG_DFL || handler == TC_SIG_IGN
				      ? TC_SIGNAL_NO_HANDLER
				      : TC_SIGNAL_END_UNTRACED;
		emit_signal(&slot, tid, 0);
		if (open)
			bpf_map_delete_elem(&signal_open, &tid);
		return;
	}
	bpf_map_update_elem(&signal_open, &tid, &slot, BPF_ANY);
}

/*
 * What TP_STORE_SIGINFO records: SEND_SIG_NOINFO (0) is SI_USER, SEND_SIG_PRIV (1)
 * SI_KERNEL. The verifier takes such a pointer argument for a scalar (it may encode
 * these): read through a helper.
 */
static __always_inline int siginfo_code(struct kernel_siginfo *info)
{
	if (!info)
		return TC_SI_USER;
	if ((unsigned long)info == 1)
		return TC_SI_KERNEL;
	return BPF_CORE_READ(info, si_code);
}

SEC("tp_btf/signal_generate")
int BPF_PROG(tc_signal_generate_btf, int sig, struct kernel_siginfo *info, struct task_struct *task,
	     int group, int result)
{
	generated(sig, siginfo_code(info), task->pid, task->tgid, group, result);
	return 0;
}

SEC("tp_btf/signal_deliver")
int BPF_PROG(tc_signal_deliver_btf, int sig, struct kernel_siginfo *info, struct k_sigaction *ka)
{
	delivered(sig, (unsigned long)ka->sa.sa_handler);
	return 0;
}

/*
 * The classic record names the target by its pid only: a process-directed signal is
 * keyed by it, which is the process's id when the target is the group leader (kill()
 * of a process finds its leader).
 */
SEC("tp/signal/signal_generate")
int tc_signal_generate_tp(struct trace_event_raw_signal_generate *ctx)
{
	generated(ctx->sig, ctx->code, (__u32)ctx->pid, (__u32)ctx->pid, ctx->group, ctx->result);
	return 0;
}

SEC("tp/signal/signal_deliver")
int tc_signal_deliver_tp(struct trace_event_raw_signal_deliver *ctx)
{
	delivered(ctx->sig, ctx->sa_handler);
	return 0;
}

/* The handler's end: only threads with an open slot have anything to close. */
SEC("tp/syscalls/sys_enter_rt_sigreturn")
int tc_signal_return_tp(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct tc_signal_slot *open = bpf_map_lookup_elem(&signal_open, &tid);

	if (!open)
		return 0;
	emit_signal(open, tid, bpf_ktime_get_ns());
	bpf_map_delete_elem(&signal_open, &tid);
	return 0;
}
