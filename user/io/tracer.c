// SPDX-License-Identifier: BSD-2-Clause
/*
 * tracer.c - shared maps, program choice (tp_btf vs classic tracepoint),
 * load and attach for every concern, and the status of each program.
 */
#include <errno.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "../bpf/events.h"
#include "concern.h"
#include "log.h"
#include "tracer.h"

#define MAX_PROGS 64

static const struct concern_ops *const concerns[] = {
	&sched_concern, &irq_concern, &ipi_concern, &mm_concern,
	&power_concern, &nic_concern, &nic_fentry_concern,
};
#define N_CONCERNS (sizeof(concerns) / sizeof(concerns[0]))

struct loaded {
	const struct concern_ops *ops;
	void *skel;
	struct bpf_object *obj;
};

struct tracer {
	int events_fd, tids_fd, gen_fd, cpus_fd, drops_fd;
	uint32_t tids_gen;	/* last value written to probe_tids_gen */
	struct btf *vmlinux_btf;
	struct loaded loaded[N_CONCERNS];
	size_t n_loaded;
	struct bpf_link *links[MAX_PROGS];
	size_t n_links;
	struct tc_prog_status status[MAX_PROGS];
	size_t n_status;
};

static const char *tracefs_root(void)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
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

	bpf_object__for_each_program(q, obj) {
		const char *qn = bpf_program__name(q);

		if (q != p && stem_len(qn) == n && !strncmp(qn, name, n))
			return q;
	}
	return NULL;
}

static struct tc_prog_status *status_add(struct tracer *t, const char *concern,
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

/*
 * Picks one program of each twin pair before load: tp_btf where the kernel has
 * it (and no fallback is forced), else the classic tracepoint. A pair with
 * neither gets a status row with the reason and loads nothing.
 */
/* fentry/fexit programs: load only where the kernel has the function. */
static void select_fentry(struct tracer *t, const char *concern, struct bpf_program *p,
			  const char *sec)
{
	const char *func = strchr(sec, '/') + 1;
	struct tc_prog_status *s;
	int ok = kernel_has_func(t, func);

	bpf_program__set_autoload(p, ok);
	if (ok || strncmp(sec, "fentry/", 7))
		return;	/* one status row per function: the fentry side */
	s = status_add(t, concern, p);
	if (s)
		snprintf(s->reason, sizeof(s->reason),
			 "function %s not in this kernel's BTF (driver not loaded?)", func);
}

/* Programs a concern will load. */
static size_t n_autoload(struct bpf_object *obj)
{
	struct bpf_program *p;
	size_t n = 0;

	bpf_object__for_each_program(p, obj)
		n += bpf_program__autoload(p) != 0;
	return n;
}

static void select_programs(struct tracer *t, const char *concern, struct bpf_object *obj,
			    int fallback)
{
	struct bpf_program *p, *twin;

	bpf_object__for_each_program(p, obj) {
		const char *sec = bpf_program__section_name(p);
		struct tc_prog_status *s;
		int btf_ok, tp_ok;

		if (!strncmp(sec, "fentry/", 7) || !strncmp(sec, "fexit/", 6)) {
			select_fentry(t, concern, p, sec);
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
		s = status_add(t, concern, p);
		if (s)
			snprintf(s->reason, sizeof(s->reason),
				 "tracepoint %s missing in this kernel (no BTF type, no tracefs event)",
				 sec + 7);
	}
}

static int reuse_shared_maps(struct tracer *t, struct bpf_object *obj)
{
	const struct {
		const char *name;
		int fd;
	} shared[] = {
		{ "events", t->events_fd },
		{ "probe_tids", t->tids_fd },
		{ "probe_tids_gen", t->gen_fd },
		{ "probe_cpus", t->cpus_fd },
		{ "drops", t->drops_fd },
	};

	for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(obj, shared[i].name);
		int err;

		if (!m)
			continue;
		err = bpf_map__reuse_fd(m, shared[i].fd);
		if (err) {
			log_err("reuse map %s: %s", shared[i].name, strerror(-err));
			return err;
		}
	}
	return 0;
}

static int is_iter(const struct bpf_program *p)
{
	return !strncmp(bpf_program__section_name(p), "iter/", 5);
}

/*
 * Task storage serves the tp_btf programs only. Where none of them loads (the
 * fallback forced, or a kernel without them) leave it out, and the iterators
 * that read it: such a kernel may not have task storage.
 */
static void select_task_storage(struct bpf_object *obj)
{
	struct bpf_program *p;
	struct bpf_map *m;
	int btf = 0;

	bpf_object__for_each_program(p, obj)
		btf |= bpf_program__autoload(p) &&
		       !strncmp(bpf_program__section_name(p), "tp_btf/", 7);
	if (btf)
		return;
	bpf_object__for_each_program(p, obj)
		if (is_iter(p))
			bpf_program__set_autoload(p, false);
	bpf_object__for_each_map(m, obj)
		if (bpf_map__type(m) == BPF_MAP_TYPE_TASK_STORAGE)
			bpf_map__set_autocreate(m, false);
}

static int attach_programs(struct tracer *t, const char *concern, struct bpf_object *obj)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj) {
		struct tc_prog_status *s;
		struct bpf_link *link;

		if (!bpf_program__autoload(p) || is_iter(p))
			continue;	/* an iterator runs once, at the end (tracer__flush_open) */
		s = status_add(t, concern, p);
		link = bpf_program__attach(p);
		if (!link) {
			int err = -errno;

			if (s)
				snprintf(s->reason, sizeof(s->reason), "attach refused: %s",
					 strerror(-err));
			log_dbg("attach %s: %s", bpf_program__name(p), strerror(-err));
			continue;
		}
		if (t->n_links >= MAX_PROGS) {
			bpf_link__destroy(link);
			return -E2BIG;
		}
		t->links[t->n_links++] = link;
		if (s)
			s->attached = 1;
	}
	return 0;
}

