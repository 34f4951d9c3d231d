// SPDX-License-Identifier: BSD-2-Clause
/*
 * analyze.c - tail-spike attribution.
 *
 * One sweep over samples and events, both sorted by start time. An active
 * set, a min-heap keyed by interval end, holds the intervals that may still
 * overlap a spike: an event enters it when a spike window reaches its start
 * (unless it already ended before that window) and leaves when a later
 * window starts at or after its end. Each event is pushed and popped at most
 * once, so the sweep is O(E log A + S) with A the intervals alive at once;
 * events between spikes cost two compares.
 *
 * Inside one spike window the relevant intervals (on a probe thread, a probe
 * thread's pinned CPU, or the sample's CPU) are split in three steps:
 *   1. nesting: an interval inside another one on the same CPU is counted in
 *      its parent (an IRQ that fires while the probe is preempted adds no
 *      latency of its own);
 *   2. sharing: the window is cut into elementary segments at every top-level
 *      boundary; the intervals covering a segment share it equally;
 *   3. scaling: when the covered time exceeds the excess (RTT - median), all
 *      shares shrink in proportion, so the attributed total never exceeds it.
 * Blocked off-CPU intervals (class unattributed) take part in all three but
 * never count as explaining the spike.
 *
 * Accounting: causes[0] (`unattributed`) receives each spike's excess not
 * attributed to any interval, every other cause what was attributed to it,
 * so the excess_ns of all causes add up to total_excess_ns.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "spike.h"

/* CPUs beyond this (a corrupt trace) are looked up the slow way. */
#define CPU_MAP_MAX (1u << 16)
#define CPU_PROBE   0x1 /* a probe thread is pinned there */
#define CPU_SAMPLE  0x2 /* some sample was timed there */

/* An interval in the active set. */
struct active {
	uint64_t start;
	uint64_t end;
	size_t ev;
	uint32_t cpu;
	uint32_t cause;	    /* cached cause index, TC_NO_CAUSE until first named */
	uint32_t probe_rel; /* on a probe thread or a probe thread's CPU */
	uint32_t pad;
};

struct ctx {
	const struct tc_trace *t;
	const char *pattern;
	struct tc_analysis *a;

	uint32_t *probe_tids; /* sorted */
	size_t n_probe_tids;
	uint8_t *cpu_map; /* CPU_PROBE | CPU_SAMPLE per CPU */
	size_t n_cpu_map;
	int wide_sample_cpu; /* a sample's CPU is beyond the map */

	struct active *heap;
	size_t n_heap, cap_heap;
	struct spike_window win; /* the current spike's intervals */

	uint32_t *hash; /* cause index + 1, 0 = empty; power-of-two size */
	size_t hash_size;
	size_t cap_causes;
	size_t cap_contribs;
};

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static uint64_t sample_rtt(const struct tc_sample *s)
{
	return s->t_end > s->t_start ? s->t_end - s->t_start : 0;
}

/* Grows *p to hold at least need elements of size sz; 0 or -ENOMEM. */
static int grow(void *pp, size_t *cap, size_t need, size_t sz)
{
	void **p = pp;
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2 / sz)
			return -ENOMEM;
		n *= 2;
	}
	q = realloc(*p, n * sz);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* ---- thread and CPU filters ------------------------------------------------------------ */

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

static int is_probe_tid(const struct ctx *c, uint32_t tid)
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

static int is_probe_cpu(const struct ctx *c, uint32_t cpu)
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

/* Could the event matter to some spike? Cheap test, at push time. */
static int maybe_relevant(const struct ctx *c, const struct tc_event *e, int probe_rel)
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

static int setup_filters(struct ctx *c)
{
	const struct tc_trace *t = c->t;
	size_t n = 0;

	c->probe_tids = malloc((t->n_threads ? t->n_threads : 1) * sizeof(uint32_t));
	c->n_cpu_map = CPU_MAP_MAX;
	c->cpu_map = calloc(c->n_cpu_map, 1);
	if (!c->probe_tids || !c->cpu_map)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_threads; i++) {
		if (t->threads[i].role != TC_THREAD_PROBE)
			continue;
		c->probe_tids[n++] = t->threads[i].tid;
		if (t->threads[i].cpu != UINT32_MAX)
			mark_cpu(c, t->threads[i].cpu, CPU_PROBE);
	}
	qsort(c->probe_tids, n, sizeof(uint32_t), cmp_u32);
	c->n_probe_tids = n;
	for (size_t i = 0; i < t->n_samples; i++)
		mark_cpu(c, t->samples[i].cpu, CPU_SAMPLE);
	return 0;
}

/* ---- statistics ------------------------------------------------------------------------ */

