// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_perfetto.c - the trace as Chrome trace-event JSON, which the
 * Perfetto UI (ui.perfetto.dev) and chrome://tracing open.
 *
 * Tracks (a Chrome "thread" each, grouped in "processes"):
 *   probe       round trips: every spike (named by its cause) and an evenly
 *               spread subset of the others, never millions of slices;
 *   threads     per traced thread: its off-CPU intervals, its own
 *               compaction/reclaim and its timed page faults;
 *   cpu N       hard IRQs, softirqs, timer, IPIs and NIC work; C-states apart;
 *   memory      compaction and reclaim of other tasks (kcompactd, ...);
 *   instants    page faults whose end was not seen, migrations, IRQ moves,
 *               frequency changes, NAPI, wakings;
 *   flows       an arrow from each waker's interval a ranked spike's wait chain credited
 *               (its preemption, its wait for its CPU) to the thread it woke, where that
 *               one waited on it.
 * A viewer moves aside slices that overlap without nesting, so each group of
 * intervals is dealt into lanes (plot_lanes) in which they nest properly, one
 * track per lane, with a 2 ns margin for viewers that round microseconds.
 * Names are the report's, escaped like the text's (task names through causes_comm());
 * json_out escapes what JSON must.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/attrib/causes.h"
#include "core/model/plot.h"
#include "lib/json_out.h"
#include "core/hosts/peer_join.h"
#include "report.h"
#include "report_common.h"

#define MAX_SPIKES 20000 /* the largest spikes kept as slices */
#define MAX_PLAIN  5000	 /* other round trips, evenly spread */
#define LANE_SLACK 2	 /* ns */

#define PID_PROBE    1
#define PID_THREADS  2
#define PID_MEMORY   3
#define PID_INSTANTS 4
#define PID_CPU0     100

/* An interval on some track group, before lanes. */
struct slice {
	uint64_t group; /* pid << 32 | track group within the pid */
	uint64_t start;
	uint64_t end;
	size_t ref;   /* event index, or sample index for PID_PROBE */
	uint64_t tid; /* the track it was dealt to (emit_group()) */
};

struct pf {
	FILE *out;
	const struct report_model *m;
	uint64_t t0;
	int n;		/* records written: a comma before every one but the first */
	uint32_t *tids; /* traced threads (sorted): their track index */
	char (*comms)[TC_COMM_TEXT_LEN]; /* their names (causes_comm()), "?" when none */
	size_t n_tids;
};

static void sep(struct pf *p)
{
	fputs(p->n++ ? ",\n" : "\n", p->out);
}

static void ts(struct pf *p, const char *key, uint64_t ns)
{
	uint64_t rel = ns > p->t0 ? ns - p->t0 : 0;

	fprintf(p->out, ",\"%s\":%llu.%03llu", key, (unsigned long long)(rel / 1000),
		(unsigned long long)(rel % 1000));
}

static void meta(struct pf *p, const char *what, uint32_t pid, uint64_t tid, const char *name)
{
	sep(p);
	fprintf(p->out,
		"{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%u,\"tid\":%llu,\"args\":{\"name\":", what,
		pid, (unsigned long long)tid);
	json_write_string(p->out, name);
	fputs("}}", p->out);
}

static void sort_index(struct pf *p, uint32_t pid, int idx)
{
	sep(p);
	fprintf(p->out,
		"{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%u,\"tid\":0,"
		"\"args\":{\"sort_index\":%d}}",
		pid, idx);
}

static size_t thread_index(const struct pf *p, uint32_t tid)
{
	size_t lo = 0, hi = p->n_tids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->tids[mid] == tid)
			return mid;
		if (p->tids[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

static int collect_tids(struct pf *p)
{
	const struct tc_trace *t = p->m->t;
	size_t n = 0;

	p->tids = malloc((t->n_events + 1) * sizeof(*p->tids));
	if (!p->tids)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_events; i++)
		if (t->events[i].kind == TC_EV_OFFCPU && (!n || p->tids[n - 1] != t->events[i].tid))
			p->tids[n++] = t->events[i].tid;
	qsort(p->tids, n, sizeof(*p->tids), cmp_u32);
	p->n_tids = 0;
	for (size_t i = 0; i < n; i++)
		if (!p->n_tids || p->tids[p->n_tids - 1] != p->tids[i])
			p->tids[p->n_tids++] = p->tids[i];
	p->comms = calloc(p->n_tids + 1, sizeof(*p->comms));
	if (!p->comms)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_tids; i++)
		strcpy(p->comms[i], "?");
	for (size_t i = 0; i < t->n_events; i++) {
		size_t k = t->events[i].other_comm[0] ? thread_index(p, t->events[i].other_pid)
						      : SIZE_MAX;

		if (k != SIZE_MAX)
			causes_comm(&t->events[i], p->comms[k], sizeof(p->comms[k]));
	}
	return 0;
}

