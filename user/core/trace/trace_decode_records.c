// SPDX-License-Identifier: BSD-2-Clause
/*
 * trace_decode_records.c - the .tct decoder's record decoders: one function per
 * block type, each trusting nothing in its payload (counts are bounded by the
 * bytes that must hold them). The block walk is trace_decode.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_internal.h"
static int vfail(struct tc_codec_error *e, size_t off, const char *pfx, const char *fmt, va_list ap)
{
	int n;

	if (!e)
		return -EBADMSG;
	e->offset = off;
	n = snprintf(e->msg, sizeof(e->msg), "%s", pfx);
	if (n < 0 || (size_t)n >= sizeof(e->msg))
		n = 0;
	vsnprintf(e->msg + n, sizeof(e->msg) - n, fmt, ap);
	return -EBADMSG;
}

int codec_fail(struct tc_codec_error *e, size_t off, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vfail(e, off, "", fmt, ap);
	va_end(ap);
	return err;
}

int codec_bfail(struct dec *d, const char *fmt, ...)
{
	char pfx[64];
	va_list ap;
	int err;

	snprintf(pfx, sizeof(pfx), "block %zu at offset %zu: ", d->block_no, d->block_off);
	va_start(ap, fmt);
	err = vfail(d->err, d->block_off, pfx, fmt, ap);
	va_end(ap);
	return err;
}

/* Reads a record count that min_len-byte records must fit in what is left. */
static int get_count(struct dec *d, struct rd *r, const char *what, size_t min_len, size_t *n)
{
	uint64_t v;

	if (get_u64(r, &v))
		return codec_bfail(d, "%s: malformed count", what);
	if (v > left(r) / min_len)
		return codec_bfail(d, "%s: count %" PRIu64 " exceeds the payload", what, v);
	*n = (size_t)v;
	return 0;
}

/* A len-prefixed string of at most max bytes without NUL; returns its start. */
static const uint8_t *get_str(struct rd *r, size_t max, size_t *len)
{
	const uint8_t *s;
	uint64_t v;

	if (get_u64(r, &v) || v > max || v > left(r))
		return NULL;
	s = r->p;
	if (memchr(s, 0, v))
		return NULL;
	r->p += v;
	*len = v;
	return s;
}

int dec_meta(struct dec *d, struct rd *r)
{
	const char *key, *val, *nul;
	int err;

	while (r->p < r->end) {
		key = (const char *)r->p;
		nul = memchr(key, 0, left(r));
		if (!nul)
			return codec_bfail(d, "meta: unterminated key");
		r->p = (const uint8_t *)nul + 1;
		val = (const char *)r->p;
		nul = memchr(val, 0, left(r));
		if (!nul)
			return codec_bfail(d, "meta: unterminated value for %.32s", key);
		r->p = (const uint8_t *)nul + 1;
		if (++d->n_meta > META_MAX)
			return codec_bfail(d, "meta: more than %d entries", META_MAX);
		err = trace__set_meta(d->out, key, val);
		if (err)
			return err;
	}
	return 0;
}

int dec_threads(struct dec *d, struct rd *r)
{
	uint32_t tid, role, cpu;
	size_t n, i;
	int err;

	err = get_count(d, r, "threads", 3, &n);
	for (i = 0; !err && i < n; i++) {
		if (get_u32(r, &tid) || get_u32(r, &role) || get_u32(r, &cpu))
			return codec_bfail(d, "threads: record %zu malformed", i);
		err = trace__add_thread(d->out, tid, role, cpu);
	}
	return err;
}

int dec_irq_names(struct dec *d, struct rd *r)
{
	char name[IRQ_NAME_MAX + 1];
	const uint8_t *s;
	size_t n, i, len;
	uint32_t irq;
	int err;

	err = get_count(d, r, "irq names", 2, &n);
	if (!err && d->out->n_irq_names + n > IRQ_NAMES_MAX)
		return codec_bfail(d, "irq names: more than %u", IRQ_NAMES_MAX);
	for (i = 0; !err && i < n; i++) {
		if (get_u32(r, &irq) || !(s = get_str(r, IRQ_NAME_MAX, &len)))
			return codec_bfail(d, "irq names: record %zu malformed", i);
		memcpy(name, s, len);
		name[len] = '\0';
		err = trace__add_irq_name(d->out, irq, name);
	}
	return err;
}