static int open_concern(struct tracer *t, const struct concern_ops *ops,
			const struct tracer_cfg *cfg, int fallback, struct loaded *l)
{
	int err;

	l->ops = ops;
	l->obj = ops->open(&l->skel);
	if (!l->obj) {
		err = -errno;
		log_err("open %s object: %s", ops->name, strerror(-err));
		return err;
	}
	ops->configure(l->skel, cfg);
	err = reuse_shared_maps(t, l->obj);
	if (err)
		goto out_destroy;
	select_programs(t, ops->name, l->obj, fallback);
	select_task_storage(l->obj);
	if (!n_autoload(l->obj)) {
		err = -ENOENT;	/* nothing this kernel can run: the status rows say why */
		goto out_destroy;
	}
	err = ops->load(l->skel);
	if (err)
		goto out_destroy;
	return 0;

out_destroy:
	ops->destroy(l->skel);
	l->skel = NULL;
	l->obj = NULL;
	return err;
}

/* An optional concern did not load: every program it would have run says why. */
static void optional_failed(struct tracer *t, const struct concern_ops *ops, size_t status_mark,
			    int err)
{
	struct bpf_object *obj;
	struct bpf_program *p;
	void *skel;

	log_dbg("load %s programs: %s; recording without them", ops->name, strerror(-err));
	t->n_status = status_mark;
	obj = ops->open(&skel);
	if (!obj)
		return;
	select_programs(t, ops->name, obj, 0);
	bpf_object__for_each_program(p, obj) {
		struct tc_prog_status *s;

		if (!bpf_program__autoload(p) ||
		    strncmp(bpf_program__section_name(p), "fentry/", 7))
			continue;
		s = status_add(t, ops->name, p);
		if (s)
			snprintf(s->reason, sizeof(s->reason), "%s refused by this kernel: %s",
				 "fentry", strerror(-err));
	}
	ops->destroy(skel);
}