/* The track group of an interval event; 0 when it is drawn as an instant. */
static uint64_t group_of(const struct pf *p, const struct tc_event *e)
{
	size_t th;

	if (e->kind == TC_EV_LOST && e->dur_ns)
		return (uint64_t)(PID_CPU0 + e->cpu) << 32 | 2; /* a span of its own */
	if (!e->dur_ns || causes_evidence_only(e->kind))
		return 0;
	switch (e->kind) {
	case TC_EV_OFFCPU:
		return (uint64_t)PID_THREADS << 32 | thread_index(p, e->tid);
	case TC_EV_COMPACTION:
	case TC_EV_RECLAIM:
	case TC_EV_PAGE_FAULT:
		th = thread_index(p, e->tid);
		if (th != SIZE_MAX)
			return (uint64_t)PID_THREADS << 32 | th;
		return (uint64_t)PID_MEMORY << 32;
	case TC_EV_SIGNAL:
		th = thread_index(p, e->tid);
		if (th != SIZE_MAX)
			return (uint64_t)PID_THREADS << 32 | th;
		return (uint64_t)(PID_CPU0 + e->cpu) << 32;
	case TC_EV_IDLE:
		return (uint64_t)(PID_CPU0 + e->cpu) << 32 | 1;
	case TC_EV_STEAL:
		return (uint64_t)(PID_CPU0 + e->cpu) << 32 | 3;
	case TC_EV_SIBLING:
		return (uint64_t)(PID_CPU0 + e->cpu) << 32 | 4;
	default:
		return (uint64_t)(PID_CPU0 + e->cpu) << 32;
	}
}

static int cmp_slice(const void *x, const void *y)
{
	const struct slice *a = x, *b = y;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1; /* the longer first: the parent */
	return a->ref < b->ref ? -1 : a->ref > b->ref;
}

#define SPIKE_REF (1ull << 63)

/* Round trips: the largest spikes, and an even spread of the rest. */
static int add_round_trips(struct pf *p, struct slice *s, size_t *n)
{
	const struct tc_trace *t = p->m->t;
	const struct tc_analysis *a = p->m->a;
	size_t k = p->m->n_ranked < MAX_SPIKES ? p->m->n_ranked : MAX_SPIKES, stride;

	for (size_t i = 0; i < k; i++) {
		const struct tc_sample *x = &t->samples[a->spikes[p->m->ranked[i]].sample];

		s[(*n)++] = (struct slice){(uint64_t)PID_PROBE << 32, x->t_start, x->t_end,
					   SPIKE_REF | p->m->ranked[i]};
	}
	stride = t->n_samples / MAX_PLAIN + 1;
	for (size_t i = 0; i < t->n_samples; i += stride) {
		const struct tc_sample *x = &t->samples[i];

		if (x->t_end - x->t_start > a->threshold_ns)
			continue; /* a spike: listed above if among the largest */
		s[(*n)++] = (struct slice){(uint64_t)PID_PROBE << 32, x->t_start, x->t_end, i};
	}
	return 0;
}

static void slice_name(struct pf *p, const struct slice *s, char *name, size_t len,
		       const char **cat)
{
	const struct report_model *m = p->m;
	const struct tc_event *e;
	char cause[TC_CAUSE_NAME_LEN];

	if (s->group >> 32 == PID_PROBE) {
		*cat = "round_trip";
		if (s->ref & SPIKE_REF) {
			const struct tc_spike *sp = &m->a->spikes[s->ref & ~SPIKE_REF];

			snprintf(name, len, "SPIKE %.3f us: %s", rm_lat_us(m, sp->rtt_ns),
				 m->a->causes[sp->primary].name);
		} else {
			snprintf(name, len, "%s %.3f us", m->div == 2 ? "round trip" : "iteration",
				 rm_lat_us(m, s->end - s->start));
		}
		return;
	}
	e = &m->t->events[s->ref];
	*cat = describe_kind(e->kind);
	if (e->kind == TC_EV_IDLE) {
		snprintf(name, len, "C-state %u", e->arg);
		return;
	}
	if (e->kind == TC_EV_LOST) {
		snprintf(name, len, "%llu records lost", (unsigned long long)e->lost);
		return;
	}
	if (e->kind == TC_EV_OFFCPU && !(e->flags & TC_OFFCPU_PREEMPTED)) {
		char comm[TC_COMM_TEXT_LEN];

		snprintf(name, len, "blocked (%s ran)",
			 e->other_comm[0] ? causes_comm(e, comm, sizeof(comm)) : "?");
		return;
	}
	causes_name_event(m->t, e, m->nic_irq_pattern, cause, sizeof(cause));
	snprintf(name, len, "%s", cause);
}

