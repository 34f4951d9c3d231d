// SPDX-License-Identifier: BSD-2-Clause
/*
 * noise_acc.c - the accumulators of the noise report (noise_acc.h): its causes by group
 * and name, its (thread, interval) rows and (row, cause) parts, each found through a
 * hash map and the thread's last row and part; amounts split at interval boundaries.
 */
#include <errno.h>
#include <string.h>

#include "core/attrib/spike_context.h"
#include "core/util/grow.h"
#include "noise_acc.h"

static uint64_t name_hash(const char *s, enum tc_noise_group g)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)g;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The index of the cause (group, name), added with class cls if new; 0 or -ENOMEM/-E2BIG. */
static int cause_of(struct noise_acc *acc, enum tc_noise_group g, enum tc_cause_class cls,
		    const char *name, uint32_t *out)
{
	struct tc_noise_cause *c;
	uint64_t key = name_hash(name, g);
	size_t i;

	for (;; key++) {
		if (!u64map_get(&acc->causemap, key, &i))
			break;
		if (acc->causes[i].group == g && !strcmp(acc->causes[i].name, name)) {
			*out = (uint32_t)i;
			return 0;
		}
	}
	if (acc->n_causes >= NOISE_MAX_CAUSES)
		return -E2BIG;
	if (grow(&acc->causes, &acc->cap_causes, acc->n_causes + 1, sizeof(*acc->causes)))
		return -ENOMEM;
	c = &acc->causes[acc->n_causes];
	memset(c, 0, sizeof(*c));
	strncpy(c->name, name, sizeof(c->name) - 1);
	c->cls = cls;
	c->group = g;
	if (u64map_put(&acc->causemap, key, acc->n_causes))
		return -ENOMEM;
	*out = (uint32_t)acc->n_causes++;
	return 0;
}

int noise_acc_fixed_cause(struct noise_acc *acc, enum noise_fixed f, enum tc_noise_group g,
			  enum tc_cause_class cls, const char *name, uint32_t *out)
{
	int err;

	if (acc->fixed[f]) {
		*out = acc->fixed[f] - 1;
		return 0;
	}
	err = cause_of(acc, g, cls, name, out);
	if (!err)
		acc->fixed[f] = *out + 1;
	return err;
}

static int row_of(struct noise_acc *acc, size_t thread, uint64_t bin, size_t *out)
{
	uint64_t key = (uint64_t)thread << 40 | bin;
	struct noise_tcache *tc = &acc->tcache[thread];
	struct noise_racc *r;

	if (tc->bin == bin) {
		*out = tc->row;
		return 0;
	}
	if (u64map_get(&acc->rowmap, key, out)) {
		tc->bin = bin;
		tc->row = *out;
		return 0;
	}
	if (grow(&acc->rows, &acc->cap_rows, acc->n_rows + 1, sizeof(*acc->rows)))
		return -ENOMEM;
	r = &acc->rows[acc->n_rows];
	memset(r, 0, sizeof(*r));
	r->thread = thread;
	r->bin = bin;
	*out = acc->n_rows++;
	if (u64map_put(&acc->rowmap, key, *out))
		return -ENOMEM;
	tc->bin = bin;
	tc->row = *out;
	return 0;
}

/* Adds (sub == 0) or takes away ns from the cause in the row; count is added either way. */
static int part_add(struct noise_acc *acc, size_t row, uint32_t cause, uint64_t ns, uint64_t count,
		    int sub)
{
	uint64_t key = (uint64_t)row << 24 | cause;
	struct noise_tcache *tc = &acc->tcache[acc->rows[row].thread];
	struct noise_pacc *p;
	size_t i;

	if (tc->part_row == row && tc->part_cause == cause) {
		i = tc->part;
	} else if (!u64map_get(&acc->partmap, key, &i)) {
		if (grow(&acc->parts, &acc->cap_parts, acc->n_parts + 1, sizeof(*acc->parts)))
			return -ENOMEM;
		i = acc->n_parts++;
		acc->parts[i] = (struct noise_pacc){.row = row, .cause = cause};
		if (u64map_put(&acc->partmap, key, i))
			return -ENOMEM;
	}
	tc->part_row = row;
	tc->part_cause = cause;
	tc->part = i;
	p = &acc->parts[i];
	if (sub)
		p->ns = p->ns > ns ? p->ns - ns : 0;
	else
		p->ns = sat_add(p->ns, ns);
	p->count += count;
	return 0;
}

