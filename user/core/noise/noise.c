// SPDX-License-Identifier: BSD-2-Clause
/*
 * noise.c - per-interval noise of a traced command's threads (noise.h).
 *
 * Three passes over the sorted events, each linear:
 *   1. anchors: the off-CPU intervals, page faults and compaction/reclaim of
 *      each thread, in time order per thread, give the stretches it is known
 *      to have run, and on which CPU (noise_stretch.c);
 *   2. per thread: its signal handlers (whole, first), off-CPU intervals (split
 *      into blocked and waiting, and taken from a handler they fall in), its own
 *      compaction/reclaim, page faults and migrations;
 *   3. CPU-wide intervals (hardirq, softirq, timer, IPI, NIC), swept against
 *      the stretches of their CPU, sorted by start and clipped to be disjoint;
 *      a per-CPU stack of open intervals finds the nested ones; an outermost
 *      one is taken from the handler it fell in.
 * Every amount is split at interval boundaries into (thread, interval, cause)
 * accumulators kept in hash maps; noise_build.c sorts them into the result.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/attrib/spike_context.h"
#include "core/util/grow.h"
#include "noise_acc.h"

/* ---- threads -------------------------------------------------------------------------- */

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

static int collect_threads(struct noise_acc *acc)
{
	const struct tc_trace *t = acc->t;
	size_t cap = 0, n = 0;

	for (size_t i = 0; i < t->n_events + t->n_threads; i++) {
		uint32_t tid;

		if (i < t->n_events) {
			if (t->events[i].kind != TC_EV_OFFCPU)
				continue;
			tid = t->events[i].tid;
		} else if (t->threads[i - t->n_events].role == TC_THREAD_TARGET) {
			tid = t->threads[i - t->n_events].tid;
		} else {
			continue;
		}
		if (!tid || (n && acc->tids[n - 1] == tid))
			continue;
		if (grow(&acc->tids, &cap, n + 1, sizeof(*acc->tids)))
			return -ENOMEM;
		acc->tids[n++] = tid;
	}
	if (n) {
		size_t m = 0;

		qsort(acc->tids, n, sizeof(*acc->tids), cmp_u32);
		for (size_t i = 0; i < n; i++) {
			uint32_t role = trace__thread_role(t, acc->tids[i]);

			/* the recorder's, and the wakers followed for the wait chain: not the
			 * command's threads */
			if ((m && acc->tids[i] == acc->tids[m - 1]) || role == TC_THREAD_SELF ||
			    role == TC_THREAD_WAKER)
				continue;
			acc->tids[m++] = acc->tids[i];
		}
		n = m;
	}
	acc->n_tids = n;
	if (n > NOISE_MAX_THREADS)
		return -E2BIG;
	acc->tcache = malloc((n ? n : 1) * sizeof(*acc->tcache));
	if (!acc->tcache)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		acc->tcache[i] = (struct noise_tcache){.bin = UINT64_MAX, .part_row = SIZE_MAX};
	return 0;
}

/* ---- pass 2: the threads' own intervals and instants ---------------------------------- */

static int name_event(struct noise_acc *acc, enum tc_noise_group g, const struct tc_event *e,
		      uint32_t *cause)
{
	return noise_name_event(acc, g, e, 0, cause);
}

/* Preempted: all of it. Blocked: asleep until woken, then waiting for the CPU. */
static int add_offcpu(struct noise_acc *acc, size_t th, size_t i)
{
	const struct tc_event *e = &acc->t->events[i];
	uint64_t s = e->start_ns, end = sat_add(s, e->dur_ns),
		 woken = sat_add(s, e->woken_after_ns);
	struct tc_event as_preempted = *e;
	uint32_t cause;
	int err;

	err = noise_handler_exclude(acc, th, s, end); /* off CPU: not running its handler */
	if (err)
		return err;
	if (e->flags & TC_OFFCPU_PREEMPTED) {
		err = noise_name_preemption(acc, i, e, s, end, &cause);
		return err ?: noise_add_span(acc, th, cause, s, end, 1, 0);
	}
	if (!e->woken_after_ns || woken >= end)
		woken = end;
	err = noise_acc_fixed_cause(acc, NOISE_FIXED_BLOCKED, TC_NOISE_BLOCKED,
				    TC_CAUSE_UNATTRIBUTED, "blocked", &cause);
	err = err ?: noise_add_span(acc, th, cause, s, woken, 1, 0);
	if (err || woken >= end)
		return err;
	as_preempted.flags |= TC_OFFCPU_PREEMPTED;
	if (!e->other_pid)
		err = noise_acc_fixed_cause(acc, NOISE_FIXED_IDLE, TC_NOISE_OFFCPU,
					    TC_CAUSE_IDLE_EXIT, "idle-exit", &cause);
	else
		err = noise_name_preemption(acc, i, &as_preempted, woken, end, &cause);
	return err ?: noise_add_span(acc, th, cause, woken, end, 1, 0);
}