static void slice_args(struct pf *p, const struct slice *s)
{
	const struct report_model *m = p->m;
	char detail[256];

	if (s->group >> 32 != PID_PROBE) {
		describe_event(m->t, &m->t->events[s->ref], detail, sizeof(detail));
		fputs(",\"args\":{\"detail\":", p->out);
		json_write_string(p->out, detail);
		fputs("}", p->out);
		return;
	}
	if (s->ref & SPIKE_REF) {
		const struct tc_spike *sp = &m->a->spikes[s->ref & ~SPIKE_REF];

		fprintf(p->out,
			",\"cname\":\"terrible\",\"args\":{\"spike\":true,\"sample\":%zu,"
			"\"latency_us\":%.3f,\"excess_us\":%.3f,\"explained_pct\":%.1f,"
			"\"hidden_us\":%.3f,\"hw_noise_us\":%.3f,\"stall_us\":%.3f,\"cause\":",
			sp->sample, rm_lat_us(m, sp->rtt_ns), rm_lat_us(m, sp->excess_ns),
			sp->explained * 100.0, rm_lat_us(m, sp->hidden_ns),
			rm_lat_us(m, sp->hw_noise_ns), rm_lat_us(m, sp->stall_ns));
		json_write_string(p->out, m->a->causes[sp->primary].name);
		fputs("}", p->out);
		return;
	}
	fprintf(p->out, ",\"args\":{\"spike\":false,\"sample\":%zu,\"latency_us\":%.3f}",
		(size_t)s->ref, rm_lat_us(m, s->end - s->start));
}

static void emit_slice(struct pf *p, const struct slice *s, uint64_t tid)
{
	const char *cat = "";
	char name[160];

	slice_name(p, s, name, sizeof(name), &cat);
	sep(p);
	fprintf(p->out, "{\"ph\":\"X\",\"cat\":\"%s\",\"pid\":%u,\"tid\":%llu,\"name\":", cat,
		(uint32_t)(s->group >> 32), (unsigned long long)tid);
	json_write_string(p->out, name);
	ts(p, "ts", s->start);
	fprintf(p->out, ",\"dur\":%llu.%03llu", (unsigned long long)((s->end - s->start) / 1000),
		(unsigned long long)((s->end - s->start) % 1000));
	slice_args(p, s);
	fputs("}", p->out);
}

/* The name of one lane's track. */
static void track_name(struct pf *p, uint64_t group, uint32_t lane, char *buf, size_t len)
{
	uint32_t pid = (uint32_t)(group >> 32), low = (uint32_t)group;
	const char *what;

	if (pid == PID_THREADS) {
		snprintf(buf, len, "%stid %u %s%s", p->tids[low] & PEER_TID_BIT ? "peer " : "",
			 p->tids[low] & ~PEER_TID_BIT, p->comms[low], lane ? " (overlaps)" : "");
		return;
	}
	what = pid == PID_PROBE	   ? "round trips"
	       : pid == PID_MEMORY ? "compaction, reclaim"
	       : low == 1	   ? "idle (C-states)"
	       : low == 2	   ? "records lost"
	       : low == 3	   ? "steal (the hypervisor ran something else)"
	       : low == 4	   ? "tasks beside a probe CPU (SMT sibling)"
				   : "irq, softirq, timer, ipi";
	if (lane)
		snprintf(buf, len, "%s (lane %u)", what, lane + 1);
	else
		snprintf(buf, len, "%s", what);
}

/* One group's slices s[0..n), dealt into lanes, one track each. */
static int emit_group(struct pf *p, struct slice *s, size_t n)
{
	uint64_t *start = malloc(n * sizeof(*start)), *end = malloc(n * sizeof(*end));
	uint32_t *lane = malloc(n * sizeof(*lane)), lanes;
	char name[96];

	if (!start || !end || !lane) {
		free(start);
		free(end);
		free(lane);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		start[i] = s[i].start;
		end[i] = s[i].end;
	}
	lanes = plot_lanes(start, end, n, LANE_SLACK, lane);
	for (uint32_t l = 0; l < lanes; l++) {
		track_name(p, s[0].group, l, name, sizeof(name));
		meta(p, "thread_name", (uint32_t)(s[0].group >> 32),
		     ((s[0].group & 0xffffffffull) << 16) + l + 1, name);
	}
	for (size_t i = 0; i < n; i++) {
		s[i].tid = ((s[i].group & 0xffffffffull) << 16) + lane[i] + 1;
		emit_slice(p, &s[i], s[i].tid);
	}
	free(start);
	free(end);
	free(lane);
	return lanes ? 0 : -ENOMEM;
}

