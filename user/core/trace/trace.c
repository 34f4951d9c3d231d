// SPDX-License-Identifier: BSD-2-Clause
/*
 * trace.c - the in-memory trace: growable arrays, lookups (trace_sort.c sorts it).
 * Its text (meta keys and values, IRQ names) is escaped here, as it is stored.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/str.h"
#include "trace.h"

_Static_assert(sizeof(struct tc_event) == 64, "struct tc_event is part of the ABI");
_Static_assert(sizeof(struct tc_sample) == 24, "struct tc_sample layout");
_Static_assert(sizeof(struct tc_thread) == 16, "struct tc_thread layout");
_Static_assert(sizeof(struct tc_counter) == 24, "struct tc_counter layout");

struct tc_trace *trace__new(void)
{
	/* calloc sets errno on failure */
	return calloc(1, sizeof(struct tc_trace));
}

void trace__free(struct tc_trace *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n_meta; i++) {
		free(t->meta[i].key);
		free(t->meta[i].val);
	}
	free(t->meta);
	free(t->threads);
	free(t->samples);
	free(t->events);
	free(t->irq_names);
	free(t->counters);
	free(t->drops);
	free(t->peer.arrivals);
	free(t);
}

struct tc_trace *trace__view(const struct tc_trace *base)
{
	struct tc_trace *v = malloc(sizeof(*v));

	if (!v)
		return NULL;
	*v = *base;
	v->samples = NULL;
	v->events = NULL;
	v->n_samples = v->n_events = v->n_derived = 0;
	v->cap_samples = v->cap_events = 0;
	/* the shared tables are not the view's to grow */
	v->cap_meta = v->cap_threads = v->cap_irq_names = v->cap_counters = 0;
	return v;
}

void trace__free_view(struct tc_trace *v)
{
	if (!v)
		return;
	free(v->samples);
	free(v->events);
	free(v);
}

struct tc_trace *trace__copy_tables(const struct tc_trace *src)
{
	struct tc_trace *t = trace__new();
	int err = t ? 0 : -ENOMEM;

	for (size_t i = 0; !err && i < src->n_meta; i++)
		err = trace__set_meta(t, src->meta[i].key, src->meta[i].val);
	for (size_t i = 0; !err && i < src->n_threads; i++)
		err = trace__add_thread(t, src->threads[i].tid, src->threads[i].role,
					src->threads[i].cpu);
	for (size_t i = 0; !err && i < src->n_irq_names; i++)
		err = trace__add_irq_name(t, src->irq_names[i].irq, src->irq_names[i].name);
	for (size_t i = 0; !err && i < src->n_counters; i++)
		err = trace__add_counter(t, src->counters[i].kind, src->counters[i].key,
					 src->counters[i].cpu, src->counters[i].value);
	for (size_t i = 0; !err && i < src->n_drops; i++)
		if (src->drops[i])
			err = trace__set_drops(t, (uint32_t)i, src->drops[i]);
	if (err) {
		trace__free(t);
		return NULL;
	}
	t->mono_ns = src->mono_ns;
	t->realtime_ns = src->realtime_ns;
	t->truncated = src->truncated;
	return t;
}

