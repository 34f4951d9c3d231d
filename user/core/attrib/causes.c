// SPDX-License-Identifier: BSD-2-Clause
/*
 * causes.c - the cause catalogue and the naming of traced intervals.
 *
 * Names are "<prefix>" or "<prefix>:<detail>". Softirq details are the
 * kernel's vector names in lower case ("softirq:net_rx"), the spelling of
 * /proc/softirqs rows in lower case and of the softirq tracepoint's vec_name.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "causes.h"
#include "core/trace/func_ids.h"

/* One entry per class: laid out by hand, the formatter would scatter the strings. */
/* clang-format off */
static const struct tc_cause_info catalogue[TC_CAUSE_CLASS_COUNT] = {
	[TC_CAUSE_UNATTRIBUTED] = { TC_CAUSE_UNATTRIBUTED, "unattributed",
		"no traced host event covers at least half of the spike's excess",
		"trace more sources, or look outside the host: the fabric, the peer, the NIC" },
	[TC_CAUSE_PREEMPTION] = { TC_CAUSE_PREEMPTION, "preemption",
		"another task took the probe's CPU while the probe was runnable",
		"pin the probe to CPUs isolated with isolcpus/nohz_full, "
		"move other tasks off them (taskset/cgroups cpuset)" },
	[TC_CAUSE_HARDIRQ] = { TC_CAUSE_HARDIRQ, "hardirq",
		"a hard IRQ handler ran on a probe CPU",
		"set /proc/irq/N/smp_affinity_list of that IRQ to CPUs away from the probe CPUs "
		"and stop irqbalance" },
	[TC_CAUSE_NIC_IRQ] = { TC_CAUSE_NIC_IRQ, "nic-irq",
		"a NIC interrupt handler ran on a probe CPU",
		"bind NIC IRQs to CPUs on the NIC's NUMA node away from the probe CPUs "
		"and stop irqbalance" },
	[TC_CAUSE_SOFTIRQ] = { TC_CAUSE_SOFTIRQ, "softirq",
		"softirq work (network, timers, RCU...) ran on a probe CPU",
		"steer the IRQs that raise it (and RPS/RFS for NET_RX) away from the probe CPUs; "
		"nohz_full/rcu_nocbs for TIMER and RCU" },
	[TC_CAUSE_IPI] = { TC_CAUSE_IPI, "ipi",
		"an inter-processor interrupt (reschedule, call-function, TLB shootdown) "
		"hit a probe CPU",
		"isolate the probe CPUs (isolcpus/nohz_full) "
		"and keep the probe process's other threads off them" },
	[TC_CAUSE_TIMER] = { TC_CAUSE_TIMER, "timer",
		"the local timer tick interrupted the probe",
		"boot with nohz_full=<probe CPUs> so a lone busy task runs tickless" },
	[TC_CAUSE_PAGE_FAULT] = { TC_CAUSE_PAGE_FAULT, "page-fault",
		"the probe took a page fault in its timed loop",
		"pre-fault and lock the buffers (mlockall, touch them before timing)" },
	[TC_CAUSE_THP_COMPACTION] = { TC_CAUSE_THP_COMPACTION, "thp-compaction",
		"THP compaction or khugepaged collapse stalled the CPU",
		"echo never > /sys/kernel/mm/transparent_hugepage/{enabled,defrag}" },
	[TC_CAUSE_RECLAIM] = { TC_CAUSE_RECLAIM, "reclaim",
		"direct memory reclaim stalled the probe",
		"leave memory headroom (shrink other jobs, raise vm.min_free_kbytes)" },
	[TC_CAUSE_IDLE_EXIT] = { TC_CAUSE_IDLE_EXIT, "idle-exit",
		"a probe CPU woke from a deep C-state",
		"limit deep C-states (BIOS, intel_idle.max_cstate=1, /dev/cpu_dma_latency) "
		"and use the performance governor" },
	[TC_CAUSE_NIC_EVENT] = { TC_CAUSE_NIC_EVENT, "nic-event",
		"the NIC driver or firmware reported an event (mlx5, rdma_core, devlink health)",
		"check devlink health and the driver's log; update NIC firmware and driver" },
	[TC_CAUSE_MIGRATION] = { TC_CAUSE_MIGRATION, "migration",
		"the scheduler moved the probe thread to another CPU",
		"pin each probe thread to one CPU (taskset -c)" },
	[TC_CAUSE_SELF] = { TC_CAUSE_SELF, "self",
		"the recorder's own drain thread took the probe's CPU",
		"the recorder's drain thread: raise --drain-ms / "
		"run the probe on CPUs the recorder does not use" },
	[TC_CAUSE_SIGNAL] = { TC_CAUSE_SIGNAL, "signal",
		"a signal was delivered to the probe thread and its handler ran "
		"(a profiler's SIGPROF, a runtime's preemption signal, a timer's SIGALRM)",
		"stop the sender while measuring (profiler, watchdog, runtime timers) "
		"or block the signal in the timed thread (pthread_sigmask)" },
	[TC_CAUSE_WORKQUEUE] = { TC_CAUSE_WORKQUEUE, "workqueue",
		"a kernel work item ran on a probe CPU (a kworker took it from the probe)",
		"keep unbound work off the probe CPUs (/sys/devices/virtual/workqueue/cpumask) "
		"and find who queues per-CPU work there (the function names it)" },
	[TC_CAUSE_NMI] = { TC_CAUSE_NMI, "nmi",
		"a non-maskable interrupt ran on a probe CPU (perf sampling, the NMI watchdog)",
		"stop perf sampling on the probe CPUs; sysctl kernel.nmi_watchdog=0" },
	[TC_CAUSE_SMT_SIBLING] = { TC_CAUSE_SMT_SIBLING, "smt-sibling",
		"a task ran on the probe CPU's SMT sibling and shared its core",
		"keep the sibling idle (isolate both threads of the core) or disable SMT "
		"(/sys/devices/system/cpu/smt/control)" },
	[TC_CAUSE_STEAL] = { TC_CAUSE_STEAL, "steal",
		"the hypervisor ran something else on this vCPU (steal time)",
		"ask the provider for dedicated, pinned vCPUs (no overcommit), or use bare metal" },
	[TC_CAUSE_HW_NOISE] = { TC_CAUSE_HW_NOISE, "hw-noise",
		"the CPU was taken while the OS ran nothing it can see, with every tracer "
		"attached and nothing lost, or held inside a timer interrupt longer than a "
		"whole tick takes here (on a VM: the hypervisor's exits and interrupts that "
		"are not steal; on bare metal: SMIs, firmware, the SMT sibling)",
		"VM: dedicated, pinned vCPUs with the host's housekeeping elsewhere; bare metal: "
		"check SMIs (turbostat's SMI count) and the BIOS power and RAS settings" },
	[TC_CAUSE_PATH] = { TC_CAUSE_PATH, "path",
		"two hosts: neither host's traced intervals explain it: the NICs and the fabric "
		"between them, or what neither host traces (a hypervisor, firmware)",
		"read the NIC and switch counters for the spike's time (retransmissions, PFC "
		"pauses, ECN marks); check the path's MTU, cabling and congestion control" },
	[TC_CAUSE_VCPU_HALT] = { TC_CAUSE_VCPU_HALT, "vcpu-halt",
		"an interrupt sent to this vCPU while it idled (halted) ran later than a whole "
		"interrupt costs a running vCPU here: the hypervisor did not run the halted vCPU "
		"until then",
		"in the guest, let idle vCPUs poll before they halt (the cpuidle-haltpoll "
		"governor, or idle=poll on the kernel command line); on the host, dedicated, "
		"pinned vCPUs" },
	[TC_CAUSE_WAIT] = { TC_CAUSE_WAIT, "wait",
		"the thread waited on another task, which woke it once it had done its own work, "
		"undisturbed by anything traced: that task's time, not a host cause",
		"nothing on this host: look at the task it waited on (its work, or what it "
		"waited for in turn)" },
	[TC_CAUSE_CPU_VARIANCE] = { TC_CAUSE_CPU_VARIANCE, "cpu-variance",
		"within the CPU's own variance: no OS event, with every tracer attached and "
		"nothing lost, and shorter than the cheapest exit the calibration measured on "
		"this host (caches, memory, a cache line's trip between the probe's cores)",
		"none: no host cause to remove; the probe's own code and data layout set it" },
};