static void emit_instant(struct pf *p, const struct tc_event *e)
{
	char name[TC_CAUSE_NAME_LEN], detail[256];

	describe_event(p->m->t, e, detail, sizeof(detail));
	if (causes_evidence_only(e->kind))
		snprintf(name, sizeof(name), "%s", describe_kind(e->kind));
	else
		causes_name_event(p->m->t, e, p->m->nic_irq_pattern, name, sizeof(name));
	sep(p);
	fprintf(p->out, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"%s\",\"pid\":%d,\"tid\":%u,\"name\":",
		describe_kind(e->kind), PID_INSTANTS, e->kind);
	json_write_string(p->out, name);
	ts(p, "ts", e->start_ns);
	fputs(",\"args\":{\"detail\":", p->out);
	json_write_string(p->out, detail);
	fputs("}}", p->out);
}

/* The track of the slice of group g that holds t, of s[0..n) (sorted by group, then start), or
 * 0: none. */
static uint64_t track_at(const struct slice *s, size_t n, uint64_t g, uint64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* the first slice past (g, t) */
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].group < g || (s[mid].group == g && s[mid].start <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && s[i].group == g;)
		if (s[i].end > t)
			return s[i].tid;
	return 0;
}

/* The thread the waker of link `depth` woke in spike sp: its waking record's, or 0. */
static uint32_t woken_by(const struct report_model *m, const struct tc_spike *sp, uint32_t depth,
			 uint32_t waker)
{
	for (size_t i = 0; i < sp->n_contrib; i++) {
		const struct tc_contrib *k = &m->a->contribs[sp->first_contrib + i];
		const struct tc_event *e = &m->t->events[k->event];

		if (k->chain == depth && e->kind == TC_EV_WAKEUP && e->other_pid == waker)
			return e->tid;
	}
	return 0;
}

/* One arrow, id, from the waker's slice to the slice of the thread it woke (tracks wt, tt) at
 * t. */
static void flow(struct pf *p, size_t id, uint64_t wt, uint64_t tt, uint64_t t)
{
	sep(p);
	fprintf(p->out,
		"{\"ph\":\"s\",\"id\":%zu,\"cat\":\"wait_chain\",\"name\":\"held up\","
		"\"pid\":%d,\"tid\":%llu",
		id, PID_THREADS, (unsigned long long)wt);
	ts(p, "ts", t);
	fputs("}", p->out);
	sep(p);
	fprintf(p->out,
		"{\"ph\":\"f\",\"bp\":\"e\",\"id\":%zu,\"cat\":\"wait_chain\","
		"\"name\":\"held up\",\"pid\":%d,\"tid\":%llu",
		id, PID_THREADS, (unsigned long long)tt);
	ts(p, "ts", t);
	fputs("}", p->out);
}

/*
 * The wait chains of the ranked spikes, as arrows: from each off-CPU interval of a waker
 * that the chain credited (its preemption, its wait for its CPU) to the interval of the
 * thread it woke that waited on it meanwhile, both on their threads' tracks, at the first
 * moment both hold inside the spike.
 */
static void emit_chain_flows(struct pf *p, const struct slice *s, size_t n_s)
{
	const struct report_model *m = p->m;
	size_t id = 0;

	for (size_t r = 0; m->a && r < m->n_ranked && r < MAX_SPIKES; r++) {
		const struct tc_spike *sp = &m->a->spikes[m->ranked[r]];
		const struct tc_sample *x = &m->t->samples[sp->sample];

		for (size_t i = 0; i < sp->n_contrib; i++) {
			const struct tc_contrib *k = &m->a->contribs[sp->first_contrib + i];
			const struct tc_event *e = &m->t->events[k->event];
			uint32_t woken = k->chain ? woken_by(m, sp, k->chain, e->tid) : 0;
			size_t wi = woken ? thread_index(p, e->tid) : SIZE_MAX;
			size_t ti = woken ? thread_index(p, woken) : SIZE_MAX;
			uint64_t t, wt, tt;

			if (e->kind != TC_EV_OFFCPU || !k->attributed_ns || wi == SIZE_MAX ||
			    ti == SIZE_MAX)
				continue;
			t = e->start_ns > x->t_start ? e->start_ns : x->t_start;
			wt = track_at(s, n_s, (uint64_t)PID_THREADS << 32 | wi, t);
			tt = track_at(s, n_s, (uint64_t)PID_THREADS << 32 | ti, t);
			if (wt && tt)
				flow(p, ++id, wt, tt, t);
		}
	}
}