/* Fills a->stats and a->threshold_ns and allocates a->spikes; -EINVAL on unsorted samples. */
static int compute_stats(struct tc_analysis *a, const struct tc_trace *t)
{
	size_t n = t->n_samples, n_spikes = 0;
	uint64_t *rtt;
	int err = 0;

	rtt = malloc(n * sizeof(*rtt));
	if (!rtt)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (i && t->samples[i].t_start < t->samples[i - 1].t_start) {
			err = -EINVAL;
			goto out_free_rtt;
		}
		rtt[i] = sample_rtt(&t->samples[i]);
	}
	err = stats_summarize(rtt, n, &a->stats);
	if (err)
		goto out_free_rtt;
	a->threshold_ns = spike_rule_threshold(&a->rule, rtt, n, &a->stats);
	for (size_t i = 0; i < n; i++)
		n_spikes += sample_rtt(&t->samples[i]) > a->threshold_ns;
	a->spikes = calloc(n_spikes ? n_spikes : 1, sizeof(*a->spikes));
	if (!a->spikes) {
		err = -ENOMEM;
		goto out_free_rtt;
	}
out_free_rtt:
	free(rtt);
	return err;
}

/* ---- the cause table ------------------------------------------------------------------- */

static uint64_t hash_name(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int rehash(struct ctx *c)
{
	size_t size = c->hash_size ? c->hash_size * 2 : 64;
	uint32_t *h = calloc(size, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < c->a->n_causes; i++) {
		size_t p = hash_name(c->a->causes[i].name) & (size - 1);

		while (h[p])
			p = (p + 1) & (size - 1);
		h[p] = (uint32_t)i + 1;
	}
	free(c->hash);
	c->hash = h;
	c->hash_size = size;
	return 0;
}

/* The index of the cause called name, added with class cls if new; 0 or -ENOMEM. */
static int cause_index(struct ctx *c, const char *name, enum tc_cause_class cls, uint32_t *out)
{
	struct tc_analysis *a = c->a;
	struct tc_cause *k;
	size_t p;

	if ((a->n_causes + 1) * 2 > c->hash_size && rehash(c))
		return -ENOMEM;
	for (p = hash_name(name) & (c->hash_size - 1); c->hash[p];
	     p = (p + 1) & (c->hash_size - 1)) {
		if (!strcmp(a->causes[c->hash[p] - 1].name, name)) {
			*out = c->hash[p] - 1;
			return 0;
		}
	}
	if (a->n_causes >= UINT32_MAX - 1 ||
	    grow(&a->causes, &c->cap_causes, a->n_causes + 1, sizeof(*k)))
		return -ENOMEM;
	k = &a->causes[a->n_causes];
	memset(k, 0, sizeof(*k));
	strncpy(k->name, name, sizeof(k->name) - 1);
	k->cls = cls;
	c->hash[p] = (uint32_t)a->n_causes + 1;
	*out = (uint32_t)a->n_causes++;
	return 0;
}

/* ---- the active set: a min-heap on end time -------------------------------------------- */

static void heap_swap(struct active *h, size_t i, size_t j)
{
	struct active tmp = h[i];

	h[i] = h[j];
	h[j] = tmp;
}

static int heap_push(struct ctx *c, const struct active *x)
{
	struct active *h;
	size_t i;

	if (grow(&c->heap, &c->cap_heap, c->n_heap + 1, sizeof(*c->heap)))
		return -ENOMEM;
	h = c->heap;
	i = c->n_heap++;
	h[i] = *x;
	while (i && h[(i - 1) / 2].end > h[i].end) {
		heap_swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	return 0;
}

static void heap_pop(struct ctx *c)
{
	struct active *h = c->heap;
	size_t i = 0, n = --c->n_heap;

	h[0] = h[n];
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < n && h[l].end < h[m].end)
			m = l;
		if (l + 1 < n && h[l + 1].end < h[m].end)
			m = l + 1;
		if (m == i)
			return;
		heap_swap(h, i, m);
		i = m;
	}
}

/* Brings the active set up to the window [ws, we). */
static int advance(struct ctx *c, size_t *next, uint64_t ws, uint64_t we)
{
	const struct tc_trace *t = c->t;

	for (; *next < t->n_events && t->events[*next].start_ns < we; (*next)++) {
		const struct tc_event *e = &t->events[*next];
		struct active x = {.start = e->start_ns, .ev = *next, .cpu = e->cpu};

		x.end = sat_add(e->start_ns, e->dur_ns);
		/*
		 * Spikes come in t_start order: what ends by ws overlaps no later
		 * spike. An empty interval [s, s) overlaps nothing.
		 */
		if (x.end <= ws || !e->dur_ns)
			continue;
		x.probe_rel = is_probe_tid(c, e->tid) || is_probe_cpu(c, e->cpu);
		if (!maybe_relevant(c, e, x.probe_rel))
			continue;
		x.cause = TC_NO_CAUSE;
		if (heap_push(c, &x))
			return -ENOMEM;
	}
	while (c->n_heap && c->heap[0].end <= ws)
		heap_pop(c);
	return 0;
}

