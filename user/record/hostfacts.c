// SPDX-License-Identifier: BSD-2-Clause
/* hostfacts.c - host facts and IRQ names, read from procfs and sysfs. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "audit/host_audit.h"
#include "core/model/audit.h"
#include "hostfacts.h"

/* Reads the first line of path into buf without the newline; 0 or -errno. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int meta_from_file(struct tc_trace *t, const char *key, const char *path)
{
	char buf[1024];

	if (read_line(path, buf, sizeof(buf)))
		return 0;
	return trace__set_meta(t, key, buf);
}

static int count_numa_nodes(void)
{
	DIR *d = opendir("/sys/devices/system/node");
	struct dirent *de;
	int n = 0;

	if (!d)
		return 1;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "node", 4) && isdigit((unsigned char)de->d_name[4]))
			n++;
	closedir(d);
	return n ? n : 1;
}

static int cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		snprintf(buf, len, "%s", colon + 2);
		buf[strcspn(buf, "\n")] = 0;
		fclose(f);
		return 0;
	}
	fclose(f);
	return -ENOENT;
}

/*
 * C-states of cpu0 (host.cpuidle.state<N>.name / .latency_us / .disabled): the
 * analyzer charges an idle exit the state's exit latency.
 */
static int cpuidle_states(struct tc_trace *t)
{
	static const char *const files[] = {"name", "latency", "disable"};
	static const char *const keys[] = {"name", "latency_us", "disabled"};
	int err = 0;

	for (int n = 0; n < 32 && !err; n++) {
		for (size_t f = 0; f < 3 && !err; f++) {
			char path[128], key[64], buf[64];

			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu0/cpuidle/state%d/%s", n, files[f]);
			if (read_line(path, buf, sizeof(buf))) {
				if (f == 0)
					return 0; /* no state n: done */
				continue;
			}
			snprintf(key, sizeof(key), "host.cpuidle.state%d.%s", n, keys[f]);
			err = trace__set_meta(t, key, buf);
		}
	}
	return err;
}

/* host.cmdline: only the kernel parameters that bear on latency (audit_cmdline_latency()). */
static int cmdline_latency(struct tc_trace *t)
{
	char line[4096], kept[1024];

	if (read_line("/proc/cmdline", line, sizeof(line)))
		return 0;
	audit_cmdline_latency(line, kept, sizeof(kept));
	return trace__set_meta(t, "host.cmdline", kept);
}