static int load_concern(struct tracer *t, const struct concern_ops *ops,
			const struct tracer_cfg *cfg)
{
	struct loaded *l = &t->loaded[t->n_loaded];
	size_t status_mark = t->n_status;
	int err;

	err = open_concern(t, ops, cfg, cfg->force_fallback, l);
	if (err == -ENOENT)
		return 0;
	if (err && !cfg->force_fallback && !ops->optional) {
		/* Some kernels refuse BTF-typed programs; classic tracepoints still work. */
		log_dbg("load %s with tp_btf: %s; trying classic tracepoints", ops->name,
			strerror(-err));
		t->n_status = status_mark;
		err = open_concern(t, ops, cfg, 1, l);
	}
	if (err && ops->optional) {
		optional_failed(t, ops, status_mark, err);
		return 0;
	}
	if (err) {
		log_err("load %s programs: %s", ops->name, strerror(-err));
		return err;
	}
	t->n_loaded++;
	return attach_programs(t, ops->name, l->obj);
}

static size_t round_pow2(size_t v)
{
	size_t p = 4096;

	while (p < v)
		p <<= 1;
	return p;
}

static int create_shared_maps(struct tracer *t, size_t ringbuf_bytes)
{
	t->events_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "events", 0, 0,
				      round_pow2(ringbuf_bytes), NULL);
	t->tids_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "probe_tids", 4, 4, 4096, NULL);
	t->gen_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "probe_tids_gen", 4, 4, 1, NULL);
	t->cpus_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "probe_cpus", 4, 4, TC_MAX_CPUS, NULL);
	t->drops_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "drops", 4, 8, 1, NULL);
	if (t->events_fd < 0 || t->tids_fd < 0 || t->gen_fd < 0 || t->cpus_fd < 0 ||
	    t->drops_fd < 0) {
		int err = -errno;

		log_err("create BPF maps: %s", strerror(-err));
		return err;
	}
	return 0;
}

struct tracer *tracer__new(const struct tracer_cfg *cfg)
{
	struct tracer *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return NULL;
	t->events_fd = t->tids_fd = t->gen_fd = t->cpus_fd = t->drops_fd = -1;
	t->vmlinux_btf = btf__load_vmlinux_btf();
	if (!t->vmlinux_btf)
		log_dbg("no vmlinux BTF: classic tracepoints only");
	err = create_shared_maps(t, cfg->ringbuf_bytes);
	if (err)
		goto out_free;
	for (size_t i = 0; i < N_CONCERNS; i++) {
		err = load_concern(t, concerns[i], cfg);
		if (err)
			goto out_free;
	}
	return t;

out_free:
	tracer__free(t);
	errno = -err;
	return NULL;
}

void tracer__free(struct tracer *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_links; i++)
		bpf_link__destroy(t->links[i]);
	for (size_t i = 0; i < t->n_loaded; i++)
		t->loaded[i].ops->destroy(t->loaded[i].skel);
	int fds[] = { t->events_fd, t->tids_fd, t->gen_fd, t->cpus_fd, t->drops_fd };
	for (size_t i = 0; i < 5; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	btf__free(t->vmlinux_btf);
	free(t);
}

/* After the change: BPF reads the generation before probe_tids, so it never caches a stale role. */
int tracer__add_tid(struct tracer *t, uint32_t tid, uint32_t role)
{
	uint32_t zero = 0, gen = t->tids_gen + 1;

	if (bpf_map_update_elem(t->tids_fd, &tid, &role, BPF_ANY) ||
	    bpf_map_update_elem(t->gen_fd, &zero, &gen, BPF_ANY))
		return -errno;
	t->tids_gen = gen;
	return 0;
}

int tracer__add_cpu(struct tracer *t, uint32_t cpu)
{
	uint32_t on = 1;

	if (cpu >= TC_MAX_CPUS)
		return -EINVAL;
	if (bpf_map_update_elem(t->cpus_fd, &cpu, &on, BPF_ANY))
		return -errno;
	return 0;
}

