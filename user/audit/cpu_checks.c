// SPDX-License-Identifier: BSD-2-Clause
/*
 * cpu_checks.c - what the probe CPUs run under: the frequency governor and
 * driver, the cpuidle states they may enter (and the kernel parameters that
 * limit them), and isolation (isolcpus, nohz_full, rcu_nocbs).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_ctx.h"

#define CPU_DIR "/sys/devices/system/cpu"
/* Exit latencies: above SHALLOW_US a state is deep enough to warn, above DEEP_US to fail. */
#define SHALLOW_US 2
#define DEEP_US	   20
#define MAX_STATES 16

static void no_probe_cpus(struct audit_ctx *c, enum tc_audit_check id)
{
	struct tc_audit_result *r = audit_res(c, id);

	res_note(r, "no probe CPUs: a traced command (record -- CMD) has none, or " CPU_DIR
		    "/online is unreadable and no --cpu was given");
	res_verdict(r, TC_AUDIT_UNKNOWN, "", "no probe CPUs to check");
}

static void check_governor(struct audit_ctx *c)
{
	struct tc_audit_result *r = audit_res(c, TC_AUDIT_GOVERNOR);
	struct tc_cpuset slow;
	char gov[64], drv[64], epp[64], list[64];

	cpuset_zero(&slow);
	for (int cpu = cpuset_next(&c->probe, -1); cpu >= 0; cpu = cpuset_next(&c->probe, cpu)) {
		int err = rootfs_read(c, gov, sizeof(gov),
				      CPU_DIR "/cpu%d/cpufreq/scaling_governor", cpu);

		if (err) {
			res_note(r, "cpu%d: " CPU_DIR "/cpu%d/cpufreq/scaling_governor: %s", cpu,
				 cpu, strerror(-err));
			res_verdict(
				r, TC_AUDIT_UNKNOWN, "",
				"no cpufreq on CPU %d (no frequency-scaling driver: a VM, or the "
				"firmware sets the clock)",
				cpu);
			continue;
		}
		if (rootfs_read(c, drv, sizeof(drv), CPU_DIR "/cpu%d/cpufreq/scaling_driver", cpu))
			snprintf(drv, sizeof(drv), "?");
		if (rootfs_read(c, epp, sizeof(epp),
				CPU_DIR "/cpu%d/cpufreq/energy_performance_preference", cpu))
			epp[0] = 0;
		res_note(r, "cpu%d: governor %s, driver %s%s%s", cpu, gov, drv,
			 epp[0] ? ", energy_performance_preference " : "", epp);
		if (strcmp(gov, "performance")) {
			cpuset_add(&slow, (unsigned int)cpu);
			res_verdict(r, TC_AUDIT_WARN, "", "probe CPU %d runs the %s governor (%s)",
				    cpu, gov, drv);
		} else {
			res_verdict(r, TC_AUDIT_OK, "",
				    "the probe CPUs run the performance governor");
		}
	}
	if (!cpuset_empty(&slow)) {
		cpuset_format(&slow, list, sizeof(list));
		snprintf(r->fix, sizeof(r->fix),
			 "cpupower -c %s frequency-set -g performance (or echo performance "
			 "> " CPU_DIR "/cpuN/cpufreq/scaling_governor)",
			 list);
	}
}

/* The kernel parameters that cap C-states, noted; 1 when one limits them to C1 or polling. */
static int cstate_params(struct audit_ctx *c, struct tc_audit_result *r)
{
	static const char *const params[] = {"intel_idle.max_cstate", "processor.max_cstate",
					     "idle"};
	char val[64], seen[256] = "";
	int limited = 0;

	if (!c->have_cmdline) {
		res_note(r, "/proc/cmdline unreadable");
		return 0;
	}
	for (size_t i = 0; i < 3; i++) {
		if (!audit_cmdline_param(c->cmdline, params[i], val, sizeof(val)))
			continue;
		str_appendf(seen, sizeof(seen), "%s%s=%s", seen[0] ? " " : "", params[i], val);
		if (i < 2 ? atoi(val) <= 1 : !strcmp(val, "poll") || !strcmp(val, "halt"))
			limited = 1;
	}
	if (seen[0])
		res_note(r, "/proc/cmdline: %s", seen);
	else
		res_note(r,
			 "/proc/cmdline: no intel_idle.max_cstate, processor.max_cstate or idle=");
	return limited;
}

