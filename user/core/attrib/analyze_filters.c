// SPDX-License-Identifier: BSD-2-Clause
/*
 * analyze_filters.c - which events can matter to a spike: the probe threads, the
 * CPUs they are pinned to, the CPUs samples were timed on, and the hidden costs
 * the trace was calibrated with (analyze_internal.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "analyze_internal.h"

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

int analyze_probe_tid(const struct ctx *c, uint32_t tid)
{
	size_t lo = 0, hi = c->n_probe_tids;

	if (!tid)
		return 0; /* CPU-wide events */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->probe_tids[mid] == tid)
			return 1;
		if (c->probe_tids[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

int analyze_probe_cpu(const struct ctx *c, uint32_t cpu)
{
	if (cpu < c->n_cpu_map)
		return c->cpu_map[cpu] & CPU_PROBE;
	for (size_t i = 0; i < c->t->n_threads; i++) {
		const struct tc_thread *th = &c->t->threads[i];

		if (th->role == TC_THREAD_PROBE && th->cpu == cpu)
			return 1;
	}
	return 0;
}

int analyze_beside_probe(const struct ctx *c, uint32_t cpu)
{
	return analyze_probe_cpu(c, cpu) || (cpu < c->n_cpu_map && c->cpu_map[cpu] & CPU_SAMPLE);
}

int analyze_thread_counts(const struct ctx *c, const struct tc_event *e, const struct tc_sample *s)
{
	return e->kind != TC_EV_OFFCPU || !s->tid || e->tid == s->tid ||
	       analyze_probe_tid(c, e->tid);
}

int analyze_maybe_relevant(const struct ctx *c, const struct tc_event *e, int probe_rel)
{
	if (probe_rel)
		return 1;
	if (e->cpu < c->n_cpu_map)
		return c->cpu_map[e->cpu] & CPU_SAMPLE;
	return c->wide_sample_cpu;
}

static void mark_cpu(struct ctx *c, uint32_t cpu, uint8_t flag)
{
	if (cpu < c->n_cpu_map)
		c->cpu_map[cpu] |= flag;
	else if (flag == CPU_SAMPLE)
		c->wide_sample_cpu = 1;
}

int analyze_setup_filters(struct ctx *c)
{
	const struct tc_trace *t = c->t;
	size_t n = 0;

	c->probe_tids = malloc((t->n_threads ? t->n_threads : 1) * sizeof(uint32_t));
	c->n_cpu_map = CPU_MAP_MAX;
	c->cpu_map = calloc(c->n_cpu_map, 1);
	if (!c->probe_tids || !c->cpu_map)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_samples; i++) {
		if (i && t->samples[i].t_start < t->samples[i - 1].t_start)
			return -EINVAL;
		mark_cpu(c, t->samples[i].cpu, CPU_SAMPLE);
	}
	/* one stretch of a streamed run: the CPUs of all its samples count */
	for (size_t i = 0; i < t->streamed.n_sample_cpus; i++)
		mark_cpu(c, t->streamed.sample_cpus[i], CPU_SAMPLE);
	for (size_t i = 0; i < t->n_threads; i++) {
		if (t->threads[i].role != TC_THREAD_PROBE)
			continue;
		c->probe_tids[n++] = t->threads[i].tid;
		if (t->threads[i].cpu != UINT32_MAX)
			mark_cpu(c, t->threads[i].cpu, CPU_PROBE);
	}
	qsort(c->probe_tids, n, sizeof(uint32_t), cmp_u32);
	c->n_probe_tids = n;
	c->a->calibrated = calibrate_load(t, &c->cal);
	for (int k = 0; k < TC_CALIB_KINDS; k++) {
		const struct tc_calib_kind *x = calibrate_kind(&c->cal, tc_calib_kinds[k]);

		if (x && x->pre_ns > c->max_pre)
			c->max_pre = x->pre_ns;
		if (x && x->post_ns > c->max_post)
			c->max_post = x->post_ns;
	}
	return idle_latency__load(&c->lat, t);
}
