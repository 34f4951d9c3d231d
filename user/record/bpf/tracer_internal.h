/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tracer_internal.h - what the tracer's files share: the loaded concerns, the
 * shared maps' fds, the programs' status rows. Not for the rest of user space
 * (tracer.h is the interface).
 */
#ifndef TAILCAUSE_RECORD_BPF_TRACER_INTERNAL_H
#define TAILCAUSE_RECORD_BPF_TRACER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "skel_ops.h"
#include "tracer.h"

struct bpf_object;
struct bpf_program;
struct bpf_link;
struct btf;

#define MAX_PROGS 128
/* sched irq ipi mm power workqueue timer signal nic nic_fentry (tracer.c) */
#define N_CONCERNS 10

struct loaded {
	const struct skel_ops *ops;
	void *skel;
	struct bpf_object *obj;
};

struct tracer {
	int events_fd, tids_fd, gen_fd, cpus_fd, drops_fd, steal_fd, work_fd, work_n_fd;
	uint32_t tids_gen; /* last value written to probe_tids_gen */
	/* the kernel's own BTF (NULL: none): what tp_btf and fentry need */
	struct btf *vmlinux_btf;
	const char *btf_path;		      /* --btf FILE, or NULL */
	struct btf *types_btf;		      /* its types, parsed (NULL without --btf) */
	struct loaded loaded[N_CONCERNS + 1]; /* + the iteration markers (tracer_marks.c) */
	size_t n_loaded;
	struct bpf_link *links[MAX_PROGS];
	size_t n_links;
	size_t marks_from, marks_to; /* links[marks_from..marks_to): the iteration markers */
	struct tc_prog_status status[MAX_PROGS];
	size_t n_status;
};

/* tracer.c: the types the programs' CO-RE reads are relocated against (--btf's, else the kernel's).
 */
const struct btf *tracer_types_btf(const struct tracer *t);
/* tracer.c: the shared maps' fds into obj, before it loads; 0 or -errno (reported). */
int tracer_reuse_shared_maps(struct tracer *t, struct bpf_object *obj);
/* tracer.c: keeps link in t (detached by tracer__stop); 0 or -E2BIG (link destroyed). */
int tracer_keep_link(struct tracer *t, struct bpf_link *link);

/* tracer_select.c: which programs this kernel runs, and the status rows. */

/* A status row for program p of concern (NULL when the table is full). */
struct tc_prog_status *tracer_status_add(struct tracer *t, const char *concern,
					 const struct bpf_program *p);
/* Programs obj will load. */
size_t tracer_n_autoload(struct bpf_object *obj);
/*
 * Picks one program of each twin pair before load: tp_btf where the kernel has
 * it (and fallback is 0), else the classic tracepoint; a classic program without
 * a twin where tracefs has its event (a tp/syscalls/ one only with syscall_tps); fentry/fexit where
 * the kernel has the function. What loads nothing gets a status row with the reason.
 */
void tracer_select_programs(struct tracer *t, const char *concern, struct bpf_object *obj,
			    int fallback, int syscall_tps);
/* An iterator (SEC "iter/..."): run once at the end, never attached as a probe. */
int tracer_is_iter(const struct bpf_program *p);
/* Leaves task storage and its iterators out where no tp_btf program loads. */
void tracer_select_task_storage(struct bpf_object *obj);

#endif /* TAILCAUSE_RECORD_BPF_TRACER_INTERNAL_H */