/* Notes cpu's states; returns the deepest enabled exit latency (-1: no cpuidle) and marks
 * the enabled states deeper than SHALLOW_US in *deep. */
static int cpu_states(struct audit_ctx *c, struct tc_audit_result *r, int cpu, unsigned int *deep,
		      char *names, size_t len)
{
	char text[512] = "", name[32], lat[32], dis[16];
	int worst = -1;

	for (int s = 0; s < MAX_STATES; s++) {
		long us;

		if (rootfs_read(c, name, sizeof(name), CPU_DIR "/cpu%d/cpuidle/state%d/name", cpu,
				s))
			break;
		if (rootfs_read(c, lat, sizeof(lat), CPU_DIR "/cpu%d/cpuidle/state%d/latency", cpu,
				s))
			snprintf(lat, sizeof(lat), "?");
		if (rootfs_read(c, dis, sizeof(dis), CPU_DIR "/cpu%d/cpuidle/state%d/disable", cpu,
				s))
			snprintf(dis, sizeof(dis), "0");
		us = atol(lat);
		str_appendf(text, sizeof(text), "%s%s %sus%s", text[0] ? ", " : "", name, lat,
			    strcmp(dis, "0") ? " (disabled)" : "");
		if (strcmp(dis, "0"))
			continue;
		worst = worst < (int)us ? (int)us : worst;
		if (us > SHALLOW_US && !(*deep & (1u << s))) {
			*deep |= 1u << s;
			str_appendf(names, len, "%s%s", names[0] ? ", " : "", name);
		}
	}
	if (text[0])
		res_note(r, "cpu%d: %s", cpu, text);
	return text[0] ? (worst < 0 ? 0 : worst) : -1;
}

static void cstates_fix(struct audit_ctx *c, unsigned int deep, char *fix, size_t len)
{
	char states[64] = "";

	for (int s = 0; s < MAX_STATES; s++)
		if (deep & (1u << s))
			str_appendf(states, sizeof(states), "%s%d", states[0] ? "," : "", s);
	snprintf(fix, len,
		 "disable them now: echo 1 > " CPU_DIR "/cpuN/cpuidle/stateK/disable for N in %s, "
		 "K in %s; at boot: intel_idle.max_cstate=1 processor.max_cstate=1",
		 c->probe_list, states);
}

static void check_cstates(struct audit_ctx *c)
{
	struct tc_audit_result *r = audit_res(c, TC_AUDIT_CSTATES);
	char drv[64], names[128] = "", fix[TC_AUDIT_FIX_LEN];
	int limited, worst = -1, none = 0;
	unsigned int deep = 0;

	if (!rootfs_read(c, drv, sizeof(drv), CPU_DIR "/cpuidle/current_driver"))
		res_note(r, "cpuidle driver %s", drv);
	limited = cstate_params(c, r);
	for (int cpu = cpuset_next(&c->probe, -1); cpu >= 0; cpu = cpuset_next(&c->probe, cpu)) {
		int w = cpu_states(c, r, cpu, &deep, names, sizeof(names));

		none += w < 0;
		worst = w > worst ? w : worst;
	}
	cstates_fix(c, deep, fix, sizeof(fix));
	if (worst > DEEP_US)
		res_verdict(r, TC_AUDIT_FAIL, fix,
			    "deep C-states enabled on the probe CPUs (%s; exit up to %d us)", names,
			    worst);
	else if (worst > SHALLOW_US)
		res_verdict(r, TC_AUDIT_WARN, fix,
			    "C-states with exits up to %d us enabled on the probe CPUs (%s)", worst,
			    names);
	else if (worst >= 0)
		res_verdict(r, TC_AUDIT_OK, "", "no C-state deeper than %d us on the probe CPUs",
			    SHALLOW_US);
	if (none && limited)
		res_verdict(r, TC_AUDIT_OK, "", "C-states limited on the kernel command line");
	else if (none)
		res_verdict(r, TC_AUDIT_UNKNOWN, "",
			    "no cpuidle states to read (" CPU_DIR "/cpuN/cpuidle missing)");
}

