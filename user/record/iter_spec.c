// SPDX-License-Identifier: BSD-2-Clause
/* iter_spec.c - `record --iter SPEC`: presets, syscall and uprobe markers, and their lookup. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_func.h"
#include "iter_spec.h"
#include "lib/log.h"
#include "probe/verbs_hook.h"

static const char *const lib_dirs[] = {
	"/lib/x86_64-linux-gnu",
	"/usr/lib/x86_64-linux-gnu",
	"/lib/aarch64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu",
	"/lib64",
	"/usr/lib64",
	"/usr/local/lib",
	"/lib",
	"/usr/lib",
};

static int syscall_name_ok(const char *s, size_t n)
{
	if (!n || n >= sizeof(((struct tc_mark_point *)0)->syscall))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

static void add_syscall(struct iter_spec *s, enum tc_mark_at at, const char *name, size_t n)
{
	struct tc_mark_point *p = &s->pts[s->n++];

	memset(p, 0, sizeof(*p));
	p->at = at;
	memcpy(p->syscall, name, n);
}

/* "NAME" or "NAME:END" */
static int parse_syscall(struct iter_spec *s, const char *arg)
{
	const char *colon = strchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);

	if (!syscall_name_ok(arg, n) || (colon && !syscall_name_ok(colon + 1, strlen(colon + 1)))) {
		log_err("--iter syscall:%s: give a system call's name (syscall:sendto), or where "
			"the iteration begins and where it returns (syscall:sendto:recvfrom)",
			arg);
		return -EINVAL;
	}
	add_syscall(s, TC_MARK_AT_SYSCALL_ENTER, arg, n);
	if (colon) {
		add_syscall(s, TC_MARK_AT_SYSCALL_EXIT, colon + 1, strlen(colon + 1));
		snprintf(s->what, sizeof(s->what), "%.*s's entry to %s's return", (int)n, arg,
			 colon + 1);
	} else {
		snprintf(s->what, sizeof(s->what), "one entry into %.*s to the next", (int)n, arg);
	}
	return 0;
}

/* "FILE:FUNC" or "FILE:0xOFFSET" */
static int parse_uprobe(struct iter_spec *s, const char *arg)
{
	const char *colon = strrchr(arg, ':');
	struct tc_mark_point *p = &s->pts[0];
	char *end;

	memset(p, 0, sizeof(*p));
	p->at = TC_MARK_AT_UPROBE;
	if (!colon || colon == arg || !colon[1] || (size_t)(colon - arg) >= sizeof(p->path) ||
	    strlen(colon + 1) >= sizeof(p->func)) {
		log_err("--iter uprobe:%s: give a file and a function (uprobe:libfoo:foo_send, "
			"uprobe:./bench:0x1a40)",
			arg);
		return -EINVAL;
	}
	memcpy(p->path, arg, (size_t)(colon - arg));
	if (!strncmp(colon + 1, "0x", 2)) {
		errno = 0;
		p->offset = strtoull(colon + 3, &end, 16);
		if (errno || *end || end == colon + 3) {
			log_err("--iter uprobe:%s: '%s' is not a hexadecimal file offset", arg,
				colon + 1);
			return -EINVAL;
		}
		snprintf(s->what, sizeof(s->what), "one pass through %s+%s to the next", p->path,
			 colon + 1);
	} else {
		snprintf(p->func, sizeof(p->func), "%s", colon + 1);
		snprintf(s->what, sizeof(s->what), "one call of %s (%s) to the next", p->func,
			 p->path);
	}
	s->n = 1;
	return 0;
}

int iter_spec_parse(const char *text, struct iter_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->text = text;
	s->div = 1;
	if (!strcmp(text, "perftest")) {
		s->preset = ITER_PERFTEST;
		s->div = 2;
		snprintf(s->what, sizeof(s->what),
			 "perftest: one post of a send to the next (the provider's post_send)");
		return 0;
	}
	if (!strcmp(text, "mpi")) {
		s->preset = ITER_MPI;
		snprintf(s->what, sizeof(s->what),
			 "mpi: each rank's collective calls, stamped in the ranks by "
			 "libtailcause-mpi (the MPI profiling interface)");
		return 0;
	}
	if (!strcmp(text, "sockperf")) {
		s->preset = ITER_SOCKPERF;
		s->div = 2;
		add_syscall(s, TC_MARK_AT_SYSCALL_ENTER, "sendto", 6);
		add_syscall(s, TC_MARK_AT_SYSCALL_EXIT, "recvfrom", 8);
		snprintf(s->what, sizeof(s->what), "sockperf: sendto's entry to recvfrom's return");
		return 0;
	}
	if (!strncmp(text, "syscall:", 8))
		return parse_syscall(s, text + 8);
	if (!strncmp(text, "uprobe:", 7))
		return parse_uprobe(s, text + 7);
	log_err("--iter: '%s' is not perftest, sockperf, mpi, syscall:NAME[:END] or uprobe:FILE:FUNC",
		text);
	return -EINVAL;
}

/* A readable ELF file (not libc.so's linker script, not a directory). */
static int is_file(const char *path)
{
	char magic[4];
	FILE *f = fopen(path, "rbe");
	int elf = f && fread(magic, 1, 4, f) == 4 && !memcmp(magic, "\177ELF", 4);

	if (f)
		fclose(f);
	return elf;
}

/* out = dir/name[suffix]; 0 where it does not fit. */
static int join(char *out, size_t len, const char *dir, const char *name, const char *suffix)
{
	int n = snprintf(out, len, "%s/%s%s", dir, name, suffix);

	return n > 0 && (size_t)n < len;
}