int tracer__ringbuf_fd(const struct tracer *t)
{
	return t->events_fd;
}

int tracer__read_drops(const struct tracer *t, uint64_t *drops, size_t ncpu)
{
	int possible = libbpf_num_possible_cpus();
	uint32_t zero = 0;
	uint64_t *vals;

	if (possible <= 0)
		return possible ? possible : -EINVAL;
	vals = calloc(possible, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(t->drops_fd, &zero, vals)) {
		int err = -errno;

		free(vals);
		return err;
	}
	for (size_t i = 0; i < ncpu; i++)
		drops[i] = i < (size_t)possible ? vals[i] : 0;
	free(vals);
	return 0;
}

int tracer__read_irq_counts(const struct tracer *t,
			    int (*add)(void *ctx, uint32_t irq, uint32_t cpu, uint64_t n), void *ctx)
{
	int possible = libbpf_num_possible_cpus(), err = 0;
	uint32_t key, next, *prev = NULL;
	struct bpf_map *m = NULL;
	uint64_t *vals;

	for (size_t i = 0; i < t->n_loaded && !m; i++)
		m = bpf_object__find_map_by_name(t->loaded[i].obj, "irq_count");
	if (!m)
		return 0;
	if (possible <= 0)
		return possible ? possible : -EINVAL;
	vals = calloc((size_t)possible, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	while (!err && bpf_map_get_next_key(bpf_map__fd(m), prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(bpf_map__fd(m), &key, vals))
			continue;
		for (int c = 0; c < possible && !err; c++)
			if (vals[c])
				err = add(ctx, key, (uint32_t)c, vals[c]);
	}
	free(vals);
	return err;
}

size_t tracer__flush_faults(struct tracer *t, void (*emit)(void *ctx, const struct tc_event *e),
			    void *ctx)
{
	int possible = libbpf_num_possible_cpus();
	struct tc_fault_slot *slots;
	struct bpf_map *m = NULL;
	uint32_t zero = 0;
	size_t n = 0;

	for (size_t i = 0; i < t->n_loaded && !m; i++)
		m = bpf_object__find_map_by_name(t->loaded[i].obj, "fault_open");
	if (!m || possible <= 0 || !(slots = calloc((size_t)possible, sizeof(*slots))))
		return 0;
	if (bpf_map_lookup_elem(bpf_map__fd(m), &zero, slots) == 0) {
		for (int c = 0; c < possible; c++) {
			if (!slots[c].tid)
				continue;
			struct tc_event e = {
				.start_ns = slots[c].start_ns,
				.aux = slots[c].address,
				.cpu = (uint32_t)c,
				.tid = slots[c].tid,
				.arg = slots[c].error_code,
				.other_pid = slots[c].tid,
				.kind = TC_EV_PAGE_FAULT,
			};
			emit(ctx, &e);
			n++;
		}
	}
	free(slots);
	return n;
}

size_t tracer__status(const struct tracer *t, const struct tc_prog_status **out)
{
	*out = t->status;
	return t->n_status;
}

/* The classic-tracepoint path's open slots (hash offcpu_start), as records without an end. */
static size_t open_hash_slots(int fd, struct tc_event *out, size_t max)
{
	uint32_t key, next, *prev = NULL;
	struct tc_offcpu_slot slot;
	size_t n = 0;

	while (n < max && bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		/* start_ns == 0: the thread is on a CPU (the slot is kept for reuse) */
		if (bpf_map_lookup_elem(fd, &key, &slot) || !slot.start_ns)
			continue;
		out[n] = (struct tc_event){
			.start_ns = slot.start_ns,
			.aux = slot.woken_ns > slot.start_ns ? slot.woken_ns - slot.start_ns : 0,
			.cpu = slot.cpu,
			.tid = key,
			.arg = slot.state,
			.other_pid = slot.top_pid,
			.kind = TC_EV_OFFCPU,
			.flags = slot.preempted ? TC_OFFCPU_PREEMPTED : 0,
		};
		memcpy(out[n].other_comm, slot.top_comm, TC_COMM_LEN);
		n++;
	}
	return n;
}

/* The tp_btf path's open slots (task storage): its iterator writes them as records. */
static size_t open_task_slots(struct bpf_program *iter, struct tc_event *out, size_t max)
{
	struct bpf_link *link = bpf_program__attach_iter(iter, NULL);
	size_t got = 0;
	ssize_t r;
	int fd;

	if (!link) {
		log_warn("attach %s: %s; off-CPU intervals open at the end are lost",
			 bpf_program__name(iter), strerror(errno));
		return 0;
	}
	fd = bpf_iter_create(bpf_link__fd(link));
	while (fd >= 0 && got < max * sizeof(*out) &&
	       (r = read(fd, (char *)out + got, max * sizeof(*out) - got)) > 0)
		got += (size_t)r;
	if (fd < 0)
		log_warn("run %s: %s", bpf_program__name(iter), strerror(errno));
	else
		close(fd);
	bpf_link__destroy(link);
	return got / sizeof(*out);
}

/* The longest runner cpu_state kept for e's interval (struct tc_sched_cpu), if it still has it. */
static void merge_runner(const struct tc_sched_cpu *cs, int ncpu, struct tc_event *e)
{
	const struct tc_sched_waiter *w;

	if (!cs || e->cpu >= (uint32_t)ncpu)
		return;
	w = &cs[e->cpu].waiters[e->tid % TC_SCHED_WAITERS];
	if (w->tid != e->tid || w->start_ns != e->start_ns || !w->top_ns)
		return;
	e->other_pid = w->top_pid;
	memcpy(e->other_comm, w->top_comm, TC_COMM_LEN);
}

/* Every CPU's tc_sched_cpu (cpu_state), or NULL. */
static struct tc_sched_cpu *read_cpu_state(struct bpf_object *obj, int ncpu)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, "cpu_state");
	uint32_t zero = 0;
	struct tc_sched_cpu *cs;

	_Static_assert(sizeof(*cs) % 8 == 0, "per-CPU values are 8-byte aligned");
	if (!m || ncpu <= 0 || bpf_map__value_size(m) != sizeof(*cs))
		return NULL;
	cs = calloc((size_t)ncpu, sizeof(*cs));
	if (cs && bpf_map_lookup_elem(bpf_map__fd(m), &zero, cs)) {
		free(cs);
		cs = NULL;
	}
	return cs;
}

