// SPDX-License-Identifier: BSD-2-Clause
/*
 * irq_checks.c - irqbalance (process and unit state) and NIC IRQ placement:
 * each NIC's IRQs, where they may run (smp_affinity_list) and where they do
 * (effective_affinity_list), against the probe CPUs and the NIC's NUMA node.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_ctx.h"

#define MAX_IRQS 2048 /* per device: mlx5 has one per CPU plus a few */
#define LISTED	 6    /* IRQs named per finding in the evidence */

/* Appends pid to pids for every process named irqbalance; processes seen, or -errno. */
static int find_irqbalance(struct audit_ctx *c, char *pids, size_t len)
{
	DIR *d = rootfs_opendir(c, "/proc");
	struct dirent *de;
	int seen = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char comm[64];

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		seen++;
		if (rootfs_read(c, comm, sizeof(comm), "/proc/%s/comm", de->d_name) ||
		    strcmp(comm, "irqbalance"))
			continue;
		str_appendf(pids, len, "%s%s", pids[0] ? "," : "", de->d_name);
	}
	closedir(d);
	return seen;
}

/* The systemd targets (or SysV runlevel) that start irqbalance at boot, into where. */
static void find_enabled(struct audit_ctx *c, char *where, size_t len)
{
	DIR *d = rootfs_opendir(c, "/etc/systemd/system");
	struct dirent *de;

	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (n < 6 || strcmp(de->d_name + n - 6, ".wants") ||
		    !rootfs_exists(c, "/etc/systemd/system/%s/irqbalance.service", de->d_name))
			continue;
		str_appendf(where, len, "%s%s", where[0] ? ", " : "", de->d_name);
	}
	if (d)
		closedir(d);
	d = rootfs_opendir(c, "/etc/rc2.d");
	while (d && (de = readdir(d)))
		if (de->d_name[0] == 'S' && strstr(de->d_name, "irqbalance"))
			str_appendf(where, len, "%s/etc/rc2.d/%s", where[0] ? ", " : "",
				    de->d_name);
	if (d)
		closedir(d);
}

static void note_unit(struct audit_ctx *c, struct tc_audit_result *r)
{
	char target[64], line[512];
	FILE *f;

	if (!rootfs_link_name(c, target, sizeof(target),
			      "/etc/systemd/system/irqbalance.service") &&
	    !strcmp(target, "null"))
		res_note(r, "irqbalance.service is masked (/etc/systemd/system -> /dev/null)");
	else if (rootfs_exists(c, "/lib/systemd/system/irqbalance.service") ||
		 rootfs_exists(c, "/usr/lib/systemd/system/irqbalance.service"))
		res_note(r, "irqbalance.service is installed");
	else
		res_note(r, "no irqbalance.service in /lib or /usr/lib/systemd/system");
	f = rootfs_fopen(c, "/etc/default/irqbalance");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "IRQBALANCE_BANNED_CPU", 21))
			res_note(r, "/etc/default/irqbalance: %s", line);
	}
	if (f)
		fclose(f);
}

static void check_irqbalance(struct audit_ctx *c)
{
	struct tc_audit_result *r = audit_res(c, TC_AUDIT_IRQBALANCE);
	char pids[128] = "", wants[256] = "";
	int seen = find_irqbalance(c, pids, sizeof(pids));
	int hidden = seen > 0 && !rootfs_exists(c, "/proc/1");

	find_enabled(c, wants, sizeof(wants));
	if (seen < 0)
		res_note(r, "cannot list /proc: %s", strerror(-seen));
	else if (pids[0])
		res_note(r, "running: pid %s (/proc/PID/comm)", pids);
	else
		res_note(r, "no irqbalance among %d processes (/proc/*/comm)%s", seen,
			 hidden ? "; other users' processes are hidden (hidepid)" : "");
	res_note(r, "enabled at boot: %s", wants[0] ? wants : "no (/etc/systemd/system/*.wants)");
	note_unit(c, r);
	if (pids[0])
		res_verdict(r, TC_AUDIT_FAIL,
			    "stop and disable irqbalance: systemctl disable --now irqbalance",
			    "irqbalance is running (pid %s) and will undo manual IRQ affinity",
			    pids);
	else if (wants[0])
		res_verdict(r, TC_AUDIT_WARN, "disable irqbalance: systemctl disable irqbalance",
			    "irqbalance is enabled (%s) and will start at boot", wants);
	else if (seen <= 0 || hidden)
		res_verdict(r, TC_AUDIT_UNKNOWN, "",
			    "irqbalance is not enabled; whether it runs cannot be seen (%s)",
			    seen < 0 ? "/proc unreadable" : "processes hidden");
	else
		res_verdict(r, TC_AUDIT_OK, "", "irqbalance is not running and not enabled");
}

