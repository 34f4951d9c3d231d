/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * concern.h - what tracer.c needs from each BPF concern's shell
 * (io/<concern>_io.c, the only file that includes <concern>.skel.h).
 *
 * Tracepoint programs come in twins: <stem>_btf (SEC "tp_btf/...") preferred,
 * and <stem>_tp (SEC "tp/<category>/<event>") as the fallback; tracer.c picks
 * one of each pair before load, by what this kernel offers. fentry/fexit
 * programs load only where their function is in the kernel's BTF.
 */
#ifndef TAILCAUSE_IO_CONCERN_H
#define TAILCAUSE_IO_CONCERN_H

#include <errno.h>

#include "tracer.h"

struct bpf_object;
struct btf;

struct concern_ops {
	const char *name;
	/* A concern that may fail to load without failing the recording (fentry extras). */
	int optional;
	/* Opens the skeleton into *skel; returns its bpf_object or NULL with errno set. */
	struct bpf_object *(*open)(void **skel);
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
#define TC_DEFINE_CONCERN(cname, is_optional, extra)                                   \
	static struct bpf_object *cname##_open(void **skel)                             \
	{                                                                              \
		struct cname##_bpf *s = cname##_bpf__open();                              \
                                                                                       \
		if (!s)                                                                \
			return NULL;                                                   \
		*skel = s;                                                             \
		return s->obj;                                                         \
	}                                                                              \
	static void cname##_configure(void *skel, const struct tracer_cfg *cfg,          \
				      const struct btf *vmlinux_btf)                   \
	{                                                                              \
		struct cname##_bpf *s = skel;                                           \
                                                                                       \
		s->rodata->cfg_wakeup_bytes = cfg->ringbuf_bytes / 2;                  \
		extra(s, cfg, vmlinux_btf);                                            \
	}                                                                              \
	static int cname##_load(void *skel)                                             \
	{                                                                              \
		return cname##_bpf__load(skel);                                         \
	}                                                                              \
	static void cname##_destroy(void *skel)                                         \
	{                                                                              \
		cname##_bpf__destroy(skel);                                             \
	}                                                                              \
	const struct concern_ops cname##_concern = {                                    \
		.name = #cname,                                                         \
		.optional = is_optional,                                               \
		.open = cname##_open,                                                   \
		.configure = cname##_configure,                                         \
		.load = cname##_load,                                                   \
		.destroy = cname##_destroy,                                             \
	}

/* For concerns without knobs of their own. */
#define TC_NO_EXTRA(s, cfg, btf) ((void)(s), (void)(cfg), (void)(btf))

extern const struct concern_ops sched_concern;
extern const struct concern_ops irq_concern;
extern const struct concern_ops ipi_concern;
extern const struct concern_ops mm_concern;
extern const struct concern_ops power_concern;
extern const struct concern_ops nic_concern;
extern const struct concern_ops nic_fentry_concern;

#endif /* TAILCAUSE_IO_CONCERN_H */