/* Linux's signal numbers (x86, arm64, and most others: asm-generic/signal.h). */
static const char *const signal_names[] = {
	NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
	"SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT",
	"SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU",
	"SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS",
};

#define SIGRTMIN_KERNEL 32
#define SIGRTMAX_KERNEL 64

/* Kernel order: include/linux/interrupt.h, HI_SOFTIRQ = 0 ... RCU_SOFTIRQ = 9. */
static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

/* Same, lower case, for cause names. */
#define NET_RX_VECTOR 3

static const char *const softirq_lower[] = {
	"hi", "timer", "net_tx", "net_rx", "block", "irq_poll", "tasklet", "sched", "hrtimer", "rcu",
};
/* clang-format on */

#define N_SOFTIRQ      (sizeof(softirq_names) / sizeof(softirq_names[0]))
#define TIMER_VECTOR   1
#define HRTIMER_VECTOR 8

void causes_signal_name(uint32_t signo, char *buf, size_t len)
{
	if (signo < sizeof(signal_names) / sizeof(signal_names[0]) && signal_names[signo])
		snprintf(buf, len, "%s", signal_names[signo]);
	else if (signo >= SIGRTMIN_KERNEL && signo <= SIGRTMAX_KERNEL)
		snprintf(buf, len, "SIGRTMIN+%u", (unsigned int)(signo - SIGRTMIN_KERNEL));
	else
		snprintf(buf, len, "SIG%u", (unsigned int)signo);
}

