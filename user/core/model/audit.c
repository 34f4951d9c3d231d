// SPDX-License-Identifier: BSD-2-Clause
/* audit.c - the checklist catalogue, statuses, and the snapshot as trace meta keys. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "audit.h"

/* One entry per check: laid out by hand, the formatter would scatter the strings. */
/* clang-format off */
static const struct tc_audit_info catalogue[TC_AUDIT_CHECK_COUNT] = {
	[TC_AUDIT_IRQBALANCE] = { TC_AUDIT_IRQBALANCE, "irqbalance",
		"irqbalance stopped and disabled",
		"irqbalance rewrites IRQ affinities every few seconds: it undoes manual NIC IRQ "
		"binding and can move interrupts onto the probe CPUs" },
	[TC_AUDIT_NIC_IRQ] = { TC_AUDIT_NIC_IRQ, "nic-irq-affinity",
		"NIC IRQs on the NIC's NUMA node, off the probe CPUs",
		"a NIC interrupt on a probe CPU stops the probe for the handler and its softirq; "
		"one on a remote NUMA node pays cross-node memory traffic for every completion" },
	[TC_AUDIT_THP_ENABLED] = { TC_AUDIT_THP_ENABLED, "thp-enabled",
		"transparent huge pages off (enabled = never)",
		"THP allocation and khugepaged collapse compact memory, stalling CPUs for "
		"unpredictable times up to milliseconds" },
	[TC_AUDIT_THP_DEFRAG] = { TC_AUDIT_THP_DEFRAG, "thp-defrag",
		"THP defrag never (no direct compaction at fault time)",
		"with defrag always (or madvise for madvised memory) a page fault compacts memory "
		"synchronously: a stall of the faulting thread; defer wakes kcompactd instead" },
	[TC_AUDIT_KHUGEPAGED] = { TC_AUDIT_KHUGEPAGED, "khugepaged-defrag",
		"khugepaged does not compact to collapse pages",
		"khugepaged/defrag = 1 lets khugepaged compact memory to collapse huge pages, a "
		"kernel thread that preempts whatever runs on its CPU" },
	[TC_AUDIT_COMPACTION] = { TC_AUDIT_COMPACTION, "compaction",
		"no compaction stalls since boot (/proc/vmstat)",
		"compact_stall counts direct compactions (a task stalled to compact); non-zero "
		"counters show the THP and compaction stalls above do happen on this host" },
	[TC_AUDIT_GOVERNOR] = { TC_AUDIT_GOVERNOR, "cpu-governor",
		"performance frequency governor on the probe CPUs",
		"a power-saving governor lowers the clock of a CPU that polls or idles and ramps "
		"it up late: slower and more variable round trips" },
	[TC_AUDIT_CSTATES] = { TC_AUDIT_CSTATES, "c-states",
		"no deep C-states on the probe CPUs",
		"waking from a deep C-state takes its exit latency (tens to hundreds of us) before "
		"the CPU runs again: idle-exit spikes on any CPU that sleeps" },
	[TC_AUDIT_ISOLATION] = { TC_AUDIT_ISOLATION, "isolation",
		"probe CPUs isolated (isolcpus, nohz_full, rcu_nocbs)",
		"on a shared CPU the scheduler runs other tasks, kworkers, the tick and RCU "
		"callbacks between probe iterations: preemption, timer and softirq spikes" },
	[TC_AUDIT_MTU] = { TC_AUDIT_MTU, "nic-mtu",
		"MTU 4096 on InfiniBand, 9000 on RoCE",
		"a smaller MTU splits messages into more packets: more per-packet work and lower "
		"bandwidth; the whole path (every switch) must agree" },
	[TC_AUDIT_RINGS] = { TC_AUDIT_RINGS, "nic-rings",
		"NIC ring buffers at their maximum",
		"small rings overflow under bursts: drops, retransmissions and pause frames show as "
		"latency spikes" },
	[TC_AUDIT_COALESCE] = { TC_AUDIT_COALESCE, "nic-coalesce",
		"interrupt coalescing off or adaptive",
		"a fixed coalescing delay holds every interrupt-driven completion back by up to "
		"rx-usecs; off is lowest latency, adaptive the training default" },
	[TC_AUDIT_RDMA_PORT] = { TC_AUDIT_RDMA_PORT, "rdma-port",
		"RDMA ports PORT_ACTIVE at MTU 4096",
		"a port that is not PORT_ACTIVE carries no RDMA traffic (tests fall back to TCP or "
		"fail); a small active MTU costs bandwidth and adds packets per message" },
	[TC_AUDIT_MEMLOCK] = { TC_AUDIT_MEMLOCK, "memlock",
		"RLIMIT_MEMLOCK large enough for RDMA",
		"verbs pin registered memory against RLIMIT_MEMLOCK: too low and memory "
		"registration fails (ENOMEM) for the verbs probe, perftest, MPI or NCCL" },
	[TC_AUDIT_STEAL] = { TC_AUDIT_STEAL, "steal",
		"no hypervisor steal time on the probe CPUs",
		"on a VM the host runs other guests or its own work on the vCPU's physical CPU: "
		"the vCPU stops for that time (steal, milliseconds at a time), and the shorter "
		"exits it takes without counting them show as hw-noise" },
	[TC_AUDIT_PFC] = { TC_AUDIT_PFC, "lossless-pfc",
		"PFC on the RoCE traffic priority, and on no other",
		"RoCE has no recovery of its own: without PFC a dropped packet is a retransmission "
		"after the QP's ACK timeout (milliseconds: path:retransmit); PFC on more "
		"priorities, or global pause, pauses traffic that is not RoCE's (path:pfc-pause)" },
	[TC_AUDIT_TRUST] = { TC_AUDIT_TRUST, "lossless-trust",
		"trust DSCP (routed RoCE v2)",
		"the NIC and the switches put a packet in its priority by its DSCP or its VLAN "
		"PCP; RoCE v2 is routed, and only the DSCP survives a router: trusting PCP puts "
		"RoCE in the wrong, lossy queue" },
	[TC_AUDIT_ECN] = { TC_AUDIT_ECN, "lossless-ecn",
		"ECN on for the RoCE priority at the notification and reaction points",
		"ECN is the early warning: marked packets make the receiver send CNPs and the "
		"sender slow down before a queue fills; without it congestion shows only as PFC "
		"pauses (path:pfc-pause) or drops (path:retransmit)" },
};

