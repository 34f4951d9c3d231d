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
};

/* Kernel order: include/linux/interrupt.h, HI_SOFTIRQ = 0 ... RCU_SOFTIRQ = 9. */
static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

/* Same, lower case, for cause names. */
static const char *const softirq_lower[] = {
	"hi", "timer", "net_tx", "net_rx", "block", "irq_poll", "tasklet", "sched", "hrtimer", "rcu",
};
/* clang-format on */

#define N_SOFTIRQ (sizeof(softirq_names) / sizeof(softirq_names[0]))

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

static enum tc_cause_class name_offcpu(const struct tc_trace *t, const struct tc_event *e,
				       char *buf, size_t len)
{
	if (!(e->flags & TC_OFFCPU_PREEMPTED)) {
		snprintf(buf, len, "blocked, then %.*s ran", comm_len(e), e->other_comm);
		return TC_CAUSE_UNATTRIBUTED;
	}
	if (t && e->other_pid && trace__thread_role(t, e->other_pid) == TC_THREAD_SELF) {
		snprintf(buf, len, "%s", catalogue[TC_CAUSE_SELF].prefix);
		return TC_CAUSE_SELF;
	}
	/*
	 * ksoftirqd/N stays a preemption: naming the softirq would need the
	 * vector it ran, which a sched_switch does not carry.
	 */
	snprintf(buf, len, "preemption:%.*s", comm_len(e), e->other_comm);
	return TC_CAUSE_PREEMPTION;
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

enum tc_cause_class causes_name_event(const struct tc_trace *t, const struct tc_event *e,
				      const char *nic_pattern, char *buf, size_t len)
{
	char dummy[1];

	if (!buf || !len) {
		buf = dummy;
		len = sizeof(dummy);
	}
	switch (e->kind) {
	case TC_EV_OFFCPU:
		return name_offcpu(t, e, buf, len);
	case TC_EV_HARDIRQ:
		return name_hardirq(t, e, nic_pattern, buf, len);
	case TC_EV_SOFTIRQ:
		if (e->arg < N_SOFTIRQ)
			snprintf(buf, len, "softirq:%s", softirq_lower[e->arg]);
		else
			snprintf(buf, len, "softirq:vec%u", (unsigned int)e->arg);
		return TC_CAUSE_SOFTIRQ;
	default:
		snprintf(buf, len, "unknown event kind %u", (unsigned int)e->kind);
		return TC_CAUSE_UNATTRIBUTED;
	}
}
