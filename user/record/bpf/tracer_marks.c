// SPDX-License-Identifier: BSD-2-Clause
/*
 * tracer_marks.c - the iteration markers of record --iter (bpf/iter.bpf.c):
 * loaded beside the concerns against the same shared maps, attached where the
 * user (or a preset) says: a system call's tracepoints or a uprobe.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/log.h"
#include "tracer.h"
#include "tracer_internal.h"

/* The markers' object, loaded once; NULL with the failure reported. */
static struct bpf_object *marks_object(struct tracer *t)
{
	struct loaded *l = &t->loaded[t->n_loaded];
	struct tracer_cfg cfg = {0};
	int err;

	for (size_t i = 0; i < t->n_loaded; i++)
		if (t->loaded[i].ops == &iter_skel_ops)
			return t->loaded[i].obj;
	if (t->n_loaded > N_CONCERNS) {
		errno = E2BIG;
		return NULL;
	}
	l->ops = &iter_skel_ops;
	l->obj = l->ops->open(&l->skel, t->btf_path);
	if (!l->obj) {
		err = -errno;
		log_err("open the iteration markers: %s", strerror(-err));
		errno = -err;
		return NULL;
	}
	cfg.ringbuf_bytes = 2 * 1024 * 1024; /* cfg_wakeup_bytes: as small as any ring's half */
	err = tracer_reuse_shared_maps(t, l->obj);
	if (!err) {
		l->ops->configure(l->skel, &cfg, tracer_types_btf(t));
		err = l->ops->load(l->skel);
		if (err)
			log_err("load the iteration markers: %s", strerror(-err));
	}
	if (err) {
		l->ops->destroy(l->skel);
		l->obj = NULL;
		errno = -err;
		return NULL;
	}
	t->n_loaded++;
	return l->obj;
}

static struct bpf_link *attach_point(struct bpf_object *obj, const struct tc_mark_point *p,
				     char *target, size_t len)
{
	struct bpf_program *prog;
	char tp[48];

	switch (p->at) {
	case TC_MARK_AT_SYSCALL_ENTER:
	case TC_MARK_AT_SYSCALL_EXIT:
		snprintf(tp, sizeof(tp), "sys_%s_%s",
			 p->at == TC_MARK_AT_SYSCALL_ENTER ? "enter" : "exit", p->syscall);
		snprintf(target, len, "tp/syscalls/%s", tp);
		prog = bpf_object__find_program_by_name(obj, p->at == TC_MARK_AT_SYSCALL_ENTER
								     ? "tc_iter_sys_enter"
								     : "tc_iter_sys_exit");
		return prog ? bpf_program__attach_tracepoint(prog, "syscalls", tp) : NULL;
	case TC_MARK_AT_UPROBE:
		if (p->func[0])
			snprintf(target, len, "uprobe/%s:%s+0x%llx", p->path, p->func,
				 (unsigned long long)p->offset);
		else
			snprintf(target, len, "uprobe/%s+0x%llx", p->path,
				 (unsigned long long)p->offset);
		prog = bpf_object__find_program_by_name(obj, "tc_iter_uprobe");
		return prog ? bpf_program__attach_uprobe(prog, false, -1, p->path, p->offset)
			    : NULL;
	}
	errno = EINVAL;
	return NULL;
}

int tracer__add_marks(struct tracer *t, const struct tc_mark_point *p, size_t n)
{
	struct bpf_object *obj = marks_object(t);

	if (!obj)
		return -errno;
	if (t->marks_to == t->marks_from)
		t->marks_from = t->marks_to = t->n_links;
	for (size_t i = 0; i < n; i++) {
		struct tc_prog_status *s = NULL;
		char target[sizeof(s->target) + 256];
		struct bpf_link *link = attach_point(obj, &p[i], target, sizeof(target));
		int err = link ? 0 : -errno;

		if (t->n_status < MAX_PROGS) {
			s = &t->status[t->n_status++];
			memset(s, 0, sizeof(*s));
			snprintf(s->concern, sizeof(s->concern), "iter");
			/* one row per point: a second one of a kind is tc_iter_<kind>_2 */
			char nth[24] = "";
			size_t same = 0;

			for (size_t j = 0; j < i; j++)
				same += p[j].at == p[i].at;
			if (same)
				snprintf(nth, sizeof(nth), "_%zu", same + 1);
			snprintf(s->prog, sizeof(s->prog), "tc_iter_%s%s",
				 p[i].at == TC_MARK_AT_UPROBE	       ? "uprobe"
				 : p[i].at == TC_MARK_AT_SYSCALL_ENTER ? "sys_enter"
								       : "sys_exit",
				 nth);
			snprintf(s->target, sizeof(s->target), "%.*s", (int)sizeof(s->target) - 1,
				 target);
		}
		if (err) {
			if (s)
				snprintf(s->reason, sizeof(s->reason), "attach refused: %s",
					 strerror(-err));
			log_err("iteration marker %s: %s", target, strerror(-err));
			return err;
		}
		err = tracer_keep_link(t, link);
		if (err)
			return err;
		t->marks_to = t->n_links;
		if (s)
			s->attached = 1;
	}
	return 0;
}

struct bpf_link *tracer__mark_probe(struct tracer *t, const struct tc_mark_point *p)
{
	struct bpf_object *obj = marks_object(t);
	char target[sizeof(p->path) + sizeof(p->func) + 64];

	return obj ? attach_point(obj, p, target, sizeof(target)) : NULL;
}

void tracer__drop_marks(struct tracer *t)
{
	for (size_t i = t->marks_from; i < t->marks_to && i < t->n_links; i++) {
		bpf_link__destroy(t->links[i]);
		t->links[i] = NULL;
	}
}

int tracer__limit_marks(struct tracer *t, uint64_t n)
{
	struct bpf_map *m = NULL;
	uint32_t k_budget = 0, k_used = 1;
	uint64_t zero = 0;

	for (size_t i = 0; i < t->n_loaded && !m; i++)
		if (t->loaded[i].ops == &iter_skel_ops)
			m = bpf_object__find_map_by_name(t->loaded[i].obj, "mark_budget");
	if (!m)
		return -ENOENT;
	if (bpf_map_update_elem(bpf_map__fd(m), &k_used, &zero, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(m), &k_budget, &n, BPF_ANY))
		return -errno;
	return 0;
}
