// SPDX-License-Identifier: BSD-2-Clause
/*
 * tracer.c - shared maps, load and attach for every concern, and the status of
 * each program. Which programs load: tracer_select.c; reading the maps at the
 * end of a recording: tracer_read.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/membarrier.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpf/events.h"
#include "skel_ops.h"
#include "lib/log.h"
#include "tracer.h"
#include "tracer_internal.h"

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* tailcause reports its own failures; libbpf's detail (verifier logs) is for -v. */
	if (level == LIBBPF_DEBUG && log_level < 2)
		return 0;
	if (log_level < 1)
		return 0;
	fputs("tailcause: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

void tracer_setup_log(void)
{
	libbpf_set_print(libbpf_print);
}

void tracer_print_facts(FILE *out)
{
	int btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;

	fprintf(out,
		"running with libbpf %s; the BPF programs are CO-RE: compiled once, their field\n"
		"offsets relocated as they load against the kernel's BTF (/sys/kernel/btf/vmlinux:\n"
		"%s here)\n",
		libbpf_version_string(), btf ? "present" : "absent or unreadable: give --btf FILE");
}

static const struct skel_ops *const concerns[] = {
	&sched_skel_ops,     &irq_skel_ops,   &ipi_skel_ops,	&mm_skel_ops,  &power_skel_ops,
	&workqueue_skel_ops, &timer_skel_ops, &signal_skel_ops, &nic_skel_ops, &nic_fentry_skel_ops,
};
_Static_assert(sizeof(concerns) / sizeof(concerns[0]) == N_CONCERNS, "N_CONCERNS");

const struct btf *tracer_types_btf(const struct tracer *t)
{
	return t->types_btf ? t->types_btf : t->vmlinux_btf;
}

int tracer_reuse_shared_maps(struct tracer *t, struct bpf_object *obj)
{
	const struct {
		const char *name;
		int fd;
	} shared[] = {
		{"events", t->events_fd},      {"probe_tids", t->tids_fd},
		{"probe_tids_gen", t->gen_fd}, {"probe_cpus", t->cpus_fd},
		{"drops", t->drops_fd},	       {"steal_last", t->steal_fd},
		{"work_open", t->work_fd},     {"work_opened", t->work_n_fd},
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

int tracer_keep_link(struct tracer *t, struct bpf_link *link)
{
	if (t->n_links >= MAX_PROGS) {
		bpf_link__destroy(link);
		return -E2BIG;
	}
	t->links[t->n_links++] = link;
	return 0;
}

static int attach_programs(struct tracer *t, const char *concern, struct bpf_object *obj)
{
	struct bpf_program *p;

	bpf_object__for_each_program (p, obj) {
		struct tc_prog_status *s;
		struct bpf_link *link;

		if (!bpf_program__autoload(p) || tracer_is_iter(p))
			continue; /* an iterator runs once, at the end (tracer__flush_open) */
		s = tracer_status_add(t, concern, p);
		link = bpf_program__attach(p);
		if (!link) {
			int err = -errno;

			if (s)
				snprintf(s->reason, sizeof(s->reason), "attach refused: %s",
					 strerror(-err));
			log_dbg("attach %s: %s", bpf_program__name(p), strerror(-err));
			continue;
		}
		if (tracer_keep_link(t, link))
			return -E2BIG;
		if (s)
			s->attached = 1;
	}
	return 0;
}

/* open_concern()'s answer when this kernel can run none of a concern's programs. */
#define NOTHING_TO_RUN 1

static int open_concern(struct tracer *t, const struct skel_ops *ops, const struct tracer_cfg *cfg,
			int fallback, struct loaded *l)
{
	int err;

	l->ops = ops;
	l->obj = ops->open(&l->skel, t->btf_path);
	if (!l->obj) {
		err = -errno;
		log_err("open %s object: %s", ops->name, strerror(-err));
		return err;
	}
	err = tracer_reuse_shared_maps(t, l->obj);
	if (err)
		goto out_destroy;
	tracer_select_programs(t, ops->name, l->obj, fallback, cfg->syscall_tps);
	ops->configure(l->skel, cfg, tracer_types_btf(t));
	tracer_select_task_storage(l->obj);
	if (!tracer_n_autoload(l->obj)) {
		err = NOTHING_TO_RUN; /* the status rows say why */
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
static void optional_failed(struct tracer *t, const struct skel_ops *ops, size_t status_mark,
			    int err)
{
	struct bpf_object *obj;
	struct bpf_program *p;
	void *skel;

	log_dbg("load %s programs: %s; recording without them", ops->name, strerror(-err));
	t->n_status = status_mark;
	obj = ops->open(&skel, t->btf_path);
	if (!obj)
		return;
	tracer_select_programs(t, ops->name, obj, 0, 0);
	bpf_object__for_each_program (p, obj) {
		struct tc_prog_status *s;

		if (!bpf_program__autoload(p) ||
		    strncmp(bpf_program__section_name(p), "fentry/", 7))
			continue;
		s = tracer_status_add(t, ops->name, p);
		if (s)
			snprintf(s->reason, sizeof(s->reason), "%s refused by this kernel: %s",
				 "fentry", strerror(-err));
	}
	ops->destroy(skel);
}

static int load_concern(struct tracer *t, const struct skel_ops *ops, const struct tracer_cfg *cfg)
{
	struct loaded *l = &t->loaded[t->n_loaded];
	size_t status_mark = t->n_status;
	int err;

	/*
	 * Not -ENOENT: a load can fail with that too (a kernel symbol it needs), and
	 * must then fall back or fail, never vanish.
	 */
	err = open_concern(t, ops, cfg, cfg->force_fallback, l);
	if (err == NOTHING_TO_RUN)
		return 0;
	if (err && !cfg->force_fallback && !ops->optional) {
		/* Some kernels refuse BTF-typed programs; classic tracepoints still work. */
		log_dbg("load %s with tp_btf: %s; trying classic tracepoints", ops->name,
			strerror(-err));
		t->n_status = status_mark;
		err = open_concern(t, ops, cfg, 1, l);
		if (err == NOTHING_TO_RUN)
			return 0;
	}
	if (err && ops->optional) {
		optional_failed(t, ops, status_mark, err);
		return 0;
	}
	if (err) {
		log_err("load %s programs: %s", ops->name, strerror(-err));
		if (!t->vmlinux_btf && !t->btf_path)
			log_err("this kernel has no BTF (/sys/kernel/btf/vmlinux): give its types "
				"with --btf FILE (e.g. the kernel's file from BTFHub)");
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
	t->drops_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "drops", 4, 8, TC_DROP_KINDS, NULL);
	/* bpf/steal.bpf.h's struct tc_steal_slot: two __u64 */
	t->steal_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "steal_last", 4, 16, 1, NULL);
	/* bpf/work.bpf.h's: the open work items by kworker, and how many there are */
	t->work_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "work_open", 4, sizeof(struct tc_work_slot),
				    4096, NULL);
	t->work_n_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "work_opened", 4, 8, 1, NULL);
	if (t->events_fd < 0 || t->tids_fd < 0 || t->gen_fd < 0 || t->cpus_fd < 0 ||
	    t->drops_fd < 0 || t->steal_fd < 0 || t->work_fd < 0 || t->work_n_fd < 0) {
		int err = -errno;

		log_err("create BPF maps: %s", strerror(-err));
		return err;
	}
	return 0;
}

/* --btf FILE: the types the programs are relocated against (libbpf parses it again). */
static int load_types_btf(struct tracer *t, const char *path)
{
	if (!path)
		return 0;
	t->types_btf = btf__parse(path, NULL);
	if (!t->types_btf) {
		int err = -errno;

		log_err("--btf %s: %s", path, strerror(-err));
		return err;
	}
	t->btf_path = path;
	log_dbg("kernel types from %s (--btf)", path);
	return 0;
}

struct tracer *tracer__new(const struct tracer_cfg *cfg)
{
	struct tracer *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return NULL;
	t->events_fd = t->tids_fd = t->gen_fd = t->cpus_fd = t->drops_fd = t->steal_fd = -1;
	t->work_fd = t->work_n_fd = -1;
	t->vmlinux_btf = btf__load_vmlinux_btf();
	if (!t->vmlinux_btf)
		log_dbg("no vmlinux BTF: classic tracepoints only");
	err = load_types_btf(t, cfg->btf_path);
	if (err)
		goto out_free;
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

void tracer__stop(struct tracer *t)
{
	if (!t || !t->n_links)
		return;
	for (size_t i = 0; i < t->n_links; i++)
		bpf_link__destroy(t->links[i]);
	t->n_links = 0;
	/*
	 * A detached program may still be running on another CPU: its tracepoint
	 * unregisters without waiting. Tracepoint programs run with preemption off,
	 * so an RCU grace period (what MEMBARRIER_CMD_GLOBAL waits for) sees them
	 * all return. Where that command is refused (nohz_full), a tracepoint
	 * program's few microseconds are long over after a millisecond.
	 */
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		usleep(1000);
}

void tracer__free(struct tracer *t)
{
	if (!t)
		return;
	tracer__stop(t);
	for (size_t i = 0; i < t->n_loaded; i++)
		t->loaded[i].ops->destroy(t->loaded[i].skel);
	int fds[] = {t->events_fd, t->tids_fd,	t->gen_fd,  t->cpus_fd,
		     t->drops_fd,  t->steal_fd, t->work_fd, t->work_n_fd};
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	btf__free(t->vmlinux_btf);
	btf__free(t->types_btf);
	free(t);
}

/* After a change to probe_tids: BPF reads the generation first, so it never caches a stale role. */
static int bump_tids_gen(struct tracer *t)
{
	uint32_t zero = 0, gen = t->tids_gen + 1;

	if (bpf_map_update_elem(t->gen_fd, &zero, &gen, BPF_ANY))
		return -errno;
	t->tids_gen = gen;
	return 0;
}

int tracer__add_tid(struct tracer *t, uint32_t tid, uint32_t role)
{
	if (bpf_map_update_elem(t->tids_fd, &tid, &role, BPF_ANY))
		return -errno;
	return bump_tids_gen(t);
}

int tracer__del_tid(struct tracer *t, uint32_t tid)
{
	if (bpf_map_delete_elem(t->tids_fd, &tid) && errno != ENOENT)
		return -errno;
	return bump_tids_gen(t);
}

static int set_cpu(struct tracer *t, uint32_t cpu, uint32_t on)
{
	if (cpu >= TC_MAX_CPUS)
		return -EINVAL;
	if (bpf_map_update_elem(t->cpus_fd, &cpu, &on, BPF_ANY))
		return -errno;
	return 0;
}

int tracer__add_cpu(struct tracer *t, uint32_t cpu)
{
	return set_cpu(t, cpu, 1);
}

int tracer__drop_cpu(struct tracer *t, uint32_t cpu)
{
	return set_cpu(t, cpu, 0);
}

int tracer__add_sibling(struct tracer *t, uint32_t cpu, uint32_t probe)
{
	uint32_t v = probe + 1;

	if (cpu >= TC_MAX_CPUS)
		return -EINVAL;
	for (size_t i = 0; i < t->n_loaded; i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(t->loaded[i].obj, "sibling_of");

		if (m && bpf_map_update_elem(bpf_map__fd(m), &cpu, &v, BPF_ANY))
			return -errno;
	}
	return 0;
}

int tracer__ringbuf_fd(const struct tracer *t)
{
	return t->events_fd;
}

size_t tracer__status(const struct tracer *t, const struct tc_prog_status **out)
{
	*out = t->status;
	return t->n_status;
}

int tracer__steal_source(const struct tracer *t, char *why, size_t len)
{
	if (!t->vmlinux_btf) {
		snprintf(why, len, "the kernel has no BTF: the run queue cannot be read");
		return 0;
	}
	if (!tracer_steal_readable(t->vmlinux_btf)) {
		snprintf(why, len,
			 "the kernel keeps no steal clock in its run queue (needs "
			 "CONFIG_PARAVIRT_TIME_ACCOUNTING and CONFIG_FAIR_GROUP_SCHED)");
		return 0;
	}
	snprintf(why, len,
		 "the run queue's steal clock, read at every tick and context switch "
		 "on the probe CPUs");
	return 1;
}
