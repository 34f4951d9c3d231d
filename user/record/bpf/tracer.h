/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tracer.h - loads every BPF concern (sched, irq, ...) against one set of
 * shared maps (ring buffer, thread and CPU filters, drop counters), attaches
 * what this kernel allows and says why anything else was left out.
 */
#ifndef TAILCAUSE_RECORD_BPF_TRACER_H
#define TAILCAUSE_RECORD_BPF_TRACER_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

struct tracer_cfg {
	size_t ringbuf_bytes; /* rounded up to a power of two, >= 4096 */
	int force_fallback;   /* classic tracepoints instead of tp_btf */
	int follow_children;  /* record -- CMD: follow new threads of TC_ROLE_TARGET ones */
	int syscall_tps;      /* --signal-ends: load the tp/syscalls/ programs (each puts every
			       * system call of the machine on its slow path) */
	const char *btf_path; /* --btf: the kernel's types (CO-RE) from this file, not the
			       * kernel's own BTF (libbpf's btf_custom_path); NULL: none */
};

/* What happened to one BPF program. */
struct tc_prog_status {
	char concern[16]; /* "sched", "irq" */
	char prog[48];	  /* program name in the object */
	char target[64];  /* "tp_btf/sched_switch" */
	int attached;
	char reason[160]; /* why not, when !attached */
};

struct tracer;

/* Routes libbpf's own messages through tailcause's: warnings at -v, debug at -vv. */
void tracer_setup_log(void);

/* For --version: the libbpf this process runs with, and whether this kernel has BTF. */
void tracer_print_facts(FILE *out);

/*
 * Opens, loads and attaches every concern. Programs that cannot attach are
 * recorded with their reason; a concern that cannot load at all is an error.
 * Returns NULL with errno set (and the failure already reported).
 */
struct tracer *tracer__new(const struct tracer_cfg *cfg);
void tracer__free(struct tracer *t);
/*
 * Detaches every program and returns once none is still running: nothing more
 * reaches the ring buffer or the drop counters. The maps stay readable.
 */
void tracer__stop(struct tracer *t);

/* Traces thread tid (its off-CPU time) as role TC_ROLE_*; 0 or -errno. */
int tracer__add_tid(struct tracer *t, uint32_t tid, uint32_t role);
/* Stops tracing thread tid; 0 or -errno. */
int tracer__del_tid(struct tracer *t, uint32_t tid);
/* Traces IRQs and softirqs on cpu; 0 or -errno. */
int tracer__add_cpu(struct tracer *t, uint32_t cpu);
/* Stops tracing them on cpu until a traced command's thread runs there; 0 or -errno. */
int tracer__drop_cpu(struct tracer *t, uint32_t cpu);

/* Traces what runs on cpu, an SMT sibling of probe CPU probe (TC_EV_SIBLING); 0 or -errno. */
int tracer__add_sibling(struct tracer *t, uint32_t cpu, uint32_t probe);

/* Where an iteration marker (record --iter) attaches. */
enum tc_mark_at {
	TC_MARK_AT_SYSCALL_ENTER = 1, /* syscalls:sys_enter_<syscall>: an iteration begins */
	TC_MARK_AT_SYSCALL_EXIT,      /* syscalls:sys_exit_<syscall>, ret >= 0: it ends */
	TC_MARK_AT_UPROBE,	      /* the entry of func (or the code at offset) in path */
};

struct tc_mark_point {
	enum tc_mark_at at;
	char syscall[32]; /* SYSCALL_*: "sendto" */
	char path[256];	  /* UPROBE: the library or executable, a full path */
	char func[128];	  /* UPROBE: the function's name, for the record ("": none) */
	uint64_t offset;  /* UPROBE: the file offset (not a load address) to attach at */
};

/*
 * Attaches an iteration marker at each of p[0..n), for every process (the programs
 * keep the threads of interest only); each gets a status row (concern "iter").
 * 0, or -errno with the point that failed reported naming what was looked for.
 */
int tracer__add_marks(struct tracer *t, const struct tc_mark_point *p, size_t n);

/* From now on the markers make at most n more marks (0: no limit); 0 or -errno. */
int tracer__limit_marks(struct tracer *t, uint64_t n);

/*
 * Detaches the iteration markers (tracer__add_marks) now: what they cost stops. Needs
 * no privilege. The rest traces on.
 */
void tracer__drop_marks(struct tracer *t);

/*
 * One marker at p, outside the trace's record of what was traced: for measuring what
 * a marker costs (record/mark_calib.c). The caller destroys the link
 * (bpf_link__destroy); NULL with errno set.
 */
struct bpf_link;
struct bpf_link *tracer__mark_probe(struct tracer *t, const struct tc_mark_point *p);

/* The ring buffer's map fd, for ring_buffer__new(). */
int tracer__ringbuf_fd(const struct tracer *t);

/*
 * Reads the IRQ placement counters (hard IRQ handler runs per IRQ per CPU, all
 * CPUs) and calls add(ctx, irq, cpu, count) for each non-zero one; 0 or -errno.
 */
int tracer__read_irq_counts(const struct tracer *t,
			    int (*add)(void *ctx, uint32_t irq, uint32_t cpu, uint64_t n),
			    void *ctx);

/*
 * Reads the ring-buffer drops of each CPU and record kind into
 * drops[cpu * TC_DROP_KINDS + kind], cpu < ncpu; 0 or -errno.
 */
int tracer__read_drops(const struct tracer *t, uint64_t *drops, size_t ncpu);

/*
 * Whether the programs read hypervisor steal time (1) or not (0), and in why the
 * source, or the reason there is none.
 */
int tracer__steal_source(const struct tracer *t, char *why, size_t len);

/*
 * The runs of the loaded programs the kernel skipped (bpf_prog_info's recursion_misses:
 * an event that came while a BPF program already ran on that CPU, which the kernel's
 * recursion guard refuses, so its record is missing): each(ctx, concern, program,
 * missed) for every program that missed some; returns their sum.
 */
uint64_t tracer__missed(const struct tracer *t,
			void (*each)(void *ctx, const char *concern, const char *prog,
				     uint64_t missed),
			void *ctx);
/* The status of every program; *out stays valid until tracer__free(). */
size_t tracer__status(const struct tracer *t, const struct tc_prog_status **out);

/*
 * The intervals still open at the end of a recording, ending at now_ns: off-CPU
 * intervals (a probe thread switched out and not back in) and the work items
 * still running on a probe CPU. Calls emit(ctx, e) for each, so nothing is lost.
 * Returns how many were found.
 */
struct tc_event;
size_t tracer__flush_open(struct tracer *t, uint64_t now_ns,
			  void (*emit)(void *ctx, const struct tc_event *e), void *ctx);

/*
 * Page faults still open (no RSS change seen yet), emitted as instants: the
 * fault happened, its end is unknown. Returns how many were found.
 */
size_t tracer__flush_faults(struct tracer *t, void (*emit)(void *ctx, const struct tc_event *e),
			    void *ctx);

/*
 * Signal handlers still running (delivered, no rt_sigreturn seen yet), emitted as
 * instants: the signal was delivered, its handler's end is unknown. Returns how
 * many were found.
 */
size_t tracer__flush_signals(struct tracer *t, void (*emit)(void *ctx, const struct tc_event *e),
			     void *ctx);

#endif /* TAILCAUSE_RECORD_BPF_TRACER_H */