/* dir/name, dir/name.so, then the first dir/name.so.* in name order: ELF files only. */
static int find_in_dir(const char *dir, const char *name, char *out, size_t len)
{
	struct dirent **list;
	size_t n = strlen(name);
	int found = 0, k;

	if (join(out, len, dir, name, "") && is_file(out))
		return 1;
	if (join(out, len, dir, name, ".so") && is_file(out))
		return 1;
	k = scandir(dir, &list, NULL, alphasort);
	for (int i = 0; i < k; i++) {
		if (!found && !strncmp(list[i]->d_name, name, n) &&
		    !strncmp(list[i]->d_name + n, ".so.", 4)) {
			found = join(out, len, dir, list[i]->d_name, "") && is_file(out);
		}
		free(list[i]);
	}
	if (k >= 0)
		free(list);
	return found;
}

/* Each directory of a colon-separated list (LD_LIBRARY_PATH, PATH). */
static int find_in_list(const char *list, const char *name, int exec, char *out, size_t len)
{
	char dir[PATH_MAX];

	while (list && *list) {
		size_t n = strcspn(list, ":");

		if (n && n < sizeof(dir)) {
			memcpy(dir, list, n);
			dir[n] = 0;
			if (exec) {
				if (join(out, len, dir, name, "") && access(out, X_OK) == 0 &&
				    is_file(out))
					return 1;
			} else if (find_in_dir(dir, name, out, len)) {
				return 1;
			}
		}
		list += n + (list[n] == ':');
	}
	return 0;
}

static int find_file(const char *name, char *out, size_t len)
{
	char found[PATH_MAX];

	if (strchr(name, '/')) {
		if (!realpath(name, found) || !is_file(found))
			return 0;
	} else {
		int ok = find_in_list(getenv("LD_LIBRARY_PATH"), name, 0, found, sizeof(found));

		for (size_t i = 0; !ok && i < sizeof(lib_dirs) / sizeof(lib_dirs[0]); i++)
			ok = find_in_dir(lib_dirs[i], name, found, sizeof(found));
		if (!ok)
			ok = find_in_list(getenv("PATH"), name, 1, found, sizeof(found));
		if (!ok)
			return 0;
	}
	if (strlen(found) >= len)
		return 0;
	memcpy(out, found, strlen(found) + 1);
	return 1;
}

static int resolve_uprobe(struct tc_mark_point *p)
{
	char path[sizeof(p->path)];
	int err;

	if (!find_file(p->path, path, sizeof(path))) {
		if (strchr(p->path, '/') && access(p->path, R_OK) == 0)
			log_err("--iter: uprobe file %s is not an ELF library or executable",
				p->path);
		else if (strchr(p->path, '/'))
			log_err("--iter: uprobe file %s: %s", p->path, strerror(errno));
		else
			log_err("--iter: no library or executable '%s' in LD_LIBRARY_PATH, "
				"/lib/x86_64-linux-gnu, /usr/lib/x86_64-linux-gnu, /lib64, "
				"/usr/lib64, /usr/local/lib, /lib, /usr/lib or PATH",
				p->path);
		return -ENOENT;
	}
	memcpy(p->path, path, sizeof(path));
	if (!p->func[0])
		return 0;
	err = elf_func_offset(p->path, p->func, &p->offset);
	if (err == -ENOENT)
		log_err("--iter: no function '%s' in %s (nm -D --defined-only %s lists what it "
			"exports)",
			p->func, p->path, p->path);
	else if (err)
		log_err("--iter: read %s: %s", p->path, strerror(-err));
	return err ? -ENOENT : 0;
}

static int resolve_syscall(const struct tc_mark_point *p)
{
	static const char *const roots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	char path[160];

	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/events/syscalls/sys_%s_%s", roots[i],
			 p->at == TC_MARK_AT_SYSCALL_ENTER ? "enter" : "exit", p->syscall);
		if (access(path, F_OK) == 0)
			return 0;
	}
	log_err("--iter: no system call '%s' to mark: no tracepoint syscalls/sys_%s_%s under "
		"/sys/kernel/tracing/events (CONFIG_FTRACE_SYSCALLS, or the name is wrong)",
		p->syscall, p->at == TC_MARK_AT_SYSCALL_ENTER ? "enter" : "exit", p->syscall);
	return -ENOENT;
}

static int resolve_perftest(struct iter_spec *s)
{
	struct verbs_hook h[ITER_MAX_POINTS];
	int n = verbs_hooks_find(h, ITER_MAX_POINTS);

	if (n == -E2BIG)
		log_err("--iter perftest: more than %d distinct provider post_send entries to mark",
			ITER_MAX_POINTS);
	if (n < 0) /* else reported where it failed */
		return -ENODEV;
	if (!n) {
		log_err("--iter perftest: no RDMA device: ibv_devinfo lists none, so there is no "
			"provider post_send to mark");
		return -ENODEV;
	}
	for (int i = 0; i < n; i++) {
		struct tc_mark_point *p = &s->pts[s->n++];

		memset(p, 0, sizeof(*p));
		p->at = TC_MARK_AT_UPROBE;
		snprintf(p->path, sizeof(p->path), "%s", h[i].path);
		p->offset = h[i].offset;
	}
	return 0;
}

int iter_spec_resolve(struct iter_spec *s)
{
	int err = 0;

	if (s->preset == ITER_PERFTEST)
		return resolve_perftest(s);
	for (size_t i = 0; i < s->n && !err; i++)
		err = s->pts[i].at == TC_MARK_AT_UPROBE ? resolve_uprobe(&s->pts[i])
							: resolve_syscall(&s->pts[i]);
	return err;
}