const char *causes_ksym(const struct tc_trace *t, uint64_t func)
{
	char key[32];

	func_ids_key(func, key, sizeof(key));
	return trace__meta(t, key);
}

int causes_is_tick_fn(const char *fn)
{
	return !strcmp(fn, "tick_nohz_handler") || !strcmp(fn, "tick_sched_timer") ||
	       !strcmp(fn, "tick_nohz_highres_handler");
}

int causes_is_wakeup_fn(const struct tc_trace *t, uint64_t func)
{
	const char *fn = func ? causes_ksym(t, func) : NULL;

	return fn && (!strcmp(fn, "hrtimer_wakeup") || !strcmp(fn, "process_timeout"));
}

const struct tc_cause_info *causes_info(enum tc_cause_class cls)
{
	if ((unsigned int)cls >= TC_CAUSE_CLASS_COUNT)
		return NULL;
	return &catalogue[cls];
}

const char *causes_softirq_name(uint32_t vec)
{
	return vec < N_SOFTIRQ ? softirq_names[vec] : "?";
}

/* other_comm is a fixed 16-byte field that the kernel NUL-terminates, a file may not. */
static int comm_len(const struct tc_event *e)
{
	return (int)strnlen(e->other_comm, TC_COMM_LEN);
}

const char *causes_comm(const struct tc_event *e, char *buf, size_t len)
{
	return str_escape_n(buf, len, e->other_comm, TC_COMM_LEN);
}

static int comm_starts(const struct tc_event *e, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)comm_len(e) >= n && !memcmp(e->other_comm, prefix, n);
}

static enum tc_cause_class named(enum tc_cause_class cls, char *buf, size_t len)
{
	snprintf(buf, len, "%s", catalogue[cls].prefix);
	return cls;
}

static enum tc_cause_class name_softirq(uint32_t vec, char *buf, size_t len)
{
	if (vec < N_SOFTIRQ)
		snprintf(buf, len, "softirq:%s", softirq_lower[vec]);
	else
		snprintf(buf, len, "softirq:vec%u", (unsigned int)vec);
	return TC_CAUSE_SOFTIRQ;
}

