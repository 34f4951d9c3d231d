// SPDX-License-Identifier: BSD-2-Clause
/*
 * tracer_select.c - which of a concern's programs this kernel runs: tp_btf
 * where its BTF has the tracepoint, else the classic twin where tracefs has
 * it; a classic program without a twin where tracefs has its event;
 * fentry/fexit where the function is in BTF; task storage only beside
 * tp_btf programs. Everything left out gets a status row saying why.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "lib/log.h"
#include "tracer_internal.h"

static const char *tracefs_root(void)
{
	static const char *const roots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	char path[128];

	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/events", roots[i]);
		if (access(path, F_OK) == 0)
			return roots[i];
	}
	/* Classic tracepoints need tracefs for their ids; mount it where it belongs. */
	if (mount("nodev", roots[0], "tracefs", 0, NULL) == 0) {
		log_dbg("mounted tracefs on %s", roots[0]);
		return roots[0];
	}
	return NULL;
}

/* "tp/sched/sched_switch" -> exists under tracefs? */
static int classic_tp_exists(const char *sec)
{
	const char *root = tracefs_root();
	char path[256];

	if (!root || strncmp(sec, "tp/", 3))
		return 0;
	snprintf(path, sizeof(path), "%s/events/%s", root, sec + 3);
	return access(path, F_OK) == 0;
}

/* "tp_btf/sched_switch" -> does vmlinux BTF have btf_trace_sched_switch? */
static int btf_tp_exists(const struct tracer *t, const char *sec)
{
	char name[96];

	if (!t->vmlinux_btf || strncmp(sec, "tp_btf/", 7))
		return 0;
	snprintf(name, sizeof(name), "btf_trace_%s", sec + 7);
	return btf__find_by_name_kind(t->vmlinux_btf, name, BTF_KIND_TYPEDEF) >= 0;
}

/* Is func a function in the kernel's BTF (vmlinux or a loaded module's)? */
static int kernel_has_func(const struct tracer *t, const char *func)
{
	struct dirent *de;
	int found = 0;
	DIR *d;

	if (!t->vmlinux_btf)
		return 0;
	if (btf__find_by_name_kind(t->vmlinux_btf, func, BTF_KIND_FUNC) >= 0)
		return 1;
	d = opendir("/sys/kernel/btf");
	while (d && !found && (de = readdir(d))) {
		char path[300];
		struct btf *mod;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "vmlinux"))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/btf/%s", de->d_name);
		mod = btf__parse_split(path, t->vmlinux_btf);
		if (!mod)
			continue;
		found = btf__find_by_name_kind(mod, func, BTF_KIND_FUNC) >= 0;
		btf__free(mod);
	}
	if (d)
		closedir(d);
	return found;
}

/* The stem of a twin: "tc_sched_switch_btf" -> length of "tc_sched_switch". */
static size_t stem_len(const char *prog)
{
	const char *us = strrchr(prog, '_');

	return us ? (size_t)(us - prog) : strlen(prog);
}

static struct bpf_program *twin_of(struct bpf_object *obj, struct bpf_program *p)
{
	const char *name = bpf_program__name(p);
	size_t n = stem_len(name);
	struct bpf_program *q;

	bpf_object__for_each_program (q, obj) {
		const char *qn = bpf_program__name(q);

		if (q != p && stem_len(qn) == n && !strncmp(qn, name, n))
			return q;
	}
	return NULL;
}

struct tc_prog_status *tracer_status_add(struct tracer *t, const char *concern,
					 const struct bpf_program *p)
{
	struct tc_prog_status *s;

	if (t->n_status >= MAX_PROGS)
		return NULL;
	s = &t->status[t->n_status++];
	memset(s, 0, sizeof(*s));
	snprintf(s->concern, sizeof(s->concern), "%s", concern);
	snprintf(s->prog, sizeof(s->prog), "%.*s", (int)stem_len(bpf_program__name(p)),
		 bpf_program__name(p));
	snprintf(s->target, sizeof(s->target), "%s", bpf_program__section_name(p));
	return s;
}

/* Does /sys/kernel/btf hold any module's BTF (a driver's functions can be traced)? */
static int has_module_btf(void)
{
	struct dirent *de;
	int found = 0;
	DIR *d = opendir("/sys/kernel/btf");

	while (d && !found && (de = readdir(d)))
		found = de->d_name[0] != '.' && strcmp(de->d_name, "vmlinux");
	if (d)
		closedir(d);
	return found;
}

/* fentry/fexit programs: load only where the kernel has the function. */
static void select_fentry(struct tracer *t, const char *concern, struct bpf_program *p,
			  const char *sec)
{
	const char *func = strchr(sec, '/') + 1;
	struct tc_prog_status *s;
	int ok = kernel_has_func(t, func);

	bpf_program__set_autoload(p, ok);
	if (ok || strncmp(sec, "fentry/", 7))
		return; /* one status row per function: the fentry side */
	s = tracer_status_add(t, concern, p);
	if (s && t->vmlinux_btf && !has_module_btf())
		snprintf(s->reason, sizeof(s->reason),
			 "function %s not in this kernel's BTF (it has no BTF of modules, "
			 "/sys/kernel/btf/<module>: before 5.11)",
			 func);
	else if (s)
		snprintf(s->reason, sizeof(s->reason),
			 "function %s not in this kernel's BTF (driver not loaded?)", func);
}