int dec_drops(struct dec *d, struct rd *r)
{
	uint32_t cpu, max = 0;
	uint64_t count;
	size_t n, i;
	struct rd again;
	int err;

	err = get_count(d, r, "drops", 2, &n);
	if (err || !n)
		return err;
	/* check every record, then grow drops[] once, not once per CPU */
	again = *r;
	for (i = 0; i < n; i++) {
		if (get_u32(r, &cpu) || get_u64(r, &count))
			return codec_bfail(d, "drops: record %zu malformed", i);
		if (cpu >= DROPS_MAX_CPU)
			return codec_bfail(d, "drops: cpu %" PRIu32 " out of range", cpu);
		if (cpu > max)
			max = cpu;
	}
	if (max >= d->out->n_drops) {
		err = trace__set_drops(d->out, max, 0);
		if (err)
			return err;
	}
	for (i = 0; i < n; i++) {
		get_u32(&again, &cpu);
		get_u64(&again, &count);
		d->out->drops[cpu] = count;
	}
	return 0;
}

int dec_counters(struct dec *d, struct rd *r)
{
	uint32_t kind, key, cpu;
	uint64_t value;
	size_t n, i;
	int err;

	err = get_count(d, r, "counters", COUNTER_MIN_LEN, &n);
	if (!err && d->out->n_counters + n > COUNTERS_MAX)
		return codec_bfail(d, "counters: more than %u", COUNTERS_MAX);
	for (i = 0; !err && i < n; i++) {
		if (get_u32(r, &kind) || get_u32(r, &key) || get_u32(r, &cpu) || get_u64(r, &value))
			return codec_bfail(d, "counters: record %zu malformed", i);
		err = trace__add_counter(d->out, kind, key, cpu, value);
	}
	return err;
}

/* A block's n records, the earliest starting at lo, and whether one stepped back (back odd). */
static void note_span(struct dec *d, size_t n, uint64_t lo, uint64_t back)
{
	d->span.n += n;
	d->span.min_start = lo < d->span.min_start ? lo : d->span.min_start;
	d->span.in_order &= !(back & 1);
}

/* The most bytes a record's read can look at: a record of the longest fields, and a
 * field that runs on past its longest form (no varint read looks past VARINT_MAX_LEN). */
#define READ_ROOM(max_len) ((max_len) + VARINT_MAX_LEN)

/* A sample record's fields (its start as the zigzag delta); room: see get_varint(). */
static inline __attribute__((always_inline)) int read_sample(struct rd *r, struct tc_sample *s,
							     uint64_t *delta, uint64_t *dur,
							     int room)
{
	return get_varint(r, delta, room) || get_varint(r, dur, room) ||
	       get_u32_room(r, &s->cpu, room) || get_u32_room(r, &s->tid, room);
}

int dec_samples(struct dec *d, struct rd *r)
{
	struct tc_sample *s;
	uint64_t delta, dur, prev = 0, back = 0, lo = UINT64_MAX;
	struct rd q;
	size_t n, i;
	int err;

	err = get_count(d, r, "samples", SAMPLE_MIN_LEN, &n);
	if (!err)
		err = trace__reserve(d->out, n, 0);
	if (err || !n) /* none: the array may not exist yet, no pointer into it */
		return err;
	s = d->out->samples + d->out->n_samples;
	q = *r; /* a local cursor stays in a register */
	for (i = 0; i < n; i++, s++) {
		if (left(&q) >= READ_ROOM(SAMPLE_MAX_LEN) ? read_sample(&q, s, &delta, &dur, 1)
							  : read_sample(&q, s, &delta, &dur, 0))
			return codec_bfail(d, "samples: record %zu malformed", i);
		s->t_start = prev + (uint64_t)varint_unzigzag(delta);
		if (dur > UINT64_MAX - s->t_start)
			return codec_bfail(d, "samples: record %zu ends before it starts", i);
		s->t_end = s->t_start + dur;
		prev = s->t_start;
		back |= delta; /* odd: a step back in time (varint_zigzag()) */
		lo = s->t_start < lo ? s->t_start : lo;
	}
	*r = q;
	note_span(d, n, lo, back);
	d->out->n_samples += n;
	d->n_samples += n;
	return 0;
}