/* Kernel threads whose comm says what they do on the probe's CPU. */
static enum tc_cause_class name_by_comm(const struct tc_event *e, uint32_t vec, char *buf,
					size_t len)
{
	char comm[TC_COMM_TEXT_LEN];

	if (comm_starts(e, "kcompactd") || comm_starts(e, "khugepaged"))
		return named(TC_CAUSE_THP_COMPACTION, buf, len);
	if (comm_starts(e, "kswapd"))
		return named(TC_CAUSE_RECLAIM, buf, len);
	if (comm_starts(e, "migration/"))
		return named(TC_CAUSE_MIGRATION, buf, len);
	if (comm_starts(e, "ksoftirqd/")) {
		/* A sched_switch does not say which vector ksoftirqd ran: the softirq events do. */
		if (vec == TC_NO_VECTOR) {
			snprintf(buf, len, "softirq:ksoftirqd");
			return TC_CAUSE_SOFTIRQ;
		}
		return name_softirq(vec, buf, len);
	}
	snprintf(buf, len, "preemption:%s", causes_comm(e, comm, sizeof(comm)));
	return TC_CAUSE_PREEMPTION;
}

/* "<prefix>:<the function's name>", or the address where the trace does not name it. */
static void name_func(const struct tc_trace *t, const char *prefix, uint64_t func, char *buf,
		      size_t len)
{
	const char *fn = t ? causes_ksym(t, func) : NULL;

	if (fn)
		snprintf(buf, len, "%s:%s", prefix, fn);
	else
		snprintf(buf, len, "%s:0x%llx", prefix, (unsigned long long)func);
}

/* A timer callback names its timer: the tick, or someone's function. */
static enum tc_cause_class name_timer_fn(const struct tc_trace *t, uint64_t func, char *buf,
					 size_t len)
{
	const char *fn = t ? causes_ksym(t, func) : NULL;

	if (fn && causes_is_tick_fn(fn))
		snprintf(buf, len, "timer:tick");
	else
		name_func(t, "timer", func, buf, len);
	return TC_CAUSE_TIMER;
}

static enum tc_cause_class name_offcpu(const struct tc_trace *t, const struct tc_event *e,
				       const struct tc_name_ctx *ctx, char *buf, size_t len)
{
	int kworker = comm_starts(e, "kworker/");
	char comm[TC_COMM_TEXT_LEN];

	if (!(e->flags & TC_OFFCPU_PREEMPTED) && ctx && ctx->waking) {
		snprintf(buf, len, "wait:%s", causes_comm(ctx->waking, comm, sizeof(comm)));
		return TC_CAUSE_WAIT;
	}
	if (!(e->flags & TC_OFFCPU_PREEMPTED)) {
		snprintf(buf, len, "blocked, then %s ran", causes_comm(e, comm, sizeof(comm)));
		return TC_CAUSE_UNATTRIBUTED;
	}
	/* Woken, then waiting for a CPU that stayed idle: the wake-up's way out of idle. */
	if ((e->flags & TC_OFFCPU_WOKEN) && !e->other_pid)
		return named(TC_CAUSE_IDLE_EXIT, buf, len);
	if (t && e->other_pid && trace__thread_role(t, e->other_pid) == TC_THREAD_SELF)
		return named(TC_CAUSE_SELF, buf, len);
	/* What the task did beats what its name suggests. */
	if (ctx && (ctx->task_was == TC_CAUSE_THP_COMPACTION || ctx->task_was == TC_CAUSE_RECLAIM))
		return named(ctx->task_was, buf, len);
	/* A kworker is its work: the function says whose. */
	if (kworker && ctx && ctx->func) {
		name_func(t, "workqueue", ctx->func, buf, len);
		return TC_CAUSE_WORKQUEUE;
	}
	return name_by_comm(e, ctx ? ctx->softirq_vec : TC_NO_VECTOR, buf, len);
}

static enum tc_cause_class name_hardirq(const struct tc_trace *t, const struct tc_event *e,
					const char *nic_pattern, char *buf, size_t len)
{
	const char *name = t ? trace__irq_name(t, e->arg) : NULL;
	char num[16];

	if (!name || !*name) {
		snprintf(num, sizeof(num), "irq%u", (unsigned int)e->arg);
		name = num;
	}
	if (!nic_pattern)
		nic_pattern = TC_NIC_IRQ_PATTERN_DEFAULT;
	if (fnmatch(nic_pattern, name, 0) == 0) {
		snprintf(buf, len, "nic-irq:%s", name);
		return TC_CAUSE_NIC_IRQ;
	}
	snprintf(buf, len, "hardirq:%s", name);
	return TC_CAUSE_HARDIRQ;
}