/*
 * A classic tracepoint program without a tp_btf twin (an event with no BTF-typed
 * form worth having: a raw_syscalls program would run on every system call): it
 * loads where tracefs has its event, else it gets a status row saying why. A twin
 * is left to its tp_btf side.
 */
static void select_lone_classic(struct tracer *t, const char *concern, struct bpf_object *obj,
				struct bpf_program *p, const char *sec, int syscall_tps)
{
	struct bpf_program *twin = twin_of(obj, p);
	struct tc_prog_status *s;
	int ok;

	if (twin && !strncmp(bpf_program__section_name(twin), "tp_btf/", 7))
		return;
	if (!syscall_tps && !strncmp(sec, "tp/syscalls/", 12)) {
		bpf_program__set_autoload(p, false);
		s = tracer_status_add(t, concern, p);
		if (s)
			snprintf(s->reason, sizeof(s->reason),
				 "needs --signal-ends: a system-call tracepoint puts "
				 "every system call of the machine on its slow path");
		return;
	}
	ok = classic_tp_exists(sec);
	bpf_program__set_autoload(p, ok);
	if (ok)
		return;
	s = tracer_status_add(t, concern, p);
	if (s)
		snprintf(s->reason, sizeof(s->reason),
			 "tracepoint %s missing in this kernel (no tracefs event; it has no tp_btf "
			 "twin)",
			 sec + 3);
}

/* Programs a concern will load. */
size_t tracer_n_autoload(struct bpf_object *obj)
{
	struct bpf_program *p;
	size_t n = 0;

	bpf_object__for_each_program (p, obj)
		n += bpf_program__autoload(p) != 0;
	return n;
}

/*
 * Picks one program of each twin pair before load: tp_btf where the kernel has
 * it (and no fallback is forced), else the classic tracepoint. A pair with
 * neither gets a status row with the reason and loads nothing; so does a lone
 * classic program whose event tracefs lacks.
 */
void tracer_select_programs(struct tracer *t, const char *concern, struct bpf_object *obj,
			    int fallback, int syscall_tps)
{
	struct bpf_program *p, *twin;

	bpf_object__for_each_program (p, obj) {
		const char *sec = bpf_program__section_name(p);
		struct tc_prog_status *s;
		int btf_ok, tp_ok;

		if (!strncmp(sec, "fentry/", 7) || !strncmp(sec, "fexit/", 6)) {
			select_fentry(t, concern, p, sec);
			continue;
		}
		if (!strncmp(sec, "tp/", 3)) {
			select_lone_classic(t, concern, obj, p, sec, syscall_tps);
			continue;
		}
		if (strncmp(sec, "tp_btf/", 7))
			continue;
		twin = twin_of(obj, p);
		btf_ok = !fallback && btf_tp_exists(t, sec);
		tp_ok = twin && classic_tp_exists(bpf_program__section_name(twin));
		bpf_program__set_autoload(p, btf_ok);
		if (twin)
			bpf_program__set_autoload(twin, !btf_ok && tp_ok);
		if (btf_ok || tp_ok)
			continue;
		s = tracer_status_add(t, concern, p);
		if (s)
			snprintf(
				s->reason, sizeof(s->reason),
				"tracepoint %s missing in this kernel (no BTF type, no tracefs event)",
				sec + 7);
	}
}

int tracer_is_iter(const struct bpf_program *p)
{
	return !strncmp(bpf_program__section_name(p), "iter/", 5);
}

/*
 * Task storage serves the tp_btf programs only. Where none of them loads (the
 * fallback forced, or a kernel without them) leave it out, and the iterators
 * that read it: such a kernel may not have task storage.
 */
void tracer_select_task_storage(struct bpf_object *obj)
{
	struct bpf_program *p;
	struct bpf_map *m;
	int btf = 0;

	bpf_object__for_each_program (p, obj)
		btf |= bpf_program__autoload(p) &&
		       !strncmp(bpf_program__section_name(p), "tp_btf/", 7);
	if (btf)
		return;
	bpf_object__for_each_program (p, obj)
		if (tracer_is_iter(p))
			bpf_program__set_autoload(p, false);
	bpf_object__for_each_map (m, obj)
		if (bpf_map__type(m) == BPF_MAP_TYPE_TASK_STORAGE)
			bpf_map__set_autocreate(m, false);
}

int tracer_btf_has_member(const struct btf *btf, const char *sname, const char *mname)
{
	int id = btf ? btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT) : -1;
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(btf, id);

	for (int i = 0; t && i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, btf_members(t)[i].name_off), mname))
			return 1;
	return 0;
}

int tracer_steal_readable(const struct btf *btf)
{
	return tracer_btf_has_member(btf, "rq", "prev_steal_time_rq") &&
	       tracer_btf_has_member(btf, "cfs_rq", "rq") &&
	       tracer_btf_has_member(btf, "sched_entity", "cfs_rq");
}