/* The comm table, each name NUL-padded to TC_COMM_LEN so an event copies it whole. */
static int dec_comms(struct dec *d, struct rd *r, size_t *n_comms)
{
	const uint8_t *name;
	size_t n, i, len;
	void *p;
	int err;

	/* each comm is some event's: a table the events cannot use is not allocated */
	err = get_count(d, r, "events: comm table", COMM_MIN_LEN, &n);
	if (err)
		return err;
	if (n > d->comm_cap) {
		p = realloc(d->comms, n * sizeof(*d->comms));
		if (!p)
			return -ENOMEM;
		d->comms = p;
		d->comm_cap = n;
	}
	for (i = 0; i < n; i++) {
		name = get_str(r, COMM_MAX, &len);
		if (!name)
			return codec_bfail(d, "events: comm %zu malformed", i);
		memset(d->comms[i], 0, TC_COMM_LEN);
		memcpy(d->comms[i], name, len);
	}
	*n_comms = n;
	return 0;
}

/* An event record's fields (its start as the zigzag delta, its comm as an index in
 * the block's table); room: see get_varint(). */
static inline __attribute__((always_inline)) int read_event(struct rd *r, struct tc_event *e,
							    uint64_t *delta, uint32_t *ci, int room)
{
	uint64_t dur, aux;

	/* any kind is kept: one above TC_EV_KIND_MAX is a later writer's */
	if (get_u16_room(r, &e->kind, room) || get_u16_room(r, &e->flags, room) ||
	    get_varint(r, delta, room) || get_varint(r, &dur, room) || get_varint(r, &aux, room))
		return -1;
	e->dur_ns = dur;
	e->aux = aux;
	return get_u32_room(r, &e->cpu, room) || get_u32_room(r, &e->tid, room) ||
	       get_u32_room(r, &e->arg, room) || get_u32_room(r, &e->other_pid, room) ||
	       get_u32_room(r, ci, room);
}

int dec_events(struct dec *d, struct rd *r)
{
	struct tc_event *e;
	uint64_t delta, prev = 0, back = 0, lo = UINT64_MAX;
	size_t n = 0, i, n_comms = 0;
	struct rd q;
	uint32_t ci;
	int err;

	err = dec_comms(d, r, &n_comms);
	if (!err)
		err = get_count(d, r, "events", EVENT_MIN_LEN, &n);
	if (!err)
		err = trace__reserve(d->out, 0, n);
	if (err || !n)
		return err;
	e = d->out->events + d->out->n_events;
	q = *r; /* a local cursor stays in a register */
	for (i = 0; i < n; i++, e++) {
		if (left(&q) >= READ_ROOM(EVENT_MAX_LEN) ? read_event(&q, e, &delta, &ci, 1)
							 : read_event(&q, e, &delta, &ci, 0))
			return codec_bfail(d, "events: record %zu malformed", i);
		if (ci >= n_comms)
			return codec_bfail(d, "events: record %zu: comm %" PRIu32 " of %zu", i, ci,
					   n_comms);
		memcpy(e->other_comm, d->comms[ci], TC_COMM_LEN);
		e->start_ns = prev + (uint64_t)varint_unzigzag(delta);
		e->pad = 0;
		prev = e->start_ns;
		back |= delta;
		lo = e->start_ns < lo ? e->start_ns : lo;
	}
	*r = q;
	note_span(d, n, lo, back);
	d->out->n_events += n;
	d->n_events += n;
	return 0;
}