static int thread_pass(struct noise_acc *acc)
{
	const struct tc_trace *t = acc->t;
	uint32_t cause, last_tid = 0;
	size_t th = SIZE_MAX; /* tid 0's */
	int err = 0;

	for (size_t i = 0; i < t->n_events && !err; i++) {
		const struct tc_event *e = &t->events[i];

		/* a thread's events come in bursts: look the tid up when it changes */
		if (e->tid != last_tid) {
			last_tid = e->tid;
			th = noise_thread_of(acc, e->tid);
		}
		if (th == SIZE_MAX)
			continue;
		switch (e->kind) {
		case TC_EV_OFFCPU:
			err = add_offcpu(acc, th, i);
			break;
		case TC_EV_PAGE_FAULT:
		case TC_EV_MIGRATE:
			err = noise_acc_add_instant(acc, th, e);
			break;
		case TC_EV_COMPACTION:
		case TC_EV_RECLAIM:
			err = name_event(acc, TC_NOISE_MM, e, &cause);
			err = err
				      ?: noise_add_span(acc, th, cause, e->start_ns,
							sat_add(e->start_ns, e->dur_ns), 1, 0);
			break;
		}
	}
	return err;
}

/* ---- pass 3: CPU-wide intervals on the CPUs the threads ran on -------------------------- */

#define NEST_DEPTH 8

struct cpu_sweep {
	size_t first, n, pos; /* its stretches, and the first that may still overlap */
	uint32_t depth;
	uint64_t open_start[NEST_DEPTH];
	uint64_t open_end[NEST_DEPTH];
	uint32_t open_cause[NEST_DEPTH];
};

/*
 * t->events[i]'s cause: by kind and vector, or for the local timer interrupt and the
 * TIMER/HRTIMER softirqs by the callback that ran inside (timer:tick, timer:<function>),
 * each name looked up once. *wakes: whether its work is a wake-up (a reschedule IPI, a
 * call-function IPI that ran queued wake-ups, a timer whose callback only wakes a sleeper).
 */
static int cpu_wide_cause(struct noise_acc *acc, size_t i, uint32_t *cause, int *wakes)
{
	const struct tc_event *e = &acc->t->events[i];
	uint64_t key = (uint64_t)e->kind << 32 | e->arg, func = 0;
	struct u64map *cache = &acc->namecache;
	size_t c;
	int err;

	*wakes = context_ipi_wakes(e);
	if (context_is_timer_parent(e))
		func = noise_busiest_callback(acc->t, i, e->cpu, e->start_ns,
					      sat_add(e->start_ns, e->dur_ns), TC_EV_TIMER_FN);
	if (func) {
		key = func; /* a callback names its parent alike, whatever the parent */
		cache = &acc->fncache;
		*wakes = causes_is_wakeup_fn(acc->t, func);
	}
	if (u64map_get(cache, key, &c)) {
		*cause = (uint32_t)c;
		return 0;
	}
	err = noise_name_event(acc, TC_NOISE_IRQ, e, func, cause);
	return err ?: u64map_put(cache, key, *cause);
}

/* Credits t->events[i]'s overlap with the CPU's stretches; takes it from its parent when
 * nested. */
