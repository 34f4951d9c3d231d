// SPDX-License-Identifier: BSD-2-Clause
/* wakeups.c - blocked off-CPU intervals split at their wake-up: asleep, then waiting. */
#include <errno.h>
#include <stdlib.h>

#include "wakeups.h"

long trace__split_wakeups(struct tc_trace *t)
{
	size_t n = 0, n_events = t->n_events;
	struct tc_event *parts;
	int err;

	for (size_t i = 0; i < n_events; i++)
		n += trace__splittable(&t->events[i]);
	if (!n)
		return 0;
	parts = malloc(n * sizeof(*parts));
	if (!parts)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < n_events; i++) {
		const struct tc_event *e = &t->events[i];
		struct tc_event *w = &parts[n];

		if (!trace__splittable(e))
			continue;
		*w = *e;
		w->start_ns = e->start_ns + e->woken_after_ns;
		w->dur_ns = e->dur_ns - e->woken_after_ns;
		w->woken_after_ns = 0;
		w->flags |= TC_OFFCPU_PREEMPTED | TC_OFFCPU_WOKEN;
		n++;
	}
	err = trace__add_events(t, parts, n); /* may move t->events: split after */
	free(parts);
	if (err)
		return err;
	for (size_t i = 0; i < n_events; i++) {
		struct tc_event *e = &t->events[i];

		if (!trace__splittable(e))
			continue;
		e->dur_ns = e->woken_after_ns;		   /* asleep until woken */
		e->flags &= (uint16_t)~TC_OFFCPU_MIGRATED; /* it moved when it ran again */
	}
	t->n_derived += n;
	return (long)n;
}
