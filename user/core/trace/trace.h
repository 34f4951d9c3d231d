/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * trace.h - the in-memory model of a tailcause trace: what the recorder
 * collects, what the trace file holds and what the analyzer reads.
 *
 * Pure data; no I/O. Times are CLOCK_MONOTONIC nanoseconds (the clock of
 * bpf_ktime_get_ns()).
 *
 * Its text comes from a file, a peer or the system: meta keys and values and IRQ
 * names are stored escaped (lib/str.h's str_escape()), so whatever shows them shows
 * safe text. A task name (tc_event.other_comm, 16 bytes, perhaps with no NUL) is
 * kept as recorded: who turns it into words escapes it (core/attrib/causes.c, describe.c).
 */
#ifndef TAILCAUSE_CORE_TRACE_H
#define TAILCAUSE_CORE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/events.h"

/* One probe iteration: a full round trip, timed by the initiating thread. */
struct tc_sample {
	uint64_t t_start;
	uint64_t t_end;
	uint32_t cpu; /* CPU of the timing thread */
	uint32_t tid; /* the timing thread */
};

/* A round trip's time: t_end - t_start, 0 for one that ends before it starts. */
static inline uint64_t tc_sample_rtt(const struct tc_sample *s)
{
	return s->t_end > s->t_start ? s->t_end - s->t_start : 0;
}

/* A name for an IRQ number, read from /proc/interrupts at record time. */
struct tc_irq_name {
	uint32_t irq;
	char name[64];
};

/* A key = value fact about the host or the run ("kernel", "probe", "cpus"...). */
struct tc_kv {
	char *key;
	char *val;
};

/* The role a thread played in the run, so the analyzer can name it. */
#define TC_THREAD_PROBE	 1 /* a latency-probe thread */
#define TC_THREAD_SELF	 2 /* one of the recorder's own threads: preemption by it is `self` */
#define TC_THREAD_TARGET 3 /* the first thread of a traced command (record -- CMD) */
#define TC_THREAD_WAKER                                                                            \
	4 /* a task that woke a traced thread, traced from its first such waking on                \
	   * (TC_EV_WAKEUP with TC_WAKE_FOLLOWED) */

struct tc_thread {
	uint32_t tid;
	uint32_t role; /* TC_THREAD_* */
	uint32_t cpu;  /* pinned CPU, or UINT32_MAX when not pinned */
	uint32_t pad;
};

/* A count the tracers kept in a map: e.g. IRQ placement (TC_COUNTER_IRQ). */
struct tc_counter {
	uint32_t kind; /* TC_COUNTER_* (bpf/events.h) */
	uint32_t key;  /* IRQ number, vector, ... */
	uint32_t cpu;
	uint32_t pad;
	uint64_t value;
};

struct tc_trace {
	uint64_t mono_ns; /* a CLOCK_MONOTONIC / CLOCK_REALTIME pair taken together */
	uint64_t realtime_ns;

	struct tc_kv *meta;
	size_t n_meta;

	struct tc_thread *threads;
	size_t n_threads;

	struct tc_sample *samples;
	size_t n_samples;

	struct tc_event *events; /* sorted by start_ns once trace__sort() ran */
	size_t n_events;
	size_t n_derived; /* of them, made by the report from recorded ones (wakeups.h) */

	struct tc_irq_name *irq_names;
	size_t n_irq_names;

	struct tc_counter *counters;
	size_t n_counters;

	uint64_t *drops; /* ring-buffer drops, indexed by CPU */
	size_t n_drops;

	int truncated; /* the file ended before its END block */

	/*
	 * A two-host report (core/hosts/peer_join.h): the peer's events and threads were
	 * merged in, on this trace's clock, their CPUs numbered from cpu_base and
	 * their tids marked; 0: none. uncertainty_ns is the clock alignment's.
	 */
	struct {
		uint32_t cpu_base;
		uint64_t uncertainty_ns;
		/* this trace is the client's: when each request reached the server, on this
		 * trace's clock (sorted), and the usual one-way times to it and back */
		uint64_t *arrivals;
		size_t n_arrivals;
		uint64_t to_median_ns, back_median_ns;
	} peer;

	/*
	 * A streamed report's trace (core/stream/analyze_stream.h) holds only the samples and
	 * events of the spikes it kept: what the whole run held. on = 0: it is whole.
	 */
	struct {
		int on;
		uint64_t n_samples, n_events;		  /* as recorded (no derived events) */
		uint64_t first_sample_ns, last_sample_ns; /* the round trips' starts */
		uint64_t stolen_ns;			  /* of the steal intervals (TC_EV_STEAL) */
		uint32_t sample_cpus[64];		  /* the CPUs samples were timed on */
		size_t n_sample_cpus;
	} streamed;

	/* growth capacities; private to trace.c */
	size_t cap_meta, cap_threads, cap_samples, cap_events, cap_irq_names, cap_counters;
};

/* Allocates an empty trace; NULL with errno set on failure. */
struct tc_trace *trace__new(void);
/* Frees a trace and everything it owns; NULL is a no-op. */
void trace__free(struct tc_trace *t);

/*
 * A trace sharing base's tables (meta, threads, IRQ names, counters, drops, peer)
 * with samples and events of its own, none yet: one stretch of a run too long to
 * hold (core/stream/analyze_stream.h). base must outlive it; free it with
 * trace__free_view(). NULL on failure.
 */
struct tc_trace *trace__view(const struct tc_trace *base);
void trace__free_view(struct tc_trace *v);
/* A new trace with copies of src's tables (meta, threads, IRQ names, counters, drops),
 * its clocks and truncation, and no samples or events; NULL on failure. */
struct tc_trace *trace__copy_tables(const struct tc_trace *src);

/* Each append copies its input; returns 0 or -ENOMEM. A meta key and value are stored escaped. */
int trace__set_meta(struct tc_trace *t, const char *key, const char *val);
/* trace__set_meta() with a printf-formatted value (up to 511 bytes); 0 or -ENOMEM. */
int trace__set_metaf(struct tc_trace *t, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int trace__add_thread(struct tc_trace *t, uint32_t tid, uint32_t role, uint32_t cpu);
int trace__add_samples(struct tc_trace *t, const struct tc_sample *s, size_t n);
int trace__add_events(struct tc_trace *t, const struct tc_event *e, size_t n);
/*
 * Makes room for exactly n_samples more samples and n_events more events, which the
 * caller writes next, in place (samples + n_samples, events + n_events), and then
 * counts: the prefault hook gets that room. 0 or -ENOMEM.
 */
int trace__reserve(struct tc_trace *t, size_t n_samples, size_t n_events);
/*
 * Makes room for n_samples more samples and n_events more events ahead of the writes
 * (a decoder's estimate for a whole file), touching none of it: room that is never
 * written costs address space only. 0 or -ENOMEM.
 */
int trace__presize(struct tc_trace *t, size_t n_samples, size_t n_events);
/*
 * Sets a function called on the room trace__reserve() makes, just before it is written
 * (NULL: none): the array arr of cap bytes, the room bytes long from byte from. The I/O
 * layer sets it (user/tracefile/bigmem.c: huge pages, the room faulted in by one call),
 * so core stays free of system calls.
 */
void trace__set_prefault(void (*fn)(void *arr, size_t cap, size_t from, size_t bytes));
/* Names irq: name escaped, cut to fit; 0 or -ENOMEM. */
int trace__add_irq_name(struct tc_trace *t, uint32_t irq, const char *name);
/* Appends one counter; 0 or -ENOMEM. */
int trace__add_counter(struct tc_trace *t, uint32_t kind, uint32_t key, uint32_t cpu,
		       uint64_t value);
/* Sets drops[cpu] = count, growing the array as needed; 0 or -ENOMEM. */
int trace__set_drops(struct tc_trace *t, uint32_t cpu, uint64_t count);

/* The value for key, or NULL. */
const char *trace__meta(const struct tc_trace *t, const char *key);
/* The name recorded for irq, or NULL. */
const char *trace__irq_name(const struct tc_trace *t, uint32_t irq);
/* The role of tid (TC_THREAD_*), or 0 when tid is not a known thread. */
uint32_t trace__thread_role(const struct tc_trace *t, uint32_t tid);
/* 1 when e came from the peer's trace of a two-host report. */
static inline int trace__is_peer(const struct tc_trace *t, const struct tc_event *e)
{
	return t && t->peer.cpu_base && e->cpu >= t->peer.cpu_base;
}
/* Sum of drops over all CPUs. */
uint64_t trace__total_drops(const struct tc_trace *t);
/*
 * Keeps only a stretch of the run: the samples that start in [lo, hi), and the events
 * that reach within margin of it (context that began earlier: a long off-CPU interval,
 * a steal reading). Returns how many samples were kept.
 */
size_t trace__cut(struct tc_trace *t, uint64_t lo, uint64_t hi, uint64_t margin);
/* Sorts events by start time and samples by t_start (stable). */
void trace__sort(struct tc_trace *t);
/* The first of t's events (sorted) that starts at or after at; n_events if none does. */
size_t trace__first_event(const struct tc_trace *t, uint64_t at);

#endif /* TAILCAUSE_CORE_TRACE_H */