/* A cmdline CPU list: isolcpus=[flags,]list, "all", or a plain list; 0 or -errno. */
static int param_cpus(struct audit_ctx *c, const char *name, struct tc_cpuset *s, char *val,
		      size_t len)
{
	const char *p = val;

	cpuset_zero(s);
	if (!audit_cmdline_param(c->cmdline, name, val, len))
		return -ENOENT;
	while (isalpha((unsigned char)*p) && strcmp(p, "all")) {
		p = strchr(p, ',');
		if (!p)
			return -EINVAL;
		p++;
	}
	if (!strcmp(p, "all")) {
		*s = c->online;
		return 0;
	}
	return cpuset_parse(p, s) ? -EINVAL : 0;
}

static void check_isolation(struct audit_ctx *c)
{
	static const char *const params[] = {"isolcpus", "nohz_full", "rcu_nocbs"};
	struct tc_audit_result *r = audit_res(c, TC_AUDIT_ISOLATION);
	char val[256], missing[64] = "", fix[TC_AUDIT_FIX_LEN] = "boot with", cpus[96];
	struct tc_cpuset s, in;
	int covered = 0;

	if (!c->have_cmdline) {
		res_note(r, "/proc/cmdline unreadable");
		res_verdict(r, TC_AUDIT_UNKNOWN, "", "the kernel command line cannot be read");
		return;
	}
	for (size_t i = 0; i < 3; i++) {
		int err = param_cpus(c, params[i], &s, val, sizeof(val));

		cpuset_and(&in, &c->probe, &s);
		if (err == -ENOENT)
			res_note(r, "/proc/cmdline: no %s=", params[i]);
		else
			res_note(r, "/proc/cmdline: %s=%s%s", params[i], val,
				 err ? " (not understood)" : "");
		if (!err && !cpuset_empty(&c->probe) &&
		    cpuset_count(&in) == cpuset_count(&c->probe)) {
			covered++;
			continue;
		}
		str_appendf(missing, sizeof(missing), "%s%s", missing[0] ? ", " : "", params[i]);
		str_appendf(fix, sizeof(fix), " %s=%s%s", params[i], i ? "" : "managed_irq,domain,",
			    c->probe_list);
	}
	if (!rootfs_read(c, val, sizeof(val), CPU_DIR "/isolated"))
		res_note(r, CPU_DIR "/isolated = %s", val[0] ? val : "(none)");
	if (!rootfs_read(c, val, sizeof(val), CPU_DIR "/nohz_full"))
		res_note(r, CPU_DIR "/nohz_full = %s",
			 val[0] && strcmp(val, "(null)") ? val : "(none)");
	cpus_phrase(&c->probe, cpus, sizeof(cpus));
	str_appendf(fix, sizeof(fix), " on the kernel command line, then run the probe on %s",
		    cpus);
	if (covered == 3)
		res_verdict(r, TC_AUDIT_OK, "", "probe %s in isolcpus, nohz_full and rcu_nocbs",
			    cpus);
	else if (!covered)
		res_verdict(r, TC_AUDIT_WARN, fix,
			    "probe %s not isolated (no isolcpus, nohz_full or rcu_nocbs)", cpus);
	else
		res_verdict(r, TC_AUDIT_WARN, fix, "probe %s not in %s", cpus, missing);
}

void cpu_checks_run(struct audit_ctx *c)
{
	if (cpuset_empty(&c->probe)) {
		no_probe_cpus(c, TC_AUDIT_GOVERNOR);
		no_probe_cpus(c, TC_AUDIT_CSTATES);
		no_probe_cpus(c, TC_AUDIT_ISOLATION);
		return;
	}
	check_governor(c);
	check_cstates(c);
	check_isolation(c);
}