static const char *const status_names[TC_AUDIT_STATUS_COUNT] = {
	[TC_AUDIT_OK] = "ok",
	[TC_AUDIT_UNKNOWN] = "unknown",
	[TC_AUDIT_WARN] = "warn",
	[TC_AUDIT_FAIL] = "fail",
};
/* clang-format on */

const struct tc_audit_info *audit_info(enum tc_audit_check id)
{
	if ((unsigned int)id >= TC_AUDIT_CHECK_COUNT)
		return NULL;
	return &catalogue[id];
}

int audit_check_by_name(const char *name)
{
	for (int i = 0; i < TC_AUDIT_CHECK_COUNT; i++)
		if (!strcmp(catalogue[i].name, name))
			return i;
	return -ENOENT;
}

const char *audit_status_name(enum tc_audit_status s)
{
	return (unsigned int)s < TC_AUDIT_STATUS_COUNT ? status_names[s] : "?";
}

int audit_status_parse(const char *s, enum tc_audit_status *out)
{
	for (int i = 0; i < TC_AUDIT_STATUS_COUNT; i++) {
		if (!strcmp(status_names[i], s)) {
			*out = (enum tc_audit_status)i;
			return 0;
		}
	}
	return -EINVAL;
}

size_t audit_count(const struct tc_audit *a, size_t n[TC_AUDIT_STATUS_COUNT])
{
	size_t total = 0;

	memset(n, 0, TC_AUDIT_STATUS_COUNT * sizeof(n[0]));
	for (int i = 0; i < TC_AUDIT_CHECK_COUNT; i++) {
		if (!a->r[i].present)
			continue;
		n[a->r[i].status]++;
		total++;
	}
	return total;
}

static int set_key(struct tc_trace *t, const char *check, const char *field, const char *val)
{
	char key[64];

	snprintf(key, sizeof(key), "audit.%s.%s", check, field);
	return trace__set_meta(t, key, val);
}

int audit_to_meta(const struct tc_audit *a, struct tc_trace *t)
{
	int err = trace__set_meta(t, "audit.cpus", a->cpus);

	for (int i = 0; i < TC_AUDIT_CHECK_COUNT && !err; i++) {
		const struct tc_audit_result *r = &a->r[i];
		const char *name = catalogue[i].name;

		if (!r->present)
			continue;
		err = set_key(t, name, "status", audit_status_name(r->status));
		err = err ?: set_key(t, name, "summary", r->summary);
		err = err ?: set_key(t, name, "evidence", r->evidence);
		err = err ?: set_key(t, name, "fix", r->fix);
	}
	return err;
}

static const char *get_key(const struct tc_trace *t, const char *check, const char *field)
{
	char key[64];
	const char *v;

	snprintf(key, sizeof(key), "audit.%s.%s", check, field);
	v = trace__meta(t, key);
	return v ? v : "";
}

