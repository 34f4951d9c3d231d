// SPDX-License-Identifier: BSD-2-Clause
/* recorder_iter.c - record --iter: the markers of a traced command's iterations. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "coll_files.h"
#include "core/trace/trace.h"
#include "iter_spec.h"
#include "lib/exitcode.h"
#include "lib/log.h"
#include "recorder_internal.h"
#include "record/bpf/tracer.h"

/*
 * --iter: the markers of the command's iterations, found on this host and attached
 * before it starts, while the privileges that takes are still held. The report
 * makes the iterations from the marks (core/iter/iter_samples.h).
 */
/*
 * --iter mpi: no marker; the ranks' library and the directory its records come
 * through, given to the command's environment before it starts.
 */
static int attach_mpi(struct recorder *r, const struct iter_spec *s)
{
	char lib[4096], why[4352];
	int err;

	if (!coll_files_find_lib(lib, sizeof(lib), why, sizeof(why))) {
		log_err("--iter mpi: %s (make builds it where an MPI compiler, mpicc, is "
			"installed)",
			why);
		return -TC_ERRNO__ENV;
	}
	r->coll = malloc(sizeof(*r->coll));
	if (!r->coll)
		return -ENOMEM;
	err = coll_files_open(r->coll, lib);
	if (!err) { /* for the command alone: nothing else this process starts */
		r->target.env[0] = r->coll->env_dir;
		r->target.env[1] = r->coll->env_preload;
	}
	err = err ?: trace__set_meta(r->trace, "iter.spec", s->text);
	err = err ?: trace__set_meta(r->trace, "iter.what", s->what);
	err = err ?: trace__set_meta(r->trace, "iter.points", lib);
	err = err ?: trace__set_meta(r->trace, "iter.div", "1");
	return err ?: trace__set_meta(r->trace, "iter.syscalls", "no");
}

int recorder_attach_marks(struct recorder *r)
{
	struct iter_spec s = *r->o->iter;
	char points[1024] = "";
	size_t off = 0;
	int err, syscalls = 0;

	if (s.preset == ITER_MPI)
		return attach_mpi(r, &s);
	err = iter_spec_resolve(&s);

	if (err) /* reported: what this host lacks */
		return -TC_ERRNO__ENV;
	err = tracer__add_marks(r->tracer, s.pts, s.n);
	if (err)
		return err;
	mark_calib_attach(&r->mcal, r->tracer);
	for (size_t i = 0; i < s.n && off < sizeof(points); i++) {
		const struct tc_mark_point *p = &s.pts[i];

		if (p->at == TC_MARK_AT_UPROBE)
			off += (size_t)snprintf(points + off, sizeof(points) - off,
						"%suprobe %s%s%s+0x%llx", i ? ", " : "", p->path,
						p->func[0] ? ":" : "", p->func,
						(unsigned long long)p->offset);
		else
			off += (size_t)snprintf(
				points + off, sizeof(points) - off, "%s%s %s", i ? ", " : "",
				p->at == TC_MARK_AT_SYSCALL_ENTER ? "enter" : "exit", p->syscall);
		syscalls |= p->at != TC_MARK_AT_UPROBE;
	}
	err = trace__set_meta(r->trace, "iter.spec", s.text);
	err = err ?: trace__set_meta(r->trace, "iter.what", s.what);
	err = err ?: trace__set_meta(r->trace, "iter.points", points);
	err = err ?: trace__set_metaf(r->trace, "iter.div", "%u", s.div);
	err = err ?: trace__set_meta(r->trace, "iter.syscalls", syscalls ? "yes" : "no");
	if (!err && r->o->iter_first)
		err = trace__set_metaf(r->trace, "iter.first", "%zu", r->o->iter_first);
	return err;
}
