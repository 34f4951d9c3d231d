// SPDX-License-Identifier: BSD-2-Clause
/* report_plan.c - whole, a stretch or streamed, and what is refused (report_plan.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/exitcode.h"
#include "report_plan.h"

int report_has_stretch(const struct report_opts *o)
{
	return o->from_ns || (o->to_ns && o->to_ns != UINT64_MAX);
}

/* Round trips of its own (as the opening counted them). */
static int has_samples(const struct report_facts *f)
{
	return f->file.samples > 0;
}

/* What keeps the report from being read a segment at a time, or NULL: nothing. */
static const char *not_streamable(const struct report_opts *o, const struct report_facts *f)
{
	if (o->format == REPORT_PERFETTO)
		return "the Perfetto trace holds every round trip (report a stretch of it with "
		       "--from/--to)";
	if (o->samples_path || o->iter_log_path)
		return "a benchmark's own iterations are placed on the whole trace";
	if (o->peer_path)
		return "a two-host join aligns the whole run's clocks";
	if (!f->file.intact)
		return NULL; /* what the file holds is not known: the read says what is wrong */
	if (f->marked)
		return "a benchmark's own iterations are placed on the whole trace";
	if (!has_samples(f))
		return "a trace without round trips is a noise report";
	return NULL;
}

/* Whether the stretch asked for can be read alone: its round trips are the trace's own (or
 * not known: the read says what is wrong). */
static int stretch_alone(const struct report_opts *o, const struct report_facts *f)
{
	return report_has_stretch(o) && !o->samples_path && !o->peer_path &&
	       (!f->file.intact || (!f->marked && has_samples(f)));
}

/* Why the trace is read whole; unstreamable: why it is not streamed, where it was asked. */
static const char *whole_why(const struct report_opts *o, const struct report_facts *f,
			     const char *unstreamable)
{
	if (report_has_stretch(o)) {
		if (o->samples_path || o->peer_path)
			return "--samples and --peer pair round trips by their place in the whole "
			       "run, then keep the stretch";
		if (f->marked)
			return "marked iterations are made from the whole trace, then cut to the "
			       "stretch";
		if (!has_samples(f))
			return "no round trips of its own to find the stretch's blocks by";
	}
	if (unstreamable)
		return unstreamable;
	return o->stream < 0 ? "--no-stream" : "under 64 MiB: read whole";
}

__attribute__((format(printf, 3, 4))) static int refuse(struct report_plan *p, int err,
							const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
	return err;
}

static uint64_t bytes_of(uint64_t n, size_t size)
{
	return n > UINT64_MAX / size ? UINT64_MAX : n * size;
}

/*
 * A long trace read whole must fit: its records' arrays alone (before any analysis) taking
 * more than the memory available is refused in one line, where the kernel's OOM killer
 * would end the report minutes later without a word. Known from the index only.
 */
static int fits_whole(const char *path, const struct report_facts *f, struct report_plan *p)
{
	uint64_t samples = f->file.samples, events = f->file.events, need, ev;

	if (f->file.file_size < REPORT_STREAM_FILE_MIN || !f->file.indexed)
		return 0; /* small, or no index: the read says what it finds */
	need = bytes_of(samples, sizeof(struct tc_sample));
	ev = bytes_of(events, sizeof(struct tc_event));
	need = need + ev < need ? UINT64_MAX : need + ev;
	if (!f->mem_avail || need <= f->mem_avail)
		return 0;
	return refuse(p, -TC_ERRNO__ENV,
		      "report %s: read whole, its %" PRIu64 " round trips and %" PRIu64
		      " events need over %.1f GiB, and %.1f GiB are available: %s",
		      path, samples, events, (double)need / (1 << 30),
		      (double)f->mem_avail / (1 << 30),
		      samples ? "report a stretch of it (--from/--to), or as text, JSON, HTML or "
				"OpenMetrics, which read it a segment at a time"
			      : "a noise report reads the whole trace; record a shorter run");
}

int report_plan(const char *path, const struct report_opts *o, const struct report_facts *f,
		struct report_plan *p)
{
	const char *unstreamable = NULL;

	memset(p, 0, sizeof(*p));
	/* a long trace a segment at a time, where the report allows it */
	if (o->stream > 0 || (!o->stream && f->file.file_size >= REPORT_STREAM_FILE_MIN)) {
		unstreamable = not_streamable(o, f);
		if (!unstreamable) {
			p->read = REPORT_READ_STREAMED;
			p->why = o->stream > 0 ? "--stream: a segment at a time"
					       : "64 MiB or more: a segment at a time";
			return 0;
		}
		if (o->stream > 0)
			return refuse(p, -TC_ERRNO__USAGE,
				      "report %s: --stream: %s; report it without --stream", path,
				      unstreamable);
	}
	if (stretch_alone(o, f)) {
		p->read = REPORT_READ_STRETCH;
		p->why = "--from/--to: the stretch's blocks alone";
		return 0;
	}
	p->read = REPORT_READ_WHOLE;
	p->why = whole_why(o, f, unstreamable);
	return fits_whole(path, f, p);
}