int hostfacts_collect(struct tc_trace *t)
{
	struct utsname u;
	char buf[512];
	int err = 0;

	if (gethostname(buf, sizeof(buf)) == 0)
		err = trace__set_meta(t, "host.name", buf);
	if (!err && uname(&u) == 0) {
		snprintf(buf, sizeof(buf), "%s %s", u.release, u.machine);
		err = trace__set_meta(t, "host.kernel", buf);
	}
	if (!err) {
		snprintf(buf, sizeof(buf), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
		err = trace__set_meta(t, "host.cpus", buf);
	}
	if (!err) {
		snprintf(buf, sizeof(buf), "%d", count_numa_nodes());
		err = trace__set_meta(t, "host.numa_nodes", buf);
	}
	if (!err && cpu_model(buf, sizeof(buf)) == 0)
		err = trace__set_meta(t, "host.cpu_model", buf);
	if (!err)
		err = meta_from_file(
			t, "host.clocksource",
			"/sys/devices/system/clocksource/clocksource0/current_clocksource");
	if (!err)
		err = meta_from_file(t, "host.thp_enabled",
				     "/sys/kernel/mm/transparent_hugepage/enabled");
	if (!err)
		err = meta_from_file(t, "host.thp_defrag",
				     "/sys/kernel/mm/transparent_hugepage/defrag");
	if (!err)
		err = cmdline_latency(t);
	if (!err)
		err = meta_from_file(t, "host.cpuidle_driver",
				     "/sys/devices/system/cpu/cpuidle/current_driver");
	if (!err)
		err = cpuidle_states(t);
	if (!err && audit_hypervisor(NULL, buf, sizeof(buf)) >= 0)
		err = trace__set_meta(t, "host.hypervisor", buf[0] ? buf : "none");
	return err;
}

/* Fallback: the action names at the end of a /proc/interrupts line. */
static int irq_names_from_proc(struct tc_trace *t)
{
	FILE *f = fopen("/proc/interrupts", "re");
	char line[4096];
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int err = 0;

	if (!f)
		return 0;
	while (!err && fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		unsigned long irq = strtoul(p, &end, 10);
		int field = 0;

		if (end == p || *end != ':')
			continue;
		line[strcspn(line, "\n")] = 0;
		p = end + 1;
		/* per-CPU counts, then chip, then hwirq-type, then the actions */
		while (*p && field < ncpu + 2) {
			while (*p == ' ')
				p++;
			while (*p && *p != ' ')
				p++;
			field++;
		}
		while (*p == ' ')
			p++;
		if (*p)
			err = trace__add_irq_name(t, (uint32_t)irq, p);
	}
	fclose(f);
	return err;
}

int hostfacts_irq_names(struct tc_trace *t)
{
	DIR *d = opendir("/sys/kernel/irq");
	struct dirent *de;
	int err = 0, n = 0;

	if (!d)
		return irq_names_from_proc(t);
	while (!err && (de = readdir(d))) {
		char path[300], name[256];

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/irq/%s/actions", de->d_name);
		if (read_line(path, name, sizeof(name)) || !name[0])
			continue;
		err = trace__add_irq_name(t, (uint32_t)strtoul(de->d_name, NULL, 10), name);
		n++;
	}
	closedir(d);
	if (!err && n == 0)
		return irq_names_from_proc(t);
	return err;
}

/* Grows *p to hold need elements of sz bytes, doubling; 0 or -ENOMEM. */
static int grow_array(void **p, size_t *cap, size_t need, size_t sz)
{
	size_t n = *cap ? *cap : 4096;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * sz);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

static int cmp_ksym(const void *x, const void *y)
{
	const struct ksym *a = x, *b = y; /* an alias at the same address: the first name first */

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->name < b->name ? -1 : a->name > b->name;
}

int hostfacts_ksyms_load(struct ksyms *k)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	int err = 0;

	memset(k, 0, sizeof(*k));
	if (!f)
		return 0; /* no names: each function is unnamed#<id> */
	while (!err && fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[256];
		size_t len;

		/* "ffffffff81000000 T _stext" or "... t rxe_rcv\t[rdma_rxe]": functions only */
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !addr ||
		    !strchr("tTwW", type))
			continue;
		len = strlen(name) + 1;
		err = grow_array((void **)&k->v, &k->cap, k->n + 1, sizeof(*k->v))
			      ?: grow_array((void **)&k->names, &k->names_cap, k->names_len + len,
					    1);
		if (err)
			break;
		memcpy(k->names + k->names_len, name, len);
		k->v[k->n++] = (struct ksym){addr, k->names_len};
		k->names_len += len;
	}
	fclose(f);
	if (err)
		hostfacts_ksyms_free(k);
	else if (k->n)
		qsort(k->v, k->n, sizeof(*k->v), cmp_ksym);
	return err;
}

void hostfacts_ksyms_free(struct ksyms *k)
{
	free(k->v);
	free(k->names);
	memset(k, 0, sizeof(*k));
}

/* The first name k gives addr, or NULL. */
static const char *ksym_name(const struct ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;

	while (lo < hi) { /* the first entry at addr */
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < k->n && k->v[lo].addr == addr ? k->names + k->v[lo].name : NULL;
}

int hostfacts_ksyms(struct tc_trace *t, const struct func_ids *f, size_t from,
		    const struct ksyms *k)
{
	int err = 0;

	for (size_t i = from; i < f->n && !err; i++)
		err = func_ids_name(t, i + 1, ksym_name(k, f->addr[i]));
	return err;
}

int hostfacts_siblings(int cpu, struct tc_cpuset *out)
{
	char path[128], list[256];
	int err;

	cpuset_zero(out);
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
		 cpu);
	err = read_line(path, list, sizeof(list));
	if (err)
		return err;
	if (cpuset_parse(list, out)) {
		cpuset_zero(out);
		return -EINVAL;
	}
	return 0;
}