/* A set of IRQs that belong to one NIC, and what is known of its locality. */
struct irq_group {
	char label[96];
	unsigned int irq[MAX_IRQS];
	size_t n;
	int node;		    /* NUMA node, -1 unknown */
	int node_inferred;	    /* -1 reported, but the host has one node */
	struct tc_cpuset node_cpus; /* empty when unknown */
	char source[96];	    /* where the IRQ list came from */
};

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/* "120-135,140" of a sorted list. */
static void format_irqs(const unsigned int *irq, size_t n, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (size_t i = 0; i < n && off < len; i++) {
		size_t j = i;

		while (j + 1 < n && irq[j + 1] == irq[j] + 1)
			j++;
		if (j == i)
			off += (size_t)snprintf(buf + off, len - off, "%s%u", off ? "," : "",
						irq[i]);
		else
			off += (size_t)snprintf(buf + off, len - off, "%s%u-%u", off ? "," : "",
						irq[i], irq[j]);
		i = j;
	}
}

/* The node's CPUs; an unknown node (-1) on a one-node host is that node. */
static void group_locality(struct audit_ctx *c, struct irq_group *g)
{
	int nodes = 0;
	DIR *d;
	struct dirent *de;

	cpuset_zero(&g->node_cpus);
	if (g->node >= 0) {
		rootfs_cpulist(c, &g->node_cpus, "/sys/devices/system/node/node%d/cpulist",
			       g->node);
		return;
	}
	d = rootfs_opendir(c, "/sys/devices/system/node");
	while (d && (de = readdir(d)))
		nodes += !strncmp(de->d_name, "node", 4) && isdigit((unsigned char)de->d_name[4]);
	if (d)
		closedir(d);
	if (nodes <= 1 &&
	    !rootfs_cpulist(c, &g->node_cpus, "/sys/devices/system/node/node0/cpulist")) {
		g->node = 0;
		g->node_inferred = 1;
	}
}

/*
 * IRQs of a device directory: msi_irqs/, else its legacy irq. A virtio device's
 * IRQs belong to the PCI device above it: then the parent's msi_irqs/ (only
 * then: the parent of a PCI NIC is a bridge with IRQs of its own).
 */
static void device_irqs(struct audit_ctx *c, const char *dev, struct irq_group *g)
{
	static const char *const dirs[] = {"msi_irqs", "../msi_irqs"};
	char buf[64], bus[32];
	size_t tries = 1;

	if (!rootfs_link_name(c, bus, sizeof(bus), "%s/subsystem", dev) && !strcmp(bus, "virtio"))
		tries = 2;
	g->node = -1;
	for (size_t i = 0; i < tries && !g->n; i++) {
		DIR *d = rootfs_opendir(c, "%s/%s", dev, dirs[i]);
		struct dirent *de;

		while (d && (de = readdir(d)))
			if (isdigit((unsigned char)de->d_name[0]) && g->n < MAX_IRQS)
				g->irq[g->n++] = (unsigned int)strtoul(de->d_name, NULL, 10);
		if (d) {
			closedir(d);
			snprintf(g->source, sizeof(g->source), "device/%s", dirs[i]);
			if (!rootfs_read(c, buf, sizeof(buf), "%s/%s/numa_node", dev,
					 i ? ".." : "."))
				g->node = atoi(buf);
		}
	}
	if (!g->n && !rootfs_read(c, buf, sizeof(buf), "%s/irq", dev) && atoi(buf) > 0) {
		g->irq[g->n++] = (unsigned int)atoi(buf);
		snprintf(g->source, sizeof(g->source), "device/irq (legacy INTx)");
	}
	if (g->node < 0 && !rootfs_read(c, buf, sizeof(buf), "%s/numa_node", dev))
		g->node = atoi(buf);
	qsort(g->irq, g->n, sizeof(g->irq[0]), cmp_uint);
}