/* Makes room for `more` elements of `size` bytes after `used`; doubles the capacity. */
static int grow(void **arr, size_t *cap, size_t used, size_t more, size_t size)
{
	size_t need, ncap;
	void *p;

	if (more > SIZE_MAX - used)
		return -ENOMEM;
	need = used + more;
	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / size)
		return -ENOMEM;
	p = realloc(*arr, ncap * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

size_t trace__first_event(const struct tc_trace *t, uint64_t at)
{
	size_t lo = 0, hi = t->n_events;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->events[mid].start_ns < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t trace__cut(struct tc_trace *t, uint64_t lo, uint64_t hi, uint64_t margin)
{
	uint64_t elo = lo > margin ? lo - margin : 0,
		 ehi = hi + margin < hi ? UINT64_MAX : hi + margin;
	size_t ns = 0, ne = 0;

	for (size_t i = 0; i < t->n_samples; i++)
		if (t->samples[i].t_start >= lo && t->samples[i].t_start < hi)
			t->samples[ns++] = t->samples[i];
	for (size_t i = 0; i < t->n_events; i++) {
		const struct tc_event *e = &t->events[i];

		if (e->start_ns < ehi && e->start_ns + e->dur_ns >= elo)
			t->events[ne++] = *e;
	}
	t->n_samples = ns;
	t->n_events = ne;
	return ns;
}

int trace__set_metaf(struct tc_trace *t, const char *key, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return trace__set_meta(t, key, buf);
}

/* s escaped (lib/str.h) into a new string; NULL when out of memory. */
static char *escaped_dup(const char *s)
{
	size_t n = strlen(s);
	char *d;

	if (n > (SIZE_MAX - 1) / 4)
		return NULL;
	d = malloc(STR_ESCAPED_LEN(n));
	return d ? str_escape(d, STR_ESCAPED_LEN(n), s) : NULL;
}

int trace__set_meta(struct tc_trace *t, const char *key, const char *val)
{
	char *k, *v;
	size_t i;
	int err;

	if (!key || !val)
		return -EINVAL;
	k = escaped_dup(key);
	v = escaped_dup(val);
	if (!k || !v) {
		err = -ENOMEM;
		goto out_free;
	}
	for (i = 0; i < t->n_meta; i++) {
		if (!strcmp(t->meta[i].key, k)) {
			free(k);
			free(t->meta[i].val);
			t->meta[i].val = v;
			return 0;
		}
	}
	err = grow((void **)&t->meta, &t->cap_meta, t->n_meta, 1, sizeof(*t->meta));
	if (err)
		goto out_free;
	t->meta[t->n_meta].key = k;
	t->meta[t->n_meta].val = v;
	t->n_meta++;
	return 0;

out_free:
	free(k);
	free(v);
	return err;
}

int trace__add_thread(struct tc_trace *t, uint32_t tid, uint32_t role, uint32_t cpu)
{
	struct tc_thread *th;
	int err;

	err = grow((void **)&t->threads, &t->cap_threads, t->n_threads, 1, sizeof(*t->threads));
	if (err)
		return err;
	th = &t->threads[t->n_threads++];
	th->tid = tid;
	th->role = role;
	th->cpu = cpu;
	th->pad = 0;
	return 0;
}

int trace__add_samples(struct tc_trace *t, const struct tc_sample *s, size_t n)
{
	int err;

	if (!n)
		return 0;
	err = grow((void **)&t->samples, &t->cap_samples, t->n_samples, n, sizeof(*s));
	if (err)
		return err;
	memcpy(t->samples + t->n_samples, s, n * sizeof(*s));
	t->n_samples += n;
	return 0;
}

int trace__add_events(struct tc_trace *t, const struct tc_event *e, size_t n)
{
	int err;

	if (!n)
		return 0;
	err = grow((void **)&t->events, &t->cap_events, t->n_events, n, sizeof(*e));
	if (err)
		return err;
	memcpy(t->events + t->n_events, e, n * sizeof(*e));
	t->n_events += n;
	return 0;
}

static void (*prefault)(void *arr, size_t cap, size_t from, size_t bytes);

void trace__set_prefault(void (*fn)(void *arr, size_t cap, size_t from, size_t bytes))
{
	prefault = fn;
}

/*
 * Makes room for exactly `more` elements of `size` bytes after `used`, if it lacks any;
 * with fill, the room is written next: the prefault hook gets it.
 */
static int reserve(void **arr, size_t *cap, size_t used, size_t more, size_t size, int fill)
{
	void *p;

	if (more > SIZE_MAX - used || used + more > SIZE_MAX / size)
		return -ENOMEM;
	if (used + more > *cap) {
		p = realloc(*arr, (used + more) * size);
		if (!p)
			return -ENOMEM;
		*arr = p;
		*cap = used + more;
	}
	if (fill && more && prefault)
		prefault(*arr, *cap * size, used * size, more * size);
	return 0;
}

int trace__reserve(struct tc_trace *t, size_t n_samples, size_t n_events)
{
	int err;

	err = reserve((void **)&t->samples, &t->cap_samples, t->n_samples, n_samples,
		      sizeof(*t->samples), 1);
	if (!err)
		err = reserve((void **)&t->events, &t->cap_events, t->n_events, n_events,
			      sizeof(*t->events), 1);
	return err;
}

int trace__presize(struct tc_trace *t, size_t n_samples, size_t n_events)
{
	int err;

	err = reserve((void **)&t->samples, &t->cap_samples, t->n_samples, n_samples,
		      sizeof(*t->samples), 0);
	if (!err)
		err = reserve((void **)&t->events, &t->cap_events, t->n_events, n_events,
			      sizeof(*t->events), 0);
	return err;
}

int trace__add_irq_name(struct tc_trace *t, uint32_t irq, const char *name)
{
	struct tc_irq_name *in;
	int err;

	if (!name)
		return -EINVAL;
	err = grow((void **)&t->irq_names, &t->cap_irq_names, t->n_irq_names, 1,
		   sizeof(*t->irq_names));
	if (err)
		return err;
	in = &t->irq_names[t->n_irq_names++];
	memset(in, 0, sizeof(*in));
	in->irq = irq;
	/* longer names are cut to fit, like /proc/interrupts readers do */
	str_escape(in->name, sizeof(in->name), name);
	return 0;
}

int trace__add_counter(struct tc_trace *t, uint32_t kind, uint32_t key, uint32_t cpu,
		       uint64_t value)
{
	struct tc_counter *c;
	int err;

	err = grow((void **)&t->counters, &t->cap_counters, t->n_counters, 1, sizeof(*t->counters));
	if (err)
		return err;
	c = &t->counters[t->n_counters++];
	c->kind = kind;
	c->key = key;
	c->cpu = cpu;
	c->pad = 0;
	c->value = value;
	return 0;
}

int trace__set_drops(struct tc_trace *t, uint32_t cpu, uint64_t count)
{
	size_t need = (size_t)cpu + 1;
	uint64_t *d;

	if (need > t->n_drops) {
		if (need > SIZE_MAX / sizeof(*d))
			return -ENOMEM;
		d = realloc(t->drops, need * sizeof(*d));
		if (!d)
			return -ENOMEM;
		memset(d + t->n_drops, 0, (need - t->n_drops) * sizeof(*d));
		t->drops = d;
		t->n_drops = need;
	}
	t->drops[cpu] = count;
	return 0;
}

const char *trace__meta(const struct tc_trace *t, const char *key)
{
	size_t i;

	for (i = 0; i < t->n_meta; i++)
		if (!strcmp(t->meta[i].key, key))
			return t->meta[i].val;
	return NULL;
}

const char *trace__irq_name(const struct tc_trace *t, uint32_t irq)
{
	size_t i;

	for (i = 0; i < t->n_irq_names; i++)
		if (t->irq_names[i].irq == irq)
			return t->irq_names[i].name;
	return NULL;
}

uint32_t trace__thread_role(const struct tc_trace *t, uint32_t tid)
{
	size_t i;

	for (i = 0; i < t->n_threads; i++)
		if (t->threads[i].tid == tid)
			return t->threads[i].role;
	return 0;
}

uint64_t trace__total_drops(const struct tc_trace *t)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < t->n_drops; i++)
		sum += t->drops[i];
	return sum;
}
