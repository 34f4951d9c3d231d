/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * skel_ops.h - the ops table of one BPF object: what tracer.c needs from each
 * concern's skeleton (sched, irq, ...), through the concern's glue file
 * (record/bpf/<concern>_skel.c, the only file that includes <concern>.skel.h).
 *
 * Tracepoint programs come in twins: <stem>_btf (SEC "tp_btf/...") preferred,
 * and <stem>_tp (SEC "tp/<category>/<event>") as the fallback; tracer.c picks
 * one of each pair before load, by what this kernel offers. fentry/fexit
 * programs load only where their function is in the kernel's BTF.
 */
#ifndef TAILCAUSE_RECORD_BPF_SKEL_OPS_H
#define TAILCAUSE_RECORD_BPF_SKEL_OPS_H

#include <errno.h>

#include "tracer.h"

struct bpf_object;
struct btf;

struct skel_ops {
	const char *name;
	/* A concern that may fail to load without failing the recording (fentry extras). */
	int optional;
	/*
	 * Opens the skeleton into *skel, its CO-RE relocations against the BTF in btf_path
	 * (NULL: the kernel's); returns its bpf_object or NULL with errno set.
	 */
	struct bpf_object *(*open)(void **skel, const char *btf_path);
	/*
	 * Sets the concern's read-only knobs (cfg_*) once its programs are chosen, before
	 * load; it may leave out a program this kernel makes unnecessary. vmlinux_btf is
	 * the kernel's BTF, NULL if it has none.
	 */
	void (*configure)(void *skel, const struct tracer_cfg *cfg, const struct btf *vmlinux_btf);
	/* Loads the object; 0 or a negative errno. */
	int (*load)(void *skel);
	void (*destroy)(void *skel);
};

/*
 * Defines <cname>_concern for the skeleton <cname>_bpf. extra(skel, cfg, vmlinux_btf)
 * sets the concern's own knobs; every concern has cfg_wakeup_bytes (common.bpf.h).
 */
#define TC_DEFINE_SKEL_OPS(cname, is_optional, extra)                                              \
	static struct bpf_object *cname##_open(void **skel, const char *btf_path)                  \
	{                                                                                          \
		struct bpf_object_open_opts opts = {.sz = sizeof(opts),                            \
						    .btf_custom_path = btf_path};                  \
		struct cname##_bpf *s = cname##_bpf__open_opts(&opts);                             \
                                                                                                   \
		if (!s)                                                                            \
			return NULL;                                                               \
		*skel = s;                                                                         \
		return s->obj;                                                                     \
	}                                                                                          \
	static void cname##_configure(void *skel, const struct tracer_cfg *cfg,                    \
				      const struct btf *vmlinux_btf)                               \
	{                                                                                          \
		struct cname##_bpf *s = skel;                                                      \
                                                                                                   \
		s->rodata->cfg_wakeup_bytes = cfg->ringbuf_bytes / 2;                              \
		extra(s, cfg, vmlinux_btf);                                                        \
	}                                                                                          \
	static int cname##_load(void *skel)                                                        \
	{                                                                                          \
		return cname##_bpf__load(skel);                                                    \
	}                                                                                          \
	static void cname##_destroy(void *skel)                                                    \
	{                                                                                          \
		cname##_bpf__destroy(skel);                                                        \
	}                                                                                          \
	const struct skel_ops cname##_skel_ops = {                                                 \
		.name = #cname,                                                                    \
		.optional = is_optional,                                                           \
		.open = cname##_open,                                                              \
		.configure = cname##_configure,                                                    \
		.load = cname##_load,                                                              \
		.destroy = cname##_destroy,                                                        \
	}

/* Does the kernel's BTF (NULL: none) have struct sname with a member mname? */
int tracer_btf_has_member(const struct btf *btf, const char *sname, const char *mname);
/*
 * Can the programs read the run queue's steal time (bpf/steal.bpf.h)? Where the BTF has
 * rq.prev_steal_time_rq (CONFIG_PARAVIRT_TIME_ACCOUNTING) and cfs_rq.rq
 * (CONFIG_FAIR_GROUP_SCHED). 1 or 0.
 */
int tracer_steal_readable(const struct btf *btf);

/* For concerns without knobs of their own. */
#define TC_NO_EXTRA(s, cfg, btf) ((void)(s), (void)(cfg), (void)(btf))

extern const struct skel_ops sched_skel_ops;
extern const struct skel_ops irq_skel_ops;
extern const struct skel_ops ipi_skel_ops;
extern const struct skel_ops mm_skel_ops;
extern const struct skel_ops power_skel_ops;
extern const struct skel_ops workqueue_skel_ops;
extern const struct skel_ops timer_skel_ops;
extern const struct skel_ops nic_skel_ops;
extern const struct skel_ops nic_fentry_skel_ops;
extern const struct skel_ops signal_skel_ops;
/* Not one of tracer.c's concerns: loaded and attached only for record --iter (tracer_marks.c). */
extern const struct skel_ops iter_skel_ops;

#endif /* TAILCAUSE_RECORD_BPF_SKEL_OPS_H */