static uint64_t bin_of(const struct noise_acc *acc, uint64_t ts)
{
	return ts > acc->t0 ? (ts - acc->t0) / acc->iv : 0;
}

int noise_add_span(struct noise_acc *acc, size_t thread, uint32_t cause, uint64_t s, uint64_t e,
		   uint64_t count, int sub)
{
	for (uint64_t b = bin_of(acc, s);; b++) {
		uint64_t edge = acc->t0 + (b + 1) * acc->iv, hi = e < edge ? e : edge;
		size_t row;
		int err = row_of(acc, thread, b, &row);

		err = err ?: part_add(acc, row, cause, hi > s ? hi - s : 0, count, sub);
		if (err)
			return err;
		count = 0;
		if (e <= edge)
			return 0;
		s = edge;
	}
}

static void note_cpu(struct noise_racc *r, uint32_t cpu)
{
	uint32_t n = r->n_cpus < TC_NOISE_ROW_CPUS ? r->n_cpus : TC_NOISE_ROW_CPUS;

	for (uint32_t i = 0; i < n; i++)
		if (r->cpus[i] == cpu)
			return;
	if (r->n_cpus < TC_NOISE_ROW_CPUS)
		r->cpus[r->n_cpus] = cpu;
	r->n_cpus++;
}

int noise_acc_add_run(struct noise_acc *acc, size_t thread, uint32_t cpu, uint64_t s, uint64_t e)
{
	for (uint64_t b = bin_of(acc, s); s < e; b++) {
		uint64_t edge = acc->t0 + (b + 1) * acc->iv, hi = e < edge ? e : edge;
		size_t row;

		if (row_of(acc, thread, b, &row))
			return -ENOMEM;
		acc->rows[row].run_ns += hi - s;
		note_cpu(&acc->rows[row], cpu);
		s = hi;
	}
	return 0;
}

int noise_acc_add_instant(struct noise_acc *acc, size_t thread, const struct tc_event *e)
{
	size_t row;
	uint32_t cause;
	int err = row_of(acc, thread, bin_of(acc, e->start_ns), &row);

	if (err)
		return err;
	if (e->kind == TC_EV_MIGRATE) {
		acc->rows[row].migrations++;
		return 0;
	}
	acc->rows[row].faults++;
	err = noise_acc_fixed_cause(acc, NOISE_FIXED_FAULT, TC_NOISE_FAULT, TC_CAUSE_PAGE_FAULT,
				    "page-fault", &cause);
	if (err)
		return err;
	/* A fault with its end took that long; one without is counted, not timed. */
	if (e->dur_ns)
		return noise_add_span(acc, thread, cause, e->start_ns,
				      sat_add(e->start_ns, e->dur_ns), 1, 0);
	return part_add(acc, row, cause, 0, 1, 0);
}

int noise_name_event(struct noise_acc *acc, enum tc_noise_group g, const struct tc_event *e,
		     uint64_t func, uint32_t *cause)
{
	struct tc_name_ctx ctx = {TC_CAUSE_UNATTRIBUTED, TC_NO_VECTOR, func};
	char name[TC_CAUSE_NAME_LEN];
	enum tc_cause_class cls = causes_name_event_ctx(acc->t, e, func ? &ctx : NULL, acc->pattern,
							name, sizeof(name));

	return cause_of(acc, g, cls, name, cause);
}

int noise_is_cpu_wide(const struct tc_event *e)
{
	return e->dur_ns &&
	       (e->kind == TC_EV_HARDIRQ || e->kind == TC_EV_SOFTIRQ || e->kind == TC_EV_IPI ||
		e->kind == TC_EV_TIMER || e->kind == TC_EV_NIC || e->kind == TC_EV_NMI);
}
