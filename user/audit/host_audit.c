// SPDX-License-Identifier: BSD-2-Clause
/* host_audit.c - runs the check groups and keeps their results, escaped (lib/str.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audit_ctx.h"
#include "lib/str.h"

const struct audit_ops audit_ops_host = {
	.ethtool = nic_checks_ethtool,
	.rdma_ports = rdma_checks_ports,
};

/* Under a root: no ioctl, no verbs, unless the caller brings its own. */
static const struct audit_ops no_ops;

struct tc_audit_result *audit_res(struct audit_ctx *c, enum tc_audit_check id)
{
	struct tc_audit_result *r = &c->out->r[id];

	r->present = 1;
	return r;
}

void res_note(struct tc_audit_result *r, const char *fmt, ...)
{
	size_t len = sizeof(r->evidence), off = strlen(r->evidence);
	va_list ap;
	int n;

	if (off + 4 >= len)
		return;
	if (off)
		off += (size_t)snprintf(r->evidence + off, len - off, "; ");
	va_start(ap, fmt);
	n = vsnprintf(r->evidence + off, len - off, fmt, ap);
	va_end(ap);
	if (n >= 0 && off + (size_t)n >= len)
		memcpy(r->evidence + len - 4, "...", 4);
}

void res_verdict(struct tc_audit_result *r, enum tc_audit_status status, const char *fix,
		 const char *fmt, ...)
{
	va_list ap;

	r->present = 1;
	if (r->summary[0] && status <= r->status)
		return;
	r->status = status;
	snprintf(r->fix, sizeof(r->fix), "%s", fix ? fix : "");
	va_start(ap, fmt);
	vsnprintf(r->summary, sizeof(r->summary), fmt, ap);
	va_end(ap);
}

const char *cpus_phrase(const struct tc_cpuset *s, char *buf, size_t len)
{
	char list[128];

	cpuset_format(s, list, sizeof(list));
	snprintf(buf, len, "CPU%s %s", cpuset_count(s) == 1 ? "" : "s", list);
	return buf;
}

static int set_root(struct audit_ctx *c, const char *root, char *why, size_t len)
{
	struct stat st;

	if (!root || !strcmp(root, "/"))
		return 0;
	if (stat(root, &st)) {
		snprintf(why, len, "--root %s: %s", root, strerror(errno));
		return -ENOENT;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, len, "--root %s: %s", root, strerror(ENOTDIR));
		return -ENOENT;
	}
	snprintf(c->root, sizeof(c->root), "%s", root);
	while (strlen(c->root) > 1 && c->root[strlen(c->root) - 1] == '/')
		c->root[strlen(c->root) - 1] = 0;
	return 0;
}

/* The probe CPUs: as given, or the last two online (the probes' own default). */
static int set_cpus(struct audit_ctx *c, const char *cpus, char *why, size_t len)
{
	struct tc_cpuset off;
	int last;

	if (rootfs_cpulist(c, &c->online, "/sys/devices/system/cpu/online"))
		cpuset_zero(&c->online);
	cpuset_format(&c->online, c->online_list, sizeof(c->online_list));
	if (cpus && !*cpus) {
		/* none: a traced command has no pinned probe threads */
	} else if (cpus) {
		if (cpuset_parse(cpus, &c->probe) || cpuset_empty(&c->probe)) {
			snprintf(why, len, "--cpu: '%s' is not a CPU list (e.g. 2,3 or 2-5)", cpus);
			return -EINVAL;
		}
		cpuset_andnot(&off, &c->probe, &c->online);
		if (!cpuset_empty(&c->online) && !cpuset_empty(&off)) {
			char list[64];

			cpuset_format(&off, list, sizeof(list));
			snprintf(why, len, "--cpu %s: CPU %s not online (online: %s)", cpus, list,
				 c->online_list);
			return -EINVAL;
		}
	} else if ((last = cpuset_last(&c->online)) >= 0) {
		cpuset_add(&c->probe, (unsigned int)last);
		if (cpuset_next(&c->online, -1) != last)
			while (--last >= 0)
				if (cpuset_has(&c->online, (unsigned int)last)) {
					cpuset_add(&c->probe, (unsigned int)last);
					break;
				}
	}
	cpuset_format(&c->probe, c->probe_list, sizeof(c->probe_list));
	return 0;
}

/* s[0..len) escaped in place (lib/str.h), cut where it no longer fits. */
static void escape_in_place(char *s, size_t len)
{
	char tmp[TC_AUDIT_EVIDENCE_LEN];

	if (len > sizeof(tmp) || !str_needs_escape(s))
		return;
	str_escape(tmp, len, s);
	memcpy(s, tmp, strlen(tmp) + 1);
}

/* The checks quote what they read (NIC, device and IRQ names, sysfs values): made safe here. */
static void escape_results(struct tc_audit *a)
{
	for (int i = 0; i < TC_AUDIT_CHECK_COUNT; i++) {
		struct tc_audit_result *r = &a->r[i];

		escape_in_place(r->summary, sizeof(r->summary));
		escape_in_place(r->evidence, sizeof(r->evidence));
		escape_in_place(r->fix, sizeof(r->fix));
	}
}

int host_audit_run(const struct host_audit_opts *o, struct tc_audit *out, char *why, size_t len)
{
	struct audit_ctx *c = calloc(1, sizeof(*c));
	int err;

	if (!c) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	memset(out, 0, sizeof(*out));
	c->out = out;
	err = set_root(c, o->root, why, len);
	err = err ?: set_cpus(c, o->cpus, why, len);
	if (err)
		goto out;
	c->ops = o->ops ? o->ops : c->root[0] ? &no_ops : &audit_ops_host;
	c->have_cmdline = !rootfs_read(c, c->cmdline, sizeof(c->cmdline), "/proc/cmdline");
	c->nic_irq_pattern = o->nic_irq_pattern;
	snprintf(out->cpus, sizeof(out->cpus), "%s", c->probe_list);
	nic_checks_discover(c, o);
	irq_checks_run(c);
	mm_checks_run(c);
	cpu_checks_run(c);
	nic_checks_run(c);
	rdma_checks_run(c);
	virt_checks_run(c);
	lossless_checks_run(c);
	for (int i = 0; i < TC_AUDIT_CHECK_COUNT; i++)
		if (!out->r[i].present)
			res_verdict(audit_res(c, (enum tc_audit_check)i), TC_AUDIT_UNKNOWN, "",
				    "not evaluated");
	escape_results(out);
out:
	free(c);
	return err;
}

int host_audit_store(struct tc_trace *t, const int cpu[2])
{
	struct host_audit_opts o = {0};
	struct tc_audit *a = malloc(sizeof(*a));
	char cpus[32], why[256];
	int err;

	if (!a)
		return -ENOMEM;
	if (cpu)
		snprintf(cpus, sizeof(cpus), "%d,%d", cpu[0], cpu[1]);
	else
		cpus[0] = 0;
	o.cpus = cpus;
	err = host_audit_run(&o, a, why, sizeof(why));
	if (err == -ENOMEM) {
		free(a);
		return err;
	}
	/* An audit that cannot run leaves no snapshot; the report says so. */
	err = err ? 0 : audit_to_meta(a, t);
	free(a);
	return err;
}

size_t host_audit_failing(const struct tc_audit *a)
{
	size_t n[TC_AUDIT_STATUS_COUNT];

	audit_count(a, n);
	return n[TC_AUDIT_FAIL];
}
