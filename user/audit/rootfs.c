// SPDX-License-Identifier: BSD-2-Clause
/*
 * rootfs.c - reads sysfs, procfs and /etc by their logical paths under the
 * audit's root ("" on the host itself, a fixture directory in the tests).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit_ctx.h"

static void vpath(const struct audit_ctx *c, char *buf, size_t len, const char *fmt, va_list ap)
{
	size_t off = (size_t)snprintf(buf, len, "%s", c->root);

	if (off < len)
		vsnprintf(buf + off, len - off, fmt, ap);
}

void rootfs_path(const struct audit_ctx *c, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vpath(c, buf, len, fmt, ap);
	va_end(ap);
}

int rootfs_read(const struct audit_ctx *c, char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vpath(c, path, sizeof(path), fmt, ap);
	va_end(ap);
	buf[0] = 0;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		int err = ferror(f) ? -EIO : 0; /* an empty file is an empty line */

		fclose(f);
		buf[0] = 0;
		return err;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

FILE *rootfs_fopen(const struct audit_ctx *c, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vpath(c, path, sizeof(path), fmt, ap);
	va_end(ap);
	return fopen(path, "re");
}

DIR *rootfs_opendir(const struct audit_ctx *c, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vpath(c, path, sizeof(path), fmt, ap);
	va_end(ap);
	return opendir(path);
}

int rootfs_exists(const struct audit_ctx *c, const char *fmt, ...)
{
	char path[PATH_MAX];
	struct stat st;
	va_list ap;

	va_start(ap, fmt);
	vpath(c, path, sizeof(path), fmt, ap);
	va_end(ap);
	return lstat(path, &st) == 0;
}

int rootfs_link_name(const struct audit_ctx *c, char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	va_list ap;
	ssize_t n;

	va_start(ap, fmt);
	vpath(c, path, sizeof(path), fmt, ap);
	va_end(ap);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = 0;
	while (n > 1 && target[n - 1] == '/')
		target[--n] = 0;
	base = strrchr(target, '/');
	snprintf(buf, len, "%s", base ? base + 1 : target);
	return 0;
}

int rootfs_cpulist(const struct audit_ctx *c, struct tc_cpuset *s, const char *fmt, ...)
{
	char path[PATH_MAX], line[4096];
	va_list ap;
	FILE *f;
	int err;

	va_start(ap, fmt);
	vpath(c, path, sizeof(path), fmt, ap);
	va_end(ap);
	cpuset_zero(s);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	err = cpuset_parse(line, s);
	return err == -ERANGE ? -ERANGE : err ? -EINVAL : 0;
}

/* The actions of IRQ irq from /proc/interrupts: past the per-CPU counts, chip and type. */
static int irq_name_from_proc(const struct audit_ctx *c, unsigned int irq, char *buf, size_t len)
{
	FILE *f = rootfs_fopen(c, "/proc/interrupts");
	char line[4096];
	int ncpu = 0, err = -ENOENT;
	char *save;

	if (!f)
		return -errno;
	if (fgets(line, sizeof(line), f))
		for (char *p = strtok_r(line, " \t\n", &save); p;
		     p = strtok_r(NULL, " \t\n", &save))
			ncpu += !strncmp(p, "CPU", 3);
	while (err && fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		int field = 0;

		if (strtoul(p, &end, 10) != irq || end == p || *end != ':')
			continue;
		line[strcspn(line, "\n")] = 0;
		for (p = end + 1; *p && field < ncpu + 2; field++) {
			while (*p == ' ')
				p++;
			while (*p && *p != ' ')
				p++;
		}
		while (*p == ' ')
			p++;
		snprintf(buf, len, "%s", p);
		err = *p ? 0 : -ENOENT;
	}
	fclose(f);
	return err;
}

int rootfs_irq_name(const struct audit_ctx *c, unsigned int irq, char *buf, size_t len)
{
	if (!rootfs_read(c, buf, len, "/sys/kernel/irq/%u/actions", irq) && buf[0])
		return 0;
	return irq_name_from_proc(c, irq, buf, len);
}