int dec_end(struct dec *d, struct rd *r)
{
	uint64_t ns, ne;

	if (get_u64(r, &ns) || get_u64(r, &ne))
		return codec_bfail(d, "end: malformed totals");
	/* a walk over a file's tail (codec_walk.tail) has not seen what the totals count */
	if ((!d->walk || !d->walk->tail) && (ns != d->n_samples || ne != d->n_events))
		return codec_bfail(d,
				   "end: totals say %" PRIu64 " samples, %" PRIu64
				   " events; read %" PRIu64 " and %" PRIu64,
				   ns, ne, d->n_samples, d->n_events);
	return 0;
}

int dec_rtt_hist(struct dec *d, struct rd *r, struct tc_rtt_hist *out)
{
	uint64_t bits, total, min, max, sum, count, sum_n = 0, gap, n;
	struct hist *h = out->h;
	size_t b = 0, first = 0;

	if (get_u64(r, &bits))
		return codec_bfail(d, "round-trip histogram: malformed layout");
	if (bits != HIST_SUB_BITS)
		return 1; /* another layout than this reader's */
	if (get_u64(r, &total) || get_u64(r, &min) || get_u64(r, &max) || get_u64(r, &sum) ||
	    get_u64(r, &count) || !count || count > HIST_BUCKETS || min > max)
		return codec_bfail(d, "round-trip histogram: malformed totals");
	memset(h, 0, sizeof(*h));
	for (uint64_t i = 0; i < count; i++) {
		if (get_u64(r, &gap) || get_u64(r, &n) || !n)
			return codec_bfail(d, "round-trip histogram: bucket %llu malformed",
					   (unsigned long long)i);
		if (gap >= HIST_BUCKETS - (i ? b + 1 : 0))
			return codec_bfail(d, "round-trip histogram: bucket %llu out of range",
					   (unsigned long long)i);
		b = i ? b + 1 + (size_t)gap : (size_t)gap;
		first = i ? first : b;
		if (__builtin_add_overflow(sum_n, n, &sum_n))
			return codec_bfail(d, "round-trip histogram: counts overflow");
		h->counts[b] = n;
	}
	if (sum_n != total || hist_bucket(min) != first || hist_bucket(max) != b)
		return codec_bfail(d, "round-trip histogram: counts and bounds disagree");
	h->total = total;
	h->min = min;
	h->max = max;
	out->sum = sum;
	out->wrapped = 0;
	return 0;
}

int dec_rtt_summary(struct dec *d, struct rd *r, struct tc_rtt_summary *out)
{
	uint64_t lo, hi, n_cpus, prev = 0;
	struct tc_rtt_summary s = {0};
	int bad = get_u64(r, &s.n) || get_u64(r, &s.min) || get_u64(r, &s.max);

	for (size_t i = 0; !bad && i < TC_RTT_SUMMARY_PCTS; i++)
		bad = get_u64(r, &s.pct[i]) || s.pct[i] < (i ? s.pct[i - 1] : s.min) ||
		      s.pct[i] > s.max;
	bad = bad || get_u64(r, &s.sum) || get_u64(r, &lo) || get_u64(r, &hi) ||
	      get_u64(r, &s.first_start) || get_u64(r, &s.last_start) || get_u64(r, &n_cpus);
	if (bad || !s.n || s.first_start > s.last_start || n_cpus > TC_RTT_SUMMARY_CPUS)
		return codec_bfail(d, "round-trip summary: malformed totals");
	s.sumsq = (unsigned __int128)hi << 64 | lo;
	s.n_cpus = (size_t)n_cpus;
	for (size_t i = 0; i < s.n_cpus; i++) {
		if (get_u32(r, &s.cpus[i]) || (i && s.cpus[i] <= prev))
			return codec_bfail(d, "round-trip summary: CPU %zu malformed", i);
		prev = s.cpus[i];
	}
	*out = s;
	return 0;
}