/* IRQs whose name matches the --nic-irq pattern; the node from /proc/irq/N/node. */
static void pattern_irqs(struct audit_ctx *c, struct irq_group *g)
{
	DIR *d = rootfs_opendir(c, "/proc/irq");
	struct dirent *de;
	char name[256], buf[32];

	g->node = -1;
	snprintf(g->label, sizeof(g->label), "IRQs named %s", c->nic_irq_pattern);
	snprintf(g->source, sizeof(g->source), "/proc/irq + names");
	while (d && (de = readdir(d))) {
		unsigned int irq = (unsigned int)strtoul(de->d_name, NULL, 10);

		if (!isdigit((unsigned char)de->d_name[0]) || g->n == MAX_IRQS ||
		    rootfs_irq_name(c, irq, name, sizeof(name)) ||
		    fnmatch(c->nic_irq_pattern, name, 0))
			continue;
		g->irq[g->n++] = irq;
		if (g->node < 0 && !rootfs_read(c, buf, sizeof(buf), "/proc/irq/%u/node", irq))
			g->node = atoi(buf);
	}
	if (d)
		closedir(d);
	qsort(g->irq, g->n, sizeof(g->irq[0]), cmp_uint);
}

/* What the IRQs of a group do, counted and named. */
struct placement {
	size_t on_probe, may_probe, off_node, unreadable;
	char on_probe_list[320], may_probe_list[320], off_node_list[320];
	struct tc_cpuset hit; /* probe CPUs the IRQs fire on */
};

static void list_irq(char *list, size_t len, size_t count, unsigned int irq, const char *name,
		     const struct tc_cpuset *cpus)
{
	char where[64];

	if (count > LISTED)
		return;
	cpuset_format(cpus, where, sizeof(where));
	if (count == LISTED)
		str_appendf(list, len, ", ...");
	else
		str_appendf(list, len, "%s%u %.40s -> %s", list[0] ? ", " : "", irq, name, where);
}

static void place_irq(struct audit_ctx *c, const struct irq_group *g, unsigned int irq,
		      struct placement *p)
{
	struct tc_cpuset allowed, eff, tmp;
	char name[256];

	if (rootfs_irq_name(c, irq, name, sizeof(name)))
		snprintf(name, sizeof(name), "?");
	if (rootfs_cpulist(c, &allowed, "/proc/irq/%u/smp_affinity_list", irq)) {
		p->unreadable++;
		return;
	}
	/* Not every irqchip reports an effective affinity: then it is the allowed set. */
	if (rootfs_cpulist(c, &eff, "/proc/irq/%u/effective_affinity_list", irq) ||
	    cpuset_empty(&eff))
		eff = allowed;
	cpuset_and(&tmp, &eff, &c->probe);
	if (!cpuset_empty(&tmp)) {
		cpuset_or(&p->hit, &p->hit, &tmp);
		list_irq(p->on_probe_list, sizeof(p->on_probe_list), p->on_probe++, irq, name,
			 &eff);
		return;
	}
	cpuset_and(&tmp, &allowed, &c->probe);
	if (!cpuset_empty(&tmp))
		list_irq(p->may_probe_list, sizeof(p->may_probe_list), p->may_probe++, irq, name,
			 &allowed);
	cpuset_andnot(&tmp, &eff, &g->node_cpus);
	if (!cpuset_empty(&g->node_cpus) && !cpuset_empty(&tmp))
		list_irq(p->off_node_list, sizeof(p->off_node_list), p->off_node++, irq, name,
			 &eff);
}

/* "bind the eth0 IRQs to CPUs 0-5 (NUMA node 0): ..." or why no CPU is left. */
static void placement_fix(struct audit_ctx *c, const struct irq_group *g, char *fix, size_t len)
{
	struct tc_cpuset target;
	char cpus[128], irqs[256], node[32] = "", phrase[160];

	cpuset_andnot(&target, cpuset_empty(&g->node_cpus) ? &c->online : &g->node_cpus, &c->probe);
	cpuset_format(&target, cpus, sizeof(cpus));
	format_irqs(g->irq, g->n, irqs, sizeof(irqs));
	if (g->node >= 0)
		snprintf(node, sizeof(node), " (NUMA node %d)", g->node);
	if (cpuset_empty(&target))
		snprintf(fix, len,
			 "no CPU%s is left for the %s IRQs once the probe CPUs %s are taken: run "
			 "the "
			 "probe on other CPUs",
			 node, g->label, c->probe_list);
	else
		snprintf(fix, len,
			 "bind the %s IRQs to %s%s: echo %s > /proc/irq/N/smp_affinity_list for "
			 "each IRQ N in %s",
			 g->label, cpus_phrase(&target, phrase, sizeof(phrase)), node, cpus, irqs);
}