static int sweep_one(struct noise_acc *acc, const struct stretch *st, struct cpu_sweep *c, size_t i)
{
	const struct tc_event *e = &acc->t->events[i];
	uint64_t s = e->start_ns, end = sat_add(s, e->dur_ns), count = 1;
	int nested, wakes;
	uint32_t cause, own;
	int err;

	while (c->depth && c->open_end[c->depth - 1] <= s)
		c->depth--;
	nested = c->depth && s >= c->open_start[c->depth - 1] && end <= c->open_end[c->depth - 1];
	while (c->pos < c->n && st[c->first + c->pos].end <= s)
		c->pos++;
	err = cpu_wide_cause(acc, i, &own, &wakes);
	cause = own;
	for (size_t j = c->pos; !err && j < c->n && st[c->first + j].start < end; j++) {
		const struct stretch *x = &st[c->first + j];
		uint64_t lo = x->start > s ? x->start : s, hi = x->end < end ? x->end : end;

		cause = own;
		err = wakes ? noise_joined_cause(acc, i, x, &cause) : 0;
		err = err ?: noise_add_span(acc, x->thread, cause, lo, hi, count, 0);
		if (!err && nested)
			err = noise_add_span(acc, x->thread, c->open_cause[c->depth - 1], lo, hi, 0,
					     1);
		else if (!err)
			err = noise_handler_exclude(acc, x->thread, lo, hi);
		count = 0;
	}
	if (!err && c->depth < NEST_DEPTH) {
		c->open_start[c->depth] = s;
		c->open_end[c->depth] = end;
		c->open_cause[c->depth++] = cause;
	}
	return err;
}

static int cpu_pass(struct noise_acc *acc, const struct stretch *st, size_t n)
{
	const struct tc_trace *t = acc->t;
	struct cpu_sweep *cpus = NULL;
	struct u64map index = {0};
	size_t n_cpus = 0, cap = 0, k;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		if (i && st[i].cpu == st[i - 1].cpu) {
			cpus[n_cpus - 1].n++;
			continue;
		}
		err = u64map_put(&index, st[i].cpu, n_cpus);
		if (!err && !(err = grow(&cpus, &cap, n_cpus + 1, sizeof(*cpus))))
			cpus[n_cpus++] = (struct cpu_sweep){.first = i, .n = 1};
	}
	for (size_t i = 0; i < t->n_events && !err; i++) {
		const struct tc_event *e = &t->events[i];

		if (noise_is_cpu_wide(e) && u64map_get(&index, e->cpu, &k))
			err = sweep_one(acc, st, &cpus[k], i);
	}
	free(cpus);
	u64map__free(&index);
	return err;
}

/* ---- entry points --------------------------------------------------------------------- */

static int setup(struct noise_acc *acc)
{
	const struct tc_trace *t = acc->t;

	for (size_t i = 0; i < t->n_events; i++) {
		const struct tc_event *e = &t->events[i];

		if (i && e->start_ns < t->events[i - 1].start_ns)
			return -EINVAL;
		if (sat_add(e->start_ns, e->dur_ns) > acc->t1)
			acc->t1 = sat_add(e->start_ns, e->dur_ns);
	}
	acc->t0 = t->n_events ? t->events[0].start_ns : t->mono_ns;
	if (t->mono_ns && t->mono_ns < acc->t0)
		acc->t0 = t->mono_ns;
	if (acc->t1 < acc->t0)
		acc->t1 = acc->t0;
	acc->n_bins = (acc->t1 - acc->t0) / acc->iv + 1;
	if (acc->n_bins > NOISE_MAX_BINS)
		return -E2BIG;
	return collect_threads(acc);
}

static void acc_free(struct noise_acc *acc)
{
	free(acc->tids);
	free(acc->tcache);
	u64map__free(&acc->rowmap);
	u64map__free(&acc->partmap);
	u64map__free(&acc->causemap);
	u64map__free(&acc->namecache);
	u64map__free(&acc->fncache);
	free(acc->handlers);
	free(acc->rows);
	free(acc->parts);
	free(acc->causes);
}

int noise__run(const struct tc_trace *t, const struct tc_noise_opts *o, struct tc_noise **out)
{
	struct noise_acc acc = {.t = t, .iv = TC_NOISE_INTERVAL_DEFAULT};
	struct stretch *st = NULL;
	size_t n_st = 0;
	int err;

	if (!t || !out || (t->n_events && !t->events))
		return -EINVAL;
	if (o && o->interval_ns)
		acc.iv = o->interval_ns;
	acc.pattern = o && o->nic_irq_pattern ? o->nic_irq_pattern : TC_NIC_IRQ_PATTERN_DEFAULT;
	err = setup(&acc);
	err = err ?: noise_stretch_build(&acc, &st, &n_st);
	for (size_t i = 0; !err && i < n_st; i++)
		err = noise_acc_add_run(&acc, st[i].thread, st[i].cpu, st[i].start, st[i].end);
	err = err ?: noise_handler_pass(&acc);
	err = err ?: thread_pass(&acc);
	err = err ?: cpu_pass(&acc, st, n_st);
	free(st);
	err = err ?: noise_acc_build(&acc, out);
	acc_free(&acc);
	return err;
}
