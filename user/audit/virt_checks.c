// SPDX-License-Identifier: BSD-2-Clause
/*
 * virt_checks.c - whether the host is a virtual machine, and how much of the
 * probe CPUs' time its hypervisor has taken (steal time since boot).
 *
 * The CPU says it runs under a hypervisor with the "hypervisor" flag of
 * /proc/cpuinfo (CPUID.1:ECX bit 31 on x86), and which one in CPUID leaf
 * 0x40000000 ("KVMKVMKVM", "Microsoft Hv", ...). Steal is the 8th value of
 * each cpuN line of /proc/stat, in USER_HZ ticks: time the vCPU was runnable
 * but the host ran something else.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "audit_ctx.h"

/* A share of steal at or above this since boot fails (warn below it, ok at none). */
#define STEAL_FAIL_PCT 1.0

/* The hypervisor CPUID names, on this host (not under a root: CPUID is not a file). */
static void cpuid_vendor(char *buf, size_t len)
{
#if defined(__x86_64__) || defined(__i386__)
	static const struct {
		const char *sig, *name;
	} known[] = {
		{"KVMKVMKVM", "KVM"},	       {"Microsoft Hv", "Hyper-V"},
		{"VMwareVMware", "VMware"},    {"XenVMMXenVMM", "Xen"},
		{"TCGTCGTCGTCG", "QEMU TCG"},  {"ACRNACRNACRN", "ACRN"},
		{" lrpepyh  vr", "Parallels"}, {"bhyve bhyve ", "bhyve"},
	};
	unsigned int a, b, c, d;
	char sig[13];

	__cpuid(0x40000000, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = 0;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strncmp(sig, known[i].sig, strlen(known[i].sig))) {
			snprintf(buf, len, "%s", known[i].name);
			return;
		}
#endif
	snprintf(buf, len, "a hypervisor");
}

int audit_hypervisor(const char *root, char *buf, size_t len)
{
	char path[4096], line[4096];
	int vm = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root && strcmp(root, "/") ? root : "");
	f = fopen(path, "re");
	if (!f) {
		buf[0] = 0;
		return -1;
	}
	while (!vm && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5) && strstr(line, " hypervisor"))
			vm = 1;
	fclose(f);
	buf[0] = 0;
	if (vm && (!root || !root[0] || !strcmp(root, "/")))
		cpuid_vendor(buf, len);
	else if (vm)
		snprintf(buf, len, "a hypervisor");
	return vm;
}

/* cpuN's steal and total ticks since boot from /proc/stat; 0, or -1 when not listed. */
static int cpu_ticks(struct audit_ctx *c, int cpu, unsigned long long *steal,
		     unsigned long long *total)
{
	FILE *f = rootfs_fopen(c, "/proc/stat");
	char line[512], want[24];
	int found = -1;

	if (!f)
		return -1;
	snprintf(want, sizeof(want), "cpu%d ", cpu);
	while (found && fgets(line, sizeof(line), f)) {
		unsigned long long v[8] = {0};

		if (strncmp(line, want, strlen(want)))
			continue;
		if (sscanf(line + strlen(want), "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 4)
			break;
		*steal = v[7];
		*total = 0;
		for (int i = 0; i < 8; i++)
			*total += v[i];
		found = 0;
	}
	fclose(f);
	return found;
}

static void check_steal(struct audit_ctx *c)
{
	struct tc_audit_result *r = audit_res(c, TC_AUDIT_STEAL);
	static const char fix[] =
		"ask the provider for dedicated, pinned vCPUs (no CPU overcommit, the host's "
		"own work kept off them), or run the latency-critical job on bare metal";
	char hv[64];
	int vm = audit_hypervisor(c->root, hv, sizeof(hv));

	if (vm < 0) {
		res_note(r, "/proc/cpuinfo: unreadable");
		res_verdict(r, TC_AUDIT_UNKNOWN, "",
			    "cannot tell whether this is a virtual machine");
		return;
	}
	if (!vm) {
		res_note(r, "/proc/cpuinfo: no hypervisor flag");
		res_verdict(r, TC_AUDIT_OK, "", "bare metal: no hypervisor takes the CPUs");
		return;
	}
	res_note(r, "/proc/cpuinfo: hypervisor flag; %s", hv);
	for (int cpu = cpuset_next(&c->probe, -1); cpu >= 0; cpu = cpuset_next(&c->probe, cpu)) {
		unsigned long long steal, total;
		double pct;

		if (cpu_ticks(c, cpu, &steal, &total) || !total) {
			res_note(r, "cpu%d: not in /proc/stat", cpu);
			res_verdict(r, TC_AUDIT_UNKNOWN, "", "no steal count for CPU %d", cpu);
			continue;
		}
		pct = 100.0 * (double)steal / (double)total;
		res_note(r, "cpu%d: steal %.2f s of %.0f s since boot (%.3f %%)", cpu,
			 (double)steal / 100.0, (double)total / 100.0, pct);
		if (pct >= STEAL_FAIL_PCT)
			res_verdict(r, TC_AUDIT_FAIL, fix,
				    "%s has taken %.2f %% of probe CPU %d since boot (steal)", hv,
				    pct, cpu);
		else if (steal)
			res_verdict(r, TC_AUDIT_WARN, fix,
				    "%s has taken %.3f %% of probe CPU %d since boot (steal): each "
				    "time the vCPU stops",
				    hv, pct, cpu);
		else
			res_verdict(r, TC_AUDIT_OK, "", "a VM (%s), no steal on the probe CPUs",
				    hv);
	}
	if (cpuset_next(&c->probe, -1) < 0)
		res_verdict(r, TC_AUDIT_UNKNOWN, "", "a VM (%s); no probe CPUs to check", hv);
}

void virt_checks_run(struct audit_ctx *c)
{
	check_steal(c);
}