static size_t open_slots(struct bpf_object *obj, struct tc_event *out, size_t max)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, "offcpu_start");
	struct bpf_program *p;
	size_t n = 0;

	if (m && bpf_map__fd(m) >= 0)
		n = open_hash_slots(bpf_map__fd(m), out, max);
	bpf_object__for_each_program(p, obj)
		if (is_iter(p) && bpf_program__fd(p) >= 0)
			n += open_task_slots(p, out + n, max - n);
	return n;
}

size_t tracer__flush_open(struct tracer *t, uint64_t now_ns,
			  void (*emit)(void *ctx, const struct tc_event *e), void *ctx)
{
	const size_t max = 8192;	/* the slot maps' 4096 tids, twice over */
	int ncpu = libbpf_num_possible_cpus();
	struct tc_event *open = calloc(max, sizeof(*open));
	size_t n = 0;

	for (size_t i = 0; i < t->n_loaded && open; i++) {
		struct tc_sched_cpu *cs;
		size_t got = open_slots(t->loaded[i].obj, open, max);

		if (!got)
			continue;
		cs = read_cpu_state(t->loaded[i].obj, ncpu);
		for (size_t j = 0; j < got; j++) {
			if (open[j].start_ns > now_ns)
				continue;
			open[j].dur_ns = now_ns - open[j].start_ns;
			merge_runner(cs, ncpu, &open[j]);
			emit(ctx, &open[j]);
			n++;
		}
		free(cs);
	}
	free(open);
	return n;
}
