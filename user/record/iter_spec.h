/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * iter_spec.h - `record --iter SPEC`: where a traced command's iterations begin
 * (and end), as iteration markers the tracer attaches (tracer__add_marks).
 *
 *   perftest             each post of a send (the provider's post_send, found by
 *                        opening the RDMA devices: probe/verbs_hook.h), which is
 *                        what ib_*_lat times between; shown one way, as perftest does
 *   mpi                  each MPI rank's collective calls, entry and exit, from a
 *                        library preloaded into the ranks (mpi/tcmpi.c); no marker
 *   sockperf             from sendto's entry to recvfrom's successful return, what
 *                        sockperf ping-pong times; shown one way, as sockperf does
 *   syscall:NAME         each entry into system call NAME begins an iteration,
 *                        which the next one ends
 *   syscall:NAME:END     from NAME's entry to END's successful return
 *   uprobe:FILE:FUNC     each entry into function FUNC (a symbol, or 0xOFFSET in
 *                        the file) of FILE: a path, a library name looked up in
 *                        LD_LIBRARY_PATH and the system's library directories
 *                        (libfoo, libfoo.so, libfoo.so.1), or an executable in PATH
 */
#ifndef TAILCAUSE_RECORD_ITER_SPEC_H
#define TAILCAUSE_RECORD_ITER_SPEC_H

#include <stddef.h>

#include "record/bpf/tracer.h"

#define ITER_MAX_POINTS 8

struct iter_spec {
	const char *text; /* as given */
	char what[512];	  /* in words: "sockperf: sendto's entry to recvfrom's return" */
	unsigned int div; /* 2: ping-pong round trips shown one way (the benchmark's way) */
	int preset;	  /* ITER_PERFTEST, ITER_SOCKPERF, ITER_MPI, or 0 */
	struct tc_mark_point pts[ITER_MAX_POINTS];
	size_t n;
};

#define ITER_PERFTEST 1
#define ITER_SOCKPERF 2
#define ITER_MPI      3 /* no markers: the ranks' own records (record/coll_files.h) */

/* Parses text (syntax only); 0, or -EINVAL with the reason reported (a usage error). */
int iter_spec_parse(const char *text, struct iter_spec *s);

/*
 * Finds what s names on this host: the file a uprobe goes into, the system calls'
 * tracepoints, perftest's post_send of each RDMA device. 0, or -ENOENT / -ENODEV
 * with what was looked for, and where, reported.
 */
int iter_spec_resolve(struct iter_spec *s);

#endif /* TAILCAUSE_RECORD_ITER_SPEC_H */