static void emit_processes(struct pf *p, const struct slice *s, size_t n)
{
	const struct tc_trace *t = p->m->t;
	int kinds[TC_EV_KIND_MAX + 1] = {0};
	char name[32];

	meta(p, "process_name", PID_PROBE, 0, "probe");
	sort_index(p, PID_PROBE, 0);
	meta(p, "process_name", PID_THREADS, 0, "threads (off CPU)");
	sort_index(p, PID_THREADS, 1);
	meta(p, "process_name", PID_MEMORY, 0, "memory");
	sort_index(p, PID_MEMORY, 2);
	meta(p, "process_name", PID_INSTANTS, 0, "instants");
	sort_index(p, PID_INSTANTS, 3);
	for (size_t i = 0; i < n; i++) {
		uint32_t pid = (uint32_t)(s[i].group >> 32);

		if (pid >= PID_CPU0 && (!i || s[i - 1].group >> 32 != pid)) {
			if (pid - PID_CPU0 >= PEER_CPU_BASE) /* --peer: the other host's */
				snprintf(name, sizeof(name), "peer cpu %u",
					 peer_join_cpu(pid - PID_CPU0));
			else
				snprintf(name, sizeof(name), "cpu %u", pid - PID_CPU0);
			meta(p, "process_name", pid, 0, name);
			sort_index(p, pid, (int)pid);
		}
	}
	for (size_t i = 0; i < t->n_events; i++)
		if (t->events[i].kind <= TC_EV_KIND_MAX && !group_of(p, &t->events[i]))
			kinds[t->events[i].kind] = 1;
	for (int k = 0; k <= TC_EV_KIND_MAX; k++)
		if (kinds[k])
			meta(p, "thread_name", PID_INSTANTS, (uint64_t)k,
			     describe_kind((uint16_t)k));
}

/* Every slice: round trips (latency reports) and interval events, sorted by group. */
static int collect(struct pf *p, struct slice **out, size_t *n_out)
{
	const struct tc_trace *t = p->m->t;
	size_t cap = t->n_events + (p->m->a ? MAX_SPIKES + MAX_PLAIN + 2 : 0), n = 0;
	struct slice *s = malloc((cap ? cap : 1) * sizeof(*s));
	int err = 0;

	if (!s)
		return -ENOMEM;
	if (p->m->a)
		err = add_round_trips(p, s, &n);
	for (size_t i = 0; i < t->n_events && !err; i++) {
		const struct tc_event *e = &t->events[i];
		uint64_t g = group_of(p, e);

		if (g && (uint32_t)g != UINT32_MAX)
			s[n++] = (struct slice){g, e->start_ns, e->start_ns + e->dur_ns, i};
	}
	qsort(s, n, sizeof(*s), cmp_slice);
	*out = s;
	*n_out = n;
	return err;
}

static uint64_t trace_start(const struct tc_trace *t)
{
	uint64_t t0 = t->mono_ns;

	if (t->n_events && (!t0 || t->events[0].start_ns < t0))
		t0 = t->events[0].start_ns;
	if (t->n_samples && (!t0 || t->samples[0].t_start < t0))
		t0 = t->samples[0].t_start;
	return t0;
}

int report_perfetto(FILE *out, const struct report_model *m)
{
	struct pf p = {.out = out, .m = m, .t0 = trace_start(m->t)};
	struct slice *s = NULL;
	size_t n = 0;
	int err = collect_tids(&p);

	err = err ?: collect(&p, &s, &n);
	if (err)
		goto out_free;
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"tailcause\",", out);
	fprintf(out, "\"trace\":");
	json_write_string(out, m->h.path ? m->h.path : "");
	fprintf(out, ",\"t0_monotonic_ns\":%llu,\"report\":\"%s\"},\"traceEvents\":[",
		(unsigned long long)p.t0, m->noise ? "noise" : "latency");
	emit_processes(&p, s, n);
	for (size_t i = 0; i < n && !err;) {
		size_t j = i;

		while (j < n && s[j].group == s[i].group)
			j++;
		err = emit_group(&p, s + i, j - i);
		i = j;
	}
	for (size_t i = 0; i < m->t->n_events && !err; i++)
		if (!group_of(&p, &m->t->events[i]))
			emit_instant(&p, &m->t->events[i]);
	if (!err)
		emit_chain_flows(&p, s, n);
	fputs("\n]}\n", out);
out_free:
	free(s);
	free(p.tids);
	free(p.comms);
	return err;
}
