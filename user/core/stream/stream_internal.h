/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stream_internal.h - private to user/core: what the streamed analysis's run
 * (analyze_stream.c) and its merger of the segments' analyses (stream_merge.c) share.
 */
#ifndef TAILCAUSE_CORE_STREAM_INTERNAL_H
#define TAILCAUSE_CORE_STREAM_INTERNAL_H

#include <errno.h>
#include <string.h>

#include "core/attrib/analyze.h"
#include "core/util/grow.h"
#include "core/trace/trace.h"

/* A growing array of events. */
struct evvec {
	struct tc_event *v;
	size_t n, cap;
};

static inline int evvec_add(struct evvec *x, const struct tc_event *e, size_t n)
{
	if (!n)
		return 0;
	if (grow(&x->v, &x->cap, x->n + n, sizeof(*x->v)))
		return -ENOMEM;
	memcpy(x->v + x->n, e, n * sizeof(*e));
	x->n += n;
	return 0;
}

static inline uint64_t end_of(const struct tc_event *e)
{
	return sat_add(e->start_ns, e->dur_ns);
}

/* A spike kept with its intervals: sample is the run's number, its contribs index ev. */
struct kept {
	struct tc_spike sp;
	struct tc_sample s;
	struct tc_contrib *c;
	struct tc_event *ev;
};

/* The run's analysis as the segments add to theirs. */
struct merger {
	struct tc_analysis *a; /* causes and totals; spikes at the end */
	size_t cap_causes;
	struct kept **heap; /* the kept spikes; the root ranks lowest */
	size_t n_heap, keep;
	int started;
	struct evvec extra; /* lost windows and IRQ moves, which the header lists */
};

/* Adds segment analysis sa (of seg, whose first round trip is the run's number base) to
 * the run's: causes by name, totals, the spikes that rank among the `keep` largest. 0 or
 * -ENOMEM. */
int stream_merge(struct merger *m, const struct tc_trace *seg, const struct tc_analysis *sa,
		 uint64_t base);
/* The kept spikes' trace (skel's tables) and the run's analysis in m->a; 0 or -ENOMEM. */
int stream_finish(struct merger *m, const struct tc_trace *skel, struct tc_trace **rt);
void stream_merger_free(struct merger *m);

#endif /* TAILCAUSE_CORE_STREAM_INTERNAL_H */