/* ---- one spike ------------------------------------------------------------------------- */

/* Collects the relevant active intervals overlapping [ws, we) into c->win. */
static int gather(struct ctx *c, const struct tc_sample *s, uint64_t we)
{
	c->win.n_items = 0;
	for (size_t h = 0; h < c->n_heap; h++) {
		const struct active *x = &c->heap[h];
		struct spike_item *it;

		if (x->start >= we || (!x->probe_rel && x->cpu != s->cpu))
			continue;
		it = spike_window__add(&c->win);
		if (!it)
			return -ENOMEM;
		it->start = x->start;
		it->end = x->end;
		it->ev = x->ev;
		it->slot = h;
		it->cpu = x->cpu;
		it->cause = x->cause;
	}
	return 0;
}

/* Names the items not named in an earlier spike, caching the cause in the heap. */
static int name_items(struct ctx *c)
{
	char name[TC_CAUSE_NAME_LEN];

	for (size_t i = 0; i < c->win.n_items; i++) {
		struct spike_item *it = &c->win.items[i];
		enum tc_cause_class cls;

		if (it->cause == TC_NO_CAUSE) {
			cls = causes_name_event(c->t, &c->t->events[it->ev], c->pattern, name,
						sizeof(name));
			if (cause_index(c, name, cls, &it->cause))
				return -ENOMEM;
			c->heap[it->slot].cause = it->cause;
		}
		it->explains = c->a->causes[it->cause].cls != TC_CAUSE_UNATTRIBUTED;
	}
	return 0;
}

static int store_contribs(struct ctx *c, struct tc_spike *sp, uint64_t ws, uint64_t we)
{
	struct tc_analysis *a = c->a;

	if (grow(&a->contribs, &c->cap_contribs, a->n_contribs + c->win.n_items,
		 sizeof(*a->contribs)))
		return -ENOMEM;
	sp->first_contrib = a->n_contribs;
	sp->n_contrib = c->win.n_items;
	for (size_t i = 0; i < c->win.n_items; i++) {
		const struct spike_item *it = &c->win.items[i];
		struct tc_contrib *k = &a->contribs[a->n_contribs++];
		uint64_t s = it->start > ws ? it->start : ws, e = it->end < we ? it->end : we;

		k->event = it->ev;
		k->cause = it->cause;
		k->nested = it->nested;
		k->overlap_ns = e - s;
		k->attributed_ns = it->att;
		a->causes[it->cause].excess_ns = sat_add(a->causes[it->cause].excess_ns, it->att);
	}
	return 0;
}

/* Books a decided spike in the cause table. */
static void book(struct tc_analysis *a, const struct tc_spike *sp, uint64_t total)
{
	a->causes[sp->primary].spikes++;
	a->causes[0].excess_ns = sat_add(a->causes[0].excess_ns, sp->excess_ns - total);
	a->total_excess_ns = sat_add(a->total_excess_ns, sp->excess_ns);
}

static int attribute_spike(struct ctx *c, struct tc_spike *sp, const struct tc_sample *s)
{
	uint64_t total;
	int err;

	err = gather(c, s, s->t_end);
	if (err)
		return err;
	/* Split first: it leaves the items in event order, the order causes get numbered in. */
	total = spike_window_split(&c->win, s->t_start, s->t_end, sp->excess_ns);
	err = name_items(c);
	if (err)
		return err;
	err = store_contribs(c, sp, s->t_start, s->t_end);
	if (err)
		return err;
	spike_window_decide(&c->win, sp);
	book(c->a, sp, total);
	return 0;
}

static int sweep(struct ctx *c)
{
	const struct tc_trace *t = c->t;
	struct tc_analysis *a = c->a;
	size_t next = 0;
	int err;

	for (size_t i = 0; i < t->n_samples; i++) {
		const struct tc_sample *s = &t->samples[i];
		uint64_t rtt = sample_rtt(s);
		struct tc_spike *sp;

		if (rtt <= a->threshold_ns)
			continue;
		err = advance(c, &next, s->t_start, s->t_end);
		if (err)
			return err;
		sp = &a->spikes[a->n_spikes++];
		sp->sample = i;
		sp->rtt_ns = rtt;
		sp->excess_ns = rtt > a->stats.p50 ? rtt - a->stats.p50 : 0;
		err = attribute_spike(c, sp, s);
		if (err)
			return err;
	}
	return 0;
}

