/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * concern.h - what tracer.c needs from each BPF concern's shell
 * (io/<concern>_io.c, the only file that includes <concern>.skel.h).
 *
 * Programs come in twins: <stem>_btf (SEC "tp_btf/...") preferred, and
 * <stem>_tp (SEC "tp/<category>/<event>") as the fallback. tracer.c picks one
 * of each pair before load, by what this kernel offers.
 */
#ifndef TAILCAUSE_IO_CONCERN_H
#define TAILCAUSE_IO_CONCERN_H

struct bpf_object;

struct concern_ops {
	const char *name;
	/* Opens the skeleton into *skel; returns its bpf_object or NULL with errno set. */
	struct bpf_object *(*open)(void **skel);
	/* Sets the concern's read-only knobs (cfg_*) before load. */
	void (*configure)(void *skel, unsigned long long wakeup_bytes);
	/* Loads the object; 0 or a negative errno. */
	int (*load)(void *skel);
	void (*destroy)(void *skel);
};

extern const struct concern_ops sched_concern;
extern const struct concern_ops irq_concern;

#endif /* TAILCAUSE_IO_CONCERN_H */