/* Indexed by TC_IPI_* and TC_NIC_*; NULL or out of range is "other". */
/* clang-format off */
static const char *const ipi_names[] = {
	[TC_IPI_RESCHEDULE] = "reschedule",
	[TC_IPI_CALL_FUNCTION] = "call_function",
	[TC_IPI_CALL_FUNCTION_SINGLE] = "call_function_single",
	[TC_IPI_IRQ_WORK] = "irq_work",
};

static const char *const nic_names[] = {
	[TC_NIC_COMP_EQ] = "mlx5_eq_comp",
	[TC_NIC_ASYNC_EQ] = "mlx5_eq_async",
	[TC_NIC_HEALTH] = "devlink_health",
	[TC_NIC_HWERR] = "devlink_hwerr",
	[TC_NIC_RXE_RCV] = "rxe_rcv",
};

/* Evidence-only kinds: what they show, never a cause. */
static const char *const evidence_names[TC_EV_KIND_MAX + 1] = {
	[TC_EV_MIGRATE] = "migrate (evidence only)",
	[TC_EV_IRQ_MOVE] = "irq-move (evidence only)",
	[TC_EV_CPU_FREQ] = "cpu-freq (evidence only)",
	[TC_EV_NAPI] = "napi-poll (evidence only)",
	[TC_EV_LOST] = "lost events (evidence only)",
	[TC_EV_MARK] = "iteration mark (evidence only)",
	[TC_EV_COUNTER] = "path counter (evidence only)",
	[TC_EV_WAKEUP] = "wake-up (evidence only)",
	[TC_EV_COLL] = "collective call (evidence only)",
};

/* What a path counter evidences (TC_PATH_*): path:<this>. */
static const char *const path_names[TC_PATH_KINDS] = {
	[TC_PATH_RETRANSMIT] = "retransmit",
	[TC_PATH_RNR] = "rnr",
	[TC_PATH_ECN] = "ecn",
	[TC_PATH_PFC_PAUSE] = "pfc-pause",
};
/* clang-format on */

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *table_name(const char *const *names, size_t n, uint32_t i)
{
	return i < n && names[i] ? names[i] : "other";
}

const char *causes_path_name(uint16_t what)
{
	return what < TC_PATH_KINDS && path_names[what] ? path_names[what] : "other";
}

int causes_evidence_only(uint16_t kind)
{
	return kind == 0 || kind > TC_EV_KIND_MAX || evidence_names[kind];
}

/* Kinds whose name depends on the event's kind and arg only. */
static enum tc_cause_class name_simple(const struct tc_event *e, char *buf, size_t len)
{
	switch (e->kind) {
	case TC_EV_IPI:
		/* RPS's kick: the NET_RX work steered here, whose fix is NET_RX's. */
		if (e->flags & TC_IPI_RPS)
			return name_softirq(NET_RX_VECTOR, buf, len);
		snprintf(buf, len, "ipi:%s", table_name(ipi_names, N_OF(ipi_names), e->arg));
		return TC_CAUSE_IPI;
	case TC_EV_TIMER:
		return named(TC_CAUSE_TIMER, buf, len);
	case TC_EV_NMI:
		return named(TC_CAUSE_NMI, buf, len);
	case TC_EV_STEAL:
		return named(TC_CAUSE_STEAL, buf, len);
	case TC_EV_PAGE_FAULT:
		return named(TC_CAUSE_PAGE_FAULT, buf, len);
	case TC_EV_COMPACTION:
	case TC_EV_COLLAPSE:
		return named(TC_CAUSE_THP_COMPACTION, buf, len);
	case TC_EV_RECLAIM:
		return named(TC_CAUSE_RECLAIM, buf, len);
	case TC_EV_IDLE:
		return named(TC_CAUSE_IDLE_EXIT, buf, len);
	case TC_EV_NIC:
		snprintf(buf, len, "nic-event:%s", table_name(nic_names, N_OF(nic_names), e->arg));
		return TC_CAUSE_NIC_EVENT;
	default:
		if (e->kind && e->kind <= TC_EV_KIND_MAX && evidence_names[e->kind])
			snprintf(buf, len, "%s", evidence_names[e->kind]);
		else
			snprintf(buf, len, "unknown event kind %u", (unsigned int)e->kind);
		return TC_CAUSE_UNATTRIBUTED;
	}
}