/* ---- entry points ---------------------------------------------------------------------- */

static int events_sorted(const struct tc_trace *t)
{
	for (size_t i = 1; i < t->n_events; i++)
		if (t->events[i].start_ns < t->events[i - 1].start_ns)
			return 0;
	return 1;
}

static void ctx_free(struct ctx *c)
{
	free(c->probe_tids);
	free(c->cpu_map);
	free(c->heap);
	spike_window__free(&c->win);
	free(c->hash);
}

int analysis__run(const struct tc_trace *t, const struct tc_analysis_opts *o,
		  struct tc_analysis **out)
{
	struct ctx c = {.t = t};
	struct tc_analysis *a;
	uint32_t unattributed;
	int err;

	if (!t || !out || !t->n_samples || (t->n_events && !t->events) || !events_sorted(t))
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	c.a = a;
	c.pattern = o && o->nic_irq_pattern ? o->nic_irq_pattern : TC_NIC_IRQ_PATTERN_DEFAULT;
	if (o)
		a->rule = o->spike;
	err = -EINVAL;
	if (!spike_rule_valid(&a->rule))
		goto out_free_analysis;
	err = compute_stats(a, t);
	if (err)
		goto out_free_analysis;
	err = setup_filters(&c);
	if (!err)
		err = cause_index(&c, causes_info(TC_CAUSE_UNATTRIBUTED)->prefix,
				  TC_CAUSE_UNATTRIBUTED, &unattributed);
	if (!err)
		err = sweep(&c);
	if (err)
		goto out_free_ctx;
	ctx_free(&c);
	*out = a;
	return 0;

out_free_ctx:
	ctx_free(&c);
out_free_analysis:
	analysis__free(a);
	return err;
}

void analysis__free(struct tc_analysis *a)
{
	if (!a)
		return;
	free(a->spikes);
	free(a->causes);
	free(a->contribs);
	free(a);
}

/* ---- orderings ------------------------------------------------------------------------- */

/* Index orderings as "x ranks below y" predicates, so one heap sort serves both. */
typedef int (*below_fn)(const struct tc_analysis *a, size_t x, size_t y);

static int spike_below(const struct tc_analysis *a, size_t x, size_t y)
{
	const struct tc_spike *p = &a->spikes[x], *q = &a->spikes[y];

	return p->rtt_ns != q->rtt_ns ? p->rtt_ns < q->rtt_ns : x > y;
}

static int cause_below(const struct tc_analysis *a, size_t x, size_t y)
{
	const struct tc_cause *p = &a->causes[x], *q = &a->causes[y];

	return p->excess_ns != q->excess_ns ? p->excess_ns < q->excess_ns : x > y;
}

/* Sift-down in a heap whose root ranks lowest. */
static void sift(const struct tc_analysis *a, size_t *h, size_t i, size_t n, below_fn below)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i, tmp;

		if (l < n && below(a, h[l], h[m]))
			m = l;
		if (l + 1 < n && below(a, h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

/* Sorts a heap whose root ranks lowest into highest-first order. */
static void heap_drain(const struct tc_analysis *a, size_t *h, size_t n, below_fn below)
{
	for (size_t end = n; end-- > 1;) {
		size_t tmp = h[0];

		h[0] = h[end];
		h[end] = tmp;
		sift(a, h, 0, end, below);
	}
}

size_t analysis_top_spikes(const struct tc_analysis *a, size_t *idx, size_t n)
{
	size_t k = 0;

	if (!a || !idx || !n)
		return 0;
	/* Keep the n best seen so far in a heap whose root is the weakest of them. */
	for (size_t i = 0; i < a->n_spikes; i++) {
		if (k < n) {
			idx[k++] = i;
			if (k == n || i + 1 == a->n_spikes)
				for (size_t j = k / 2; j-- > 0;)
					sift(a, idx, j, k, spike_below);
		} else if (spike_below(a, idx[0], i)) {
			idx[0] = i;
			sift(a, idx, 0, k, spike_below);
		}
	}
	heap_drain(a, idx, k, spike_below);
	return k;
}

size_t analysis_causes_by_excess(const struct tc_analysis *a, size_t *idx)
{
	size_t n;

	if (!a || !idx)
		return 0;
	n = a->n_causes;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	for (size_t j = n / 2; j-- > 0;)
		sift(a, idx, j, n, cause_below);
	heap_drain(a, idx, n, cause_below);
	return n;
}
