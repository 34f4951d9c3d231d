// SPDX-License-Identifier: BSD-2-Clause
/*
 * trace.c - the in-memory trace: growable arrays and the one sort the
 * analyzer relies on (events by start_ns, samples by t_start, stable).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
	free(t);
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

int trace__set_meta(struct tc_trace *t, const char *key, const char *val)
{
	char *k, *v;
	size_t i;
	int err;

	if (!key || !val)
		return -EINVAL;
	v = strdup(val);
	if (!v)
		return -ENOMEM;
	for (i = 0; i < t->n_meta; i++) {
		if (!strcmp(t->meta[i].key, key)) {
			free(t->meta[i].val);
			t->meta[i].val = v;
			return 0;
		}
	}
	err = grow((void **)&t->meta, &t->cap_meta, t->n_meta, 1, sizeof(*t->meta));
	if (err)
		goto out_free_val;
	k = strdup(key);
	if (!k) {
		err = -ENOMEM;
		goto out_free_val;
	}
	t->meta[t->n_meta].key = k;
	t->meta[t->n_meta].val = v;
	t->n_meta++;
	return 0;

out_free_val:
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

static void (*prefault)(void *p, size_t bytes);

void trace__set_prefault(void (*fn)(void *p, size_t bytes))
{
	prefault = fn;
}

/* Makes room for exactly `more` elements of `size` bytes after `used`, if it lacks any. */
static int reserve(void **arr, size_t *cap, size_t used, size_t more, size_t size)
{
	void *p;

	if (more > SIZE_MAX - used || used + more > SIZE_MAX / size)
		return -ENOMEM;
	if (used + more <= *cap)
		return 0;
	p = realloc(*arr, (used + more) * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	if (prefault)
		prefault((char *)p + used * size, more * size);
	*cap = used + more;
	return 0;
}

int trace__reserve(struct tc_trace *t, size_t n_samples, size_t n_events)
{
	int err;

	err = reserve((void **)&t->samples, &t->cap_samples, t->n_samples, n_samples,
		      sizeof(*t->samples));
	if (!err)
		err = reserve((void **)&t->events, &t->cap_events, t->n_events, n_events,
			      sizeof(*t->events));
	return err;
}

int trace__add_irq_name(struct tc_trace *t, uint32_t irq, const char *name)
{
	struct tc_irq_name *in;
	size_t len;
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
	len = strnlen(name, sizeof(in->name) - 1);
	memcpy(in->name, name, len);
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

/*
 * Sorting. Recorder output is nearly sorted: the ring buffer delivers intervals
 * in end order, so a record sits a few places after where its start belongs,
 * and now and then a long off-CPU interval sits far after. So first an
 * insertion sort with a budget of record moves: it sorts such input in one
 * cache-friendly pass without allocating (50 million records in about a
 * second). Past the budget, an LSD radix sort of (key, index) pairs, linear and
 * stable, then an in-place permutation of the records, with 32 bytes per record
 * of scratch. For small arrays, or when that scratch cannot be had, an in-place
 * stable merge sort (insertion-sorted blocks merged by SymMerge rotations,
 * O(n log^2 n)), so trace__sort() cannot fail. Each stage is stable and keeps
 * the order of equal keys that the one before left: the result is the stable
 * sort of the input.
 */
#define SORT_MAX_SIZE	 64	    /* largest record the generic code moves */
#define SORT_BUDGET	 8	    /* insertion moves allowed per record */
#define SORT_SLACK	 (1u << 20) /* at most this many moves beyond the budget */
#define SORT_SMALL	 1024	    /* below this, radix sort's setup costs more than it saves */
#define RADIX_BITS	 11
#define RADIX_BUCKETS	 (1u << RADIX_BITS)
#define RADIX_MAX_PASSES ((64 + RADIX_BITS - 1) / RADIX_BITS)

struct sort_ctx {
	char *base;
	size_t size;
	size_t key_off; /* offset of the uint64_t sort key in a record */
};

static inline void *elem(const struct sort_ctx *c, size_t i)
{
	return c->base + i * c->size;
}

static inline uint64_t key(const struct sort_ctx *c, size_t i)
{
	uint64_t k;

	memcpy(&k, c->base + i * c->size + c->key_off, sizeof(k));
	return k;
}

static inline int less(const struct sort_ctx *c, size_t i, size_t j)
{
	return key(c, i) < key(c, j);
}

static void swap(const struct sort_ctx *c, size_t i, size_t j)
{
	char tmp[SORT_MAX_SIZE];

	memcpy(tmp, elem(c, i), c->size);
	memcpy(elem(c, i), elem(c, j), c->size);
	memcpy(elem(c, j), tmp, c->size);
}

/*
 * Insertion sort of the whole array that gives up as soon as it has moved more
 * than SORT_BUDGET records per record seen, plus some slack for the odd long
 * interval early on; returns 0 when sorted, -1 when it gave up (the array is
 * then a stably sorted prefix followed by the untouched rest).
 */
static int insertion_sort_bounded(const struct sort_ctx *c, size_t n)
{
	size_t i, lo, hi, mid, moves = 0, slack = n < SORT_SLACK ? n : SORT_SLACK;
	char tmp[SORT_MAX_SIZE];
	uint64_t k;

	for (i = 1; i < n; i++) {
		k = key(c, i);
		if (key(c, i - 1) <= k)
			continue;
		/* the first of [0, i) with a key above k: after its equals, so stable */
		lo = i > 16 ? i - 16 : 0;
		if (lo && key(c, lo) > k)
			lo = 0; /* far from home: search all of the sorted prefix */
		for (hi = i - 1; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			if (key(c, mid) > k)
				hi = mid;
			else
				lo = mid + 1;
		}
		moves += i - lo;
		if (moves / SORT_BUDGET > i + slack / SORT_BUDGET)
			return -1;
		memcpy(tmp, elem(c, i), c->size);
		memmove(elem(c, lo + 1), elem(c, lo), (i - lo) * c->size);
		memcpy(elem(c, lo), tmp, c->size);
	}
	return 0;
}

static void insertion_sort(const struct sort_ctx *c, size_t a, size_t b)
{
	size_t i, j;

	for (i = a + 1; i < b; i++)
		for (j = i; j > a && less(c, j, j - 1); j--)
			swap(c, j, j - 1);
}

static void swap_range(const struct sort_ctx *c, size_t a, size_t b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		swap(c, a + i, b + i);
}

/* Rotates [a, b) so that [m, b) comes before [a, m). */
static void rotate(const struct sort_ctx *c, size_t a, size_t m, size_t b)
{
	size_t i = m - a, j = b - m;

	while (i != j) {
		if (i > j) {
			swap_range(c, m - i, m, j);
			i -= j;
		} else {
			swap_range(c, m - i, m + j - i, i);
			j -= i;
		}
	}
	swap_range(c, m - i, m, i);
}

/* Merges the sorted runs [a, m) and [m, b) in place, stably (Kim & Kutzner's SymMerge). */
static void sym_merge(const struct sort_ctx *c, size_t a, size_t m, size_t b)
{
	size_t i, j, h, k, mid, n, start, r, end;

	if (m - a == 1) {
		/* one element on the left: binary-search its place, bubble it there */
		for (i = m, j = b; i < j;) {
			h = i + (j - i) / 2;
			if (less(c, h, a))
				i = h + 1;
			else
				j = h;
		}
		for (k = a; k + 1 < i; k++)
			swap(c, k, k + 1);
		return;
	}
	if (b - m == 1) {
		for (i = a, j = m; i < j;) {
			h = i + (j - i) / 2;
			if (!less(c, m, h))
				i = h + 1;
			else
				j = h;
		}
		for (k = m; k > i; k--)
			swap(c, k, k - 1);
		return;
	}
	mid = a + (b - a) / 2;
	n = mid + m;
	if (m > mid) {
		start = n - b;
		r = mid;
	} else {
		start = a;
		r = m;
	}
	while (start < r) {
		h = start + (r - start) / 2;
		if (!less(c, n - 1 - h, h))
			start = h + 1;
		else
			r = h;
	}
	end = n - start;
	if (start < m && m < end)
		rotate(c, start, m, end);
	if (a < start && start < mid)
		sym_merge(c, a, start, mid);
	if (mid < end && end < b)
		sym_merge(c, mid, end, b);
}

static void stable_inplace(const struct sort_ctx *c, size_t n)
{
	size_t block = 20, a;

	for (a = 0; a < n; a += block)
		insertion_sort(c, a, a + block < n ? a + block : n);
	for (; block < n; block *= 2) {
		for (a = 0; n - a > 2 * block; a += 2 * block)
			sym_merge(c, a, a + block, a + 2 * block);
		if (n - a > block)
			sym_merge(c, a, a + block, n);
	}
}

struct kidx {
	uint64_t key;
	uint64_t idx;
};

/* Moves records so that record i becomes the old record perm[i]; perm is consumed. */
static void permute(const struct sort_ctx *c, struct kidx *perm, size_t n)
{
	char tmp[SORT_MAX_SIZE];
	size_t i, j, k;

	for (i = 0; i < n; i++) {
		if (perm[i].idx == i)
			continue;
		memcpy(tmp, elem(c, i), c->size);
		for (j = i;; j = k) {
			k = perm[j].idx;
			perm[j].idx = j;
			if (k == i) {
				memcpy(elem(c, j), tmp, c->size);
				break;
			}
			memcpy(elem(c, j), elem(c, k), c->size);
		}
	}
}

static int radix_sort(const struct sort_ctx *c, size_t n)
{
	size_t(*hist)[RADIX_BUCKETS];
	struct kidx *a, *b, *t;
	uint64_t min = UINT64_MAX, range;
	unsigned int pass, passes;
	size_t i;

	if (n > SIZE_MAX / sizeof(*a))
		return -ENOMEM;
	a = malloc(n * sizeof(*a));
	b = malloc(n * sizeof(*b));
	hist = calloc(RADIX_MAX_PASSES, sizeof(*hist));
	if (!a || !b || !hist) {
		free(a);
		free(b);
		free(hist);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		a[i].key = key(c, i);
		a[i].idx = i;
		if (a[i].key < min)
			min = a[i].key;
	}
	/* sort on key - min: a trace spans minutes, so 3 or 4 digits instead of 6 */
	range = 0;
	for (i = 0; i < n; i++) {
		a[i].key -= min;
		range |= a[i].key;
	}
	for (passes = 0; passes < RADIX_MAX_PASSES && range >> (passes * RADIX_BITS); passes++)
		;
	for (i = 0; i < n; i++)
		for (pass = 0; pass < passes; pass++)
			hist[pass][(a[i].key >> (pass * RADIX_BITS)) & (RADIX_BUCKETS - 1)]++;
	for (pass = 0; pass < passes; pass++) {
		unsigned int shift = pass * RADIX_BITS;
		size_t sum = 0, cnt, d;

		if (hist[pass][(a[0].key >> shift) & (RADIX_BUCKETS - 1)] == n)
			continue; /* every key has the same digit here */
		for (d = 0; d < RADIX_BUCKETS; d++) {
			cnt = hist[pass][d];
			hist[pass][d] = sum;
			sum += cnt;
		}
		for (i = 0; i < n; i++)
			b[hist[pass][(a[i].key >> shift) & (RADIX_BUCKETS - 1)]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	free(hist);
	free(b);
	permute(c, a, n);
	free(a);
	return 0;
}

static void sort_records(void *base, size_t n, size_t size, size_t key_off)
{
	struct sort_ctx c = {.base = base, .size = size, .key_off = key_off};

	if (n < 2 || !insertion_sort_bounded(&c, n))
		return;
	if (n < SORT_SMALL || radix_sort(&c, n))
		stable_inplace(&c, n);
}

/*
 * Sorts unless the records are in order already, as a decoded synthetic trace
 * is: inlined with constant sizes, the test costs a third of the instructions
 * of the same test in the generic insertion sort.
 */
static inline void sort_unordered(void *base, size_t n, size_t size, size_t key_off)
{
	const struct sort_ctx c = {.base = base, .size = size, .key_off = key_off};
	size_t i = 1;

	while (i < n && key(&c, i - 1) <= key(&c, i))
		i++;
	if (i < n)
		sort_records(base, n, size, key_off);
}

void trace__sort(struct tc_trace *t)
{
	_Static_assert(sizeof(struct tc_event) <= SORT_MAX_SIZE, "SORT_MAX_SIZE too small");
	sort_unordered(t->events, t->n_events, sizeof(*t->events),
		       offsetof(struct tc_event, start_ns));
	sort_unordered(t->samples, t->n_samples, sizeof(*t->samples),
		       offsetof(struct tc_sample, t_start));
}