/* An interrupt that found its CPU halted and ran late: the hypervisor's on a VM, the C-state
 * exit's on bare metal (host.hypervisor "none"); a trace that does not say is taken for a
 * VM only where it names a hypervisor. */
static enum tc_cause_class halted_class(const struct tc_trace *t)
{
	const char *hv = t ? trace__meta(t, "host.hypervisor") : NULL;

	return hv && strcmp(hv, "none") ? TC_CAUSE_VCPU_HALT : TC_CAUSE_IDLE_EXIT;
}

static enum tc_cause_class name_event(const struct tc_trace *t, const struct tc_event *e,
				      const struct tc_name_ctx *ctx, const char *nic_pattern,
				      char *buf, size_t len)
{
	switch (e->kind) {
	case TC_EV_OFFCPU:
		return name_offcpu(t, e, ctx, buf, len);
	case TC_EV_HARDIRQ:
		return name_hardirq(t, e, nic_pattern, buf, len);
	case TC_EV_SOFTIRQ:
		if ((e->arg == TIMER_VECTOR || e->arg == HRTIMER_VECTOR) && ctx && ctx->func)
			return name_timer_fn(t, ctx->func, buf, len);
		return name_softirq(e->arg, buf, len);
	case TC_EV_TIMER:
		if (ctx && ctx->func)
			return name_timer_fn(t, ctx->func, buf, len);
		return named(TC_CAUSE_TIMER, buf, len);
	case TC_EV_TIMER_FN:
		return name_timer_fn(t, e->func, buf, len);
	case TC_EV_WORK:
		name_func(t, "workqueue", e->func, buf, len);
		return TC_CAUSE_WORKQUEUE;
	case TC_EV_SIGNAL: {
		char sig[24];

		causes_signal_name(e->arg, sig, sizeof(sig));
		snprintf(buf, len, "signal:%s", sig);
		return TC_CAUSE_SIGNAL;
	}
	case TC_EV_IPI:
		if (ctx && ctx->halted_late)
			return named(halted_class(t), buf, len);
		return name_simple(e, buf, len);
	case TC_EV_SIBLING: {
		char comm[TC_COMM_TEXT_LEN];

		snprintf(buf, len, "smt-sibling:%s", causes_comm(e, comm, sizeof(comm)));
		return TC_CAUSE_SMT_SIBLING;
	}
	default:
		return name_simple(e, buf, len);
	}
}

enum tc_cause_class causes_name_event(const struct tc_trace *t, const struct tc_event *e,
				      const char *nic_pattern, char *buf, size_t len)
{
	return causes_name_event_ctx(t, e, NULL, nic_pattern, buf, len);
}

enum tc_cause_class causes_name_event_ctx(const struct tc_trace *t, const struct tc_event *e,
					  const struct tc_name_ctx *ctx, const char *nic_pattern,
					  char *buf, size_t len)
{
	enum tc_cause_class cls;
	char dummy[1], own[96];

	if (!buf || !len) {
		buf = dummy;
		len = sizeof(dummy);
	}
	if (!trace__is_peer(t, e))
		return name_event(t, e, ctx, nic_pattern, buf, len);
	/* the peer host's cause: the same name, marked */
	cls = name_event(t, e, ctx, nic_pattern, own, sizeof(own));
	snprintf(buf, len, "peer:%s", own);
	return cls;
}

const char *causes_hw_noise_what(const char *hypervisor)
{
	if (hypervisor && !strcmp(hypervisor, "none"))
		return "the CPU was taken while the OS ran nothing it can see, with every tracer "
		       "attached and nothing lost: on bare metal, SMIs, firmware, or the SMT "
		       "sibling";
	if (hypervisor)
		return "the CPU was taken while the OS ran nothing it can see, with every tracer "
		       "attached and nothing lost: on this VM, the hypervisor's exits and "
		       "interrupts that it does not account as steal";
	return causes_info(TC_CAUSE_HW_NOISE)->what;
}