static void check_group(struct audit_ctx *c, struct tc_audit_result *r, struct irq_group *g)
{
	struct placement p = {0};
	char fix[TC_AUDIT_FIX_LEN], nodecpus[128], hit[64];

	if (!g->n) {
		res_note(r, "%s: no IRQs found (%s)", g->label,
			 g->source[0] ? g->source : "no device/msi_irqs, device/irq");
		res_verdict(r, TC_AUDIT_UNKNOWN, "", "%s: no IRQs found", g->label);
		return;
	}
	group_locality(c, g);
	for (size_t i = 0; i < g->n; i++)
		place_irq(c, g, g->irq[i], &p);
	cpuset_format(&g->node_cpus, nodecpus, sizeof(nodecpus));
	res_note(r, "%s: %zu IRQ%s (%s), NUMA node %d%s%s%s", g->label, g->n, g->n == 1 ? "" : "s",
		 g->source, g->node,
		 g->node_inferred ? " (numa_node -1, the host's only node)"
		 : g->node < 0	  ? " (numa_node -1: no locality reported)"
				  : "",
		 cpuset_empty(&g->node_cpus) ? "" : " = CPUs ", nodecpus);
	if (p.on_probe)
		res_note(r, "on the probe CPUs: %s", p.on_probe_list);
	if (p.may_probe)
		res_note(r, "allowed on probe CPUs: %s", p.may_probe_list);
	if (p.off_node)
		res_note(r, "off node %d: %s", g->node, p.off_node_list);
	if (p.unreadable)
		res_note(r, "%zu IRQs without /proc/irq/N/smp_affinity_list", p.unreadable);
	placement_fix(c, g, fix, sizeof(fix));
	if (p.on_probe)
		res_verdict(r, TC_AUDIT_FAIL, fix, "%zu IRQ%s of %s on probe %s", p.on_probe,
			    p.on_probe == 1 ? "" : "s", g->label,
			    cpus_phrase(&p.hit, hit, sizeof(hit)));
	else if (p.off_node)
		res_verdict(r, TC_AUDIT_WARN, fix, "%zu IRQ%s of %s off its NUMA node %d",
			    p.off_node, p.off_node == 1 ? "" : "s", g->label, g->node);
	else if (p.may_probe)
		res_verdict(r, TC_AUDIT_WARN, fix, "%zu IRQ%s of %s may move onto the probe CPUs",
			    p.may_probe, p.may_probe == 1 ? "" : "s", g->label);
	else if (p.unreadable == g->n)
		res_verdict(r, TC_AUDIT_UNKNOWN, "", "%s: IRQ affinities unreadable", g->label);
	else
		res_verdict(r, TC_AUDIT_OK, "", "%s: %zu IRQs off the probe CPUs%s", g->label, g->n,
			    cpuset_empty(&g->node_cpus) ? "" : ", on the NIC's NUMA node");
}

static void check_nic_irqs(struct audit_ctx *c)
{
	struct tc_audit_result *r = audit_res(c, TC_AUDIT_NIC_IRQ);
	struct irq_group *g = malloc(sizeof(*g));
	size_t groups = 0;

	if (!g) {
		res_verdict(r, TC_AUDIT_UNKNOWN, "", "out of memory");
		return;
	}
	for (size_t i = 0; i < c->n_nics; i++) {
		const struct audit_nic *n = &c->nics[i];
		int dup = 0;

		for (size_t k = 0; k < i && !dup; k++)
			dup = !strcmp(c->nics[k].dev, n->dev);
		if (dup)
			continue;
		memset(g, 0, sizeof(*g));
		snprintf(g->label, sizeof(g->label), "%s", n->rdma[0] ? n->rdma : n->ifname);
		if (!n->dev[0]) {
			int gone = !n->rdma[0] && !rootfs_exists(c, "/sys/class/net/%s", n->ifname);

			res_note(r, "%s: %s", g->label,
				 gone ? "no such interface (/sys/class/net)"
				      : "no device directory (a virtual or software device)");
			res_verdict(r, TC_AUDIT_UNKNOWN, "", "%s %s", g->label,
				    gone ? "does not exist" : "has no device IRQs");
			continue;
		}
		device_irqs(c, n->dev, g);
		check_group(c, r, g);
		groups++;
	}
	if (c->nic_irq_pattern) {
		memset(g, 0, sizeof(*g));
		pattern_irqs(c, g);
		check_group(c, r, g);
		groups++;
	}
	if (!groups && !c->n_nics) {
		res_note(r, "%s", c->no_nic);
		res_verdict(r, TC_AUDIT_UNKNOWN, "", "no NIC to check: %s", c->no_nic);
	}
	free(g);
}

void irq_checks_run(struct audit_ctx *c)
{
	check_irqbalance(c);
	check_nic_irqs(c);
}