int audit_from_meta(const struct tc_trace *t, struct tc_audit *a)
{
	int found = 0;

	memset(a, 0, sizeof(*a));
	if (trace__meta(t, "audit.cpus"))
		snprintf(a->cpus, sizeof(a->cpus), "%s", trace__meta(t, "audit.cpus"));
	for (int i = 0; i < TC_AUDIT_CHECK_COUNT; i++) {
		struct tc_audit_result *r = &a->r[i];
		const char *name = catalogue[i].name;

		/* A status this version does not know (a newer writer) reads as unknown. */
		if (!*get_key(t, name, "status"))
			continue;
		if (audit_status_parse(get_key(t, name, "status"), &r->status))
			r->status = TC_AUDIT_UNKNOWN;
		r->present = 1;
		snprintf(r->summary, sizeof(r->summary), "%s", get_key(t, name, "summary"));
		snprintf(r->evidence, sizeof(r->evidence), "%s", get_key(t, name, "evidence"));
		snprintf(r->fix, sizeof(r->fix), "%s", get_key(t, name, "fix"));
		found++;
	}
	return found ? 0 : -ENOENT;
}

/* Copies a (possibly "quoted") value of length n into val. */
static void copy_value(const char *v, size_t n, char *val, size_t len)
{
	if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
		v++;
		n -= 2;
	}
	snprintf(val, len, "%.*s", (int)n, v);
}

/*
 * The next parameter of a command line at *p: its start in *tok, its end returned, *p
 * past it; NULL at the end or at "--" (init's arguments follow). A "quoted" value may
 * hold spaces.
 */
static const char *next_param(const char **p, const char **tok)
{
	const char *end;
	int quoted = 0;

	while (**p == ' ' || **p == '\t' || **p == '\n')
		(*p)++;
	if (!**p)
		return NULL;
	*tok = *p;
	for (end = *p; *end && (quoted || (*end != ' ' && *end != '\t' && *end != '\n')); end++)
		if (*end == '"')
			quoted = !quoted;
	*p = end;
	return end - *tok == 2 && !strncmp(*tok, "--", 2) ? NULL : end;
}

int audit_cmdline_param(const char *cmdline, const char *name, char *val, size_t len)
{
	size_t nlen = strlen(name);
	const char *p = cmdline, *tok, *end;
	int found = 0;

	while ((end = next_param(&p, &tok))) {
		if ((size_t)(end - tok) < nlen || strncmp(tok, name, nlen))
			continue;
		if (tok + nlen == end) {
			found = 1;
			if (len)
				val[0] = 0;
		} else if (tok[nlen] == '=') {
			found = 1;
			copy_value(tok + nlen + 1, (size_t)(end - tok - (ptrdiff_t)nlen - 1), val,
				   len);
		}
	}
	return found;
}

/* The kernel parameters a trace keeps (audit_cmdline_latency()): what places and paces the
 * CPUs, idles them, sizes pages, and costs every kernel entry; the audit's among them. */
/* clang-format off */
static const char *const latency_params[] = {
	"isolcpus", "nohz_full", "nohz", "rcu_nocbs", "rcu_nocb_poll", "irqaffinity",
	"kthread_cpus", "threadirqs", "skew_tick", "nosmt", "preempt", "numa_balancing",
	"idle", "intel_idle.max_cstate", "processor.max_cstate", "cpuidle.off",
	"intel_pstate", "amd_pstate",
	"transparent_hugepage", "hugepagesz", "hugepages", "default_hugepagesz",
	"mitigations", "pti", "intel_iommu", "amd_iommu", "iommu",
	"nmi_watchdog", "nowatchdog", "nosoftlockup", "tsc", "clocksource",
};
/* clang-format on */

/* 1 when the parameter tok..end is one of latency_params, bare or with a value. */
static int is_latency_param(const char *tok, const char *end)
{
	const char *eq = memchr(tok, '=', (size_t)(end - tok));
	size_t n = (size_t)((eq ? eq : end) - tok);

	for (size_t i = 0; i < sizeof(latency_params) / sizeof(latency_params[0]); i++)
		if (strlen(latency_params[i]) == n && !strncmp(tok, latency_params[i], n))
			return 1;
	return 0;
}

size_t audit_cmdline_latency(const char *cmdline, char *out, size_t len)
{
	const char *p = cmdline, *tok, *end;
	size_t n = 0;

	if (len)
		out[0] = 0;
	while ((end = next_param(&p, &tok))) {
		size_t tlen = (size_t)(end - tok);

		if (!is_latency_param(tok, end) || n + !!n + tlen >= len)
			continue;
		n += (size_t)snprintf(out + n, len - n, "%s%.*s", n ? " " : "", (int)tlen, tok);
	}
	return n;
}
