// SPDX-License-Identifier: BSD-2-Clause
/* recorder_iter.c - record --iter: the markers of a traced command's iterations. */
#include <errno.h>
#include <stdio.h>

#include "core/trace/trace.h"
#include "iter_spec.h"
#include "lib/exitcode.h"
#include "recorder_internal.h"
#include "record/bpf/tracer.h"

/*
 * --iter: the markers of the command's iterations, found on this host and attached
 * before it starts, while the privileges that takes are still held. The report
 * makes the iterations from the marks (core/iter/iter_samples.h).
 */
int recorder_attach_marks(struct recorder *r)
{
	struct iter_spec s = *r->o->iter;
	char points[1024] = "";
	size_t off = 0;
	int err = iter_spec_resolve(&s), syscalls = 0;

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
