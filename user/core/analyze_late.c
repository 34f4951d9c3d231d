// SPDX-License-Identifier: BSD-2-Clause
/*
 * analyze_late.c - what the analyzer credits after the sweep, once every spike
 * has its traced intervals: the hypervisor's steal, and hw-noise.
 *
 * Steal is known only per interval between two readings (a tick apart, 4 ms
 * at HZ=250): S ns were stolen somewhere in it. The sweep lists the steal
 * interval in each spike it overlaps, with no credit; here each interval's S
 * is handed to those spikes, the largest unexplained excess first, each at
 * most its unexplained excess and its overlap with the interval. A vCPU the
 * host deschedules stops for the whole period: the theft shows as one long
 * delay, not as many short ones, and never as more than was stolen. An IPI
 * sent to a descheduled vCPU waits for it: the credit of its delivery past a
 * whole usual IPI (calibrated) within the interval is the steal's too, taken
 * back after the unexplained part.
 *
 * hw-noise: what remains of a spike on which no OS event of the relevant CPUs
 * was seen at all, while every tracer that sees them was attached and nothing
 * was lost in its window: the CPU was taken while the OS ran nothing it can
 * see (on a VM the hypervisor's exits and interrupts that are not accounted as
 * steal; on bare metal SMIs, firmware, the SMT sibling). A spike that fails
 * either condition stays unattributed and says which.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_internal.h"
#include "grow.h"

/*
 * The tracers that see OS activity on a probe CPU, as "concern.program" rows of
 * the trace's tracer status (meta tracer.<concern>.<program>), or "concern." for
 * every program of a concern. A spike none of them saw anything in is hw-noise
 * only when all were attached.
 */
static const char *const coverage[] = {
	"sched.tc_sched_switch",
	"irq.",
	"ipi.tc_local_timer_entry",
	"ipi.tc_local_timer_exit",
	"ipi.tc_reschedule_entry",
	"ipi.tc_reschedule_exit",
	"ipi.tc_call_function_entry",
	"ipi.tc_call_function_exit",
	"ipi.tc_call_function_single_entry",
	"ipi.tc_call_function_single_exit",
	"ipi.tc_irq_work_entry",
	"ipi.tc_irq_work_exit",
	"mm.tc_page_fault",
	"power.tc_cpu_idle",
	"signal.tc_signal_deliver", /* a handler's end (--signal-ends) is timing, not sight */
	"workqueue.",
	"timer.",
};

#define N_COVERAGE (sizeof(coverage) / sizeof(coverage[0]))

static int attached(const char *v)
{
	return v && !strncmp(v, "attached", 8);
}

/* Whether the programs row names (one, or a whole concern) were all attached. */
static int row_attached(const struct tc_trace *t, const char *row)
{
	char key[96];
	size_t n, seen = 0;

	snprintf(key, sizeof(key), "tracer.%s", row);
	if (row[strlen(row) - 1] != '.')
		return attached(trace__meta(t, key));
	n = strlen(key);
	for (size_t i = 0; i < t->n_meta; i++) {
		if (strncmp(t->meta[i].key, key, n))
			continue;
		if (!attached(t->meta[i].val))
			return 0;
		seen++;
	}
	return seen > 0;
}

/* Appends the concern of row to the missing list, once. */
static void add_missing(char *list, size_t len, const char *row)
{
	char concern[32];
	size_t n = strcspn(row, ".");
	size_t used = strlen(list);

	snprintf(concern, sizeof(concern), "%.*s", (int)n, row);
	for (const char *p = list; (p = strstr(p, concern)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ',' || !p[n]))
			return;
	snprintf(list + used, len - used, "%s%s", used ? ", " : "", concern);
}

static void read_coverage(struct tc_analysis *a, const struct tc_trace *t)
{
	a->coverage_missing[0] = 0;
	for (size_t i = 0; i < N_COVERAGE; i++)
		if (!row_attached(t, coverage[i]))
			add_missing(a->coverage_missing, sizeof(a->coverage_missing), coverage[i]);
	a->coverage_complete = !a->coverage_missing[0];
}

int late_setup(struct ctx *c)
{
	const struct tc_trace *t = c->t;
	size_t n = 0;

	read_coverage(c->a, t);
	for (size_t i = 0; i < t->n_events; i++)
		n += t->events[i].kind == TC_EV_LOST && t->events[i].dur_ns;
	if (!n)
		return 0;
	c->lost = malloc(n * sizeof(*c->lost));
	if (!c->lost)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_events; i++) {
		const struct tc_event *e = &t->events[i];

		if (e->kind != TC_EV_LOST || !e->dur_ns)
			continue;
		c->lost[c->n_lost++] =
			(struct lost_span){e->start_ns, sat_add(e->start_ns, e->dur_ns), e->cpu};
		if (e->dur_ns > c->lost_max_ns)
			c->lost_max_ns = e->dur_ns;
	}
	/* events are sorted by start (analysis__run checks it), and so these are */
	return 0;
}

int late_note(struct ctx *c, size_t spike, size_t contrib, uint64_t cap)
{
	if (grow(&c->links, &c->cap_links, c->n_links + 1, sizeof(*c->links)))
		return -ENOMEM;
	c->links[c->n_links++] =
		(struct late_link){c->a->contribs[contrib].event, spike, contrib, cap};
	return 0;
}

void late_free(struct ctx *c)
{
	free(c->links);
	free(c->lost);
	c->links = NULL;
	c->lost = NULL;
	c->n_links = c->n_lost = 0;
}

/* ---- steal ----------------------------------------------------------------------------- */

/* The part of sp's excess no interval (nor hw-noise) explains yet. */
static uint64_t unexplained_ns(const struct tc_analysis *a, const struct tc_spike *sp)
{
	uint64_t done = sp->hw_noise_ns;

	for (size_t i = 0; i < sp->n_contrib; i++)
		done += a->contribs[sp->first_contrib + i].attributed_ns;
	return sp->excess_ns > done ? sp->excess_ns - done : 0;
}

/* One steal interval's links, with what each spike could still take. */
struct claim {
	struct late_link *link;
	uint64_t want;
};

/* Largest want first; ties in time order, so the result does not depend on qsort. */
static int cmp_claim(const void *x, const void *y)
{
	const struct claim *p = x, *q = y;

	if (p->want != q->want)
		return p->want > q->want ? -1 : 1;
	return p->link->spike < q->link->spike ? -1 : p->link->spike > q->link->spike;
}

int analyze_cmp_spent(const void *x, const void *y)
{
	const struct tc_steal_spent *p = x, *q = y;

	if (p->start_ns != q->start_ns)
		return p->start_ns < q->start_ns ? -1 : 1;
	return p->cpu < q->cpu ? -1 : p->cpu > q->cpu;
}

/* What is left of steal event e: its amount less what earlier stretches gave of it. */
static uint64_t steal_left(const struct ctx *c, const struct tc_event *e)
{
	struct tc_steal_spent key = {.start_ns = e->start_ns, .cpu = e->cpu};
	const struct tc_steal_spent *s = c->n_spent ? bsearch(&key, c->spent, c->n_spent,
							      sizeof(*c->spent), analyze_cmp_spent)
						    : NULL;

	return s ? (e->stolen_ns > s->ns ? e->stolen_ns - s->ns : 0) : e->stolen_ns;
}

/*
 * The part of contrib k's credit in sp that lies in its IPI's delivery, past what a
 * whole IPI usually takes on this host (the calibration's median, from the send to
 * the handler's end), and in steal event st's interval: an IPI waits while the host
 * has its vCPU descheduled, and a wait that long is the theft's, not the interrupt's.
 * A usual delivery stays the IPI's: the steal's interval is a tick long, and where in
 * it the time was stolen is not known. Without a calibration, nothing. The credit is
 * taken as spread evenly over the contrib's overlap with the window.
 */
static uint64_t stolen_delivery(const struct ctx *c, const struct tc_spike *sp,
				const struct tc_contrib *k, const struct tc_event *st)
{
	const struct tc_calib_kind *usual = calibrate_kind(&c->cal, TC_EV_IPI);
	const struct tc_event *e = &c->t->events[k->event];
	const struct tc_sample *s = &c->t->samples[sp->sample];
	uint64_t lo, hi, st_end = sat_add(st->start_ns, st->dur_ns), part;

	if (!usual || e->kind != TC_EV_IPI || e->cpu != st->cpu || !e->sent_ns ||
	    e->sent_ns >= e->start_ns || trace__is_peer(c->t, e) || k->nested ||
	    !k->attributed_ns || !k->overlap_ns)
		return 0;
	lo = sat_add(e->sent_ns, usual->traced_ns);
	lo = lo > st->start_ns ? lo : st->start_ns;
	lo = lo > s->t_start ? lo : s->t_start;
	hi = e->start_ns < st_end ? e->start_ns : st_end;
	hi = hi < s->t_end ? hi : s->t_end;
	if (lo >= hi)
		return 0;
	part = (uint64_t)((long double)k->attributed_ns * (long double)(hi - lo) /
			  (long double)k->overlap_ns);
	return part < k->attributed_ns ? part : k->attributed_ns;
}

/* What steal event st may take back from sp's IPIs' deliveries (stolen_delivery). */
static uint64_t stolen_deliveries(const struct ctx *c, const struct tc_spike *sp,
				  const struct tc_event *st)
{
	uint64_t n = 0;

	for (size_t i = 0; i < sp->n_contrib; i++)
		n = sat_add(n, stolen_delivery(c, sp, &c->a->contribs[sp->first_contrib + i], st));
	return n;
}

/* Moves up to n ns of sp's IPIs' credit in st's interval to steal; returns what was moved. */
static uint64_t take_deliveries(struct ctx *c, struct tc_spike *sp, const struct tc_event *st,
				uint64_t n)
{
	struct tc_analysis *a = c->a;
	uint64_t moved = 0;

	for (size_t i = 0; i < sp->n_contrib && moved < n; i++) {
		struct tc_contrib *k = &a->contribs[sp->first_contrib + i];
		uint64_t take = stolen_delivery(c, sp, k, st), hidden;

		take = take < n - moved ? take : n - moved;
		if (!take)
			continue;
		k->attributed_ns -= take;
		a->causes[k->cause].excess_ns -= take;
		/* its calibrated hidden cost stays within what it is still credited */
		hidden = k->hidden_ns > k->attributed_ns ? k->hidden_ns - k->attributed_ns : 0;
		k->hidden_ns -= hidden;
		a->causes[k->cause].hidden_ns -= hidden;
		sp->hidden_ns -= hidden;
		moved += take;
	}
	return moved;
}

/*
 * Hands steal event ev's stolen time to the spikes of links[0..n): what no interval
 * explains first, then what their IPIs' deliveries were credited in its interval.
 */
static void share_steal(struct ctx *c, struct late_link *links, size_t n, struct claim *cl)
{
	struct tc_analysis *a = c->a;
	const struct tc_event *st = &c->t->events[links[0].ev];
	uint64_t left = steal_left(c, st);

	for (size_t i = 0; i < n; i++) {
		struct tc_spike *sp = &a->spikes[links[i].spike];
		uint64_t u = sat_add(unexplained_ns(a, sp), stolen_deliveries(c, sp, st));

		cl[i] = (struct claim){&links[i], u < links[i].cap ? u : links[i].cap};
	}
	qsort(cl, n, sizeof(*cl), cmp_claim);
	for (size_t i = 0; i < n && left; i++) {
		struct tc_spike *sp = &a->spikes[cl[i].link->spike];
		uint64_t give = cl[i].want < left ? cl[i].want : left;
		uint64_t free_ns = unexplained_ns(a, sp);
		struct tc_contrib *k = &a->contribs[cl[i].link->contrib];

		if (give > free_ns)
			give = free_ns + take_deliveries(c, sp, st, give - free_ns);
		k->attributed_ns += give;
		a->causes[k->cause].excess_ns = sat_add(a->causes[k->cause].excess_ns, give);
		left -= give;
	}
}

static int cmp_link(const void *x, const void *y)
{
	const struct late_link *p = x, *q = y;

	if (p->ev != q->ev)
		return p->ev < q->ev ? -1 : 1;
	return p->spike < q->spike ? -1 : p->spike > q->spike;
}

static int credit_steal(struct ctx *c)
{
	struct claim *cl;

	if (!c->n_links)
		return 0;
	cl = malloc(c->n_links * sizeof(*cl));
	if (!cl)
		return -ENOMEM;
	qsort(c->links, c->n_links, sizeof(*c->links), cmp_link);
	for (size_t i = 0, j; i < c->n_links; i = j) {
		for (j = i; j < c->n_links && c->links[j].ev == c->links[i].ev; j++)
			;
		share_steal(c, &c->links[i], j - i, cl);
	}
	free(cl);
	return 0;
}

/* ---- hw-noise and the decision ---------------------------------------------------------- */

/* Were records lost on a CPU that matters to sample s during its window? */
static int lost_in(const struct ctx *c, const struct tc_sample *s)
{
	uint64_t from = s->t_start > c->lost_max_ns ? s->t_start - c->lost_max_ns : 0;
	size_t lo = 0, hi = c->n_lost;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->lost[mid].start < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < c->n_lost && c->lost[i].start < s->t_end; i++)
		if (c->lost[i].end > s->t_start &&
		    (c->lost[i].cpu == s->cpu || analyze_probe_cpu(c, c->lost[i].cpu)))
			return 1;
	return 0;
}

/* Did the sweep find any OS event in sp? Steal readings and lost windows are not. */
static int has_os_event(const struct ctx *c, const struct tc_spike *sp)
{
	for (size_t i = 0; i < sp->n_contrib; i++) {
		uint16_t kind = c->t->events[c->a->contribs[sp->first_contrib + i].event].kind;

		if (kind != TC_EV_STEAL && kind != TC_EV_LOST && kind != TC_EV_COUNTER)
			return 1;
	}
	return 0;
}

/*
 * Decides sp again from its contribs (and its hw-noise or path, cause
 * eventless) after late credit: the same rule as the sweep's
 * (spike_window_decide), and the books follow.
 */
static int redecide(struct ctx *c, struct tc_spike *sp, uint32_t eventless)
{
	struct tc_analysis *a = c->a;
	uint32_t old = sp->primary, old_candidate = sp->candidate;

	c->win.n_items = 0;
	for (size_t i = 0; i <= sp->n_contrib; i++) {
		const struct tc_contrib *k = &a->contribs[sp->first_contrib + i];
		struct spike_item *it;

		if (i == sp->n_contrib && !sp->hw_noise_ns && !sp->path_ns)
			break;
		it = spike_window__add(&c->win);
		if (!it)
			return -ENOMEM;
		if (i == sp->n_contrib) {
			it->ev = SIZE_MAX; /* hw-noise and path have no event */
			it->cause = eventless;
			it->att = sp->hw_noise_ns ? sp->hw_noise_ns : sp->path_ns;
		} else {
			it->ev = k->event;
			it->cause = k->cause;
			it->att = k->nested ? 0 : k->attributed_ns;
		}
		it->share = (long double)it->att;
		it->explains = a->causes[it->cause].cls != TC_CAUSE_UNATTRIBUTED;
	}
	spike_window_decide(&c->win, c->a->causes, sp);
	/* the sweep's page-fault candidate, where nothing better came */
	if (!sp->primary && sp->candidate == TC_NO_CAUSE)
		sp->candidate = old_candidate;
	a->causes[old].spikes--;
	a->causes[sp->primary].spikes++;
	return 0;
}

/* The cause index of hw-noise, made on first use. */
static int hw_cause(struct ctx *c, uint32_t *hw)
{
	if (*hw != TC_NO_CAUSE)
		return 0;
	return cause_table_index(&c->causes, causes_info(TC_CAUSE_HW_NOISE)->prefix,
				 TC_CAUSE_HW_NOISE, hw);
}

/* The path counter that moved in sp by the most: its TC_PATH_*, or 0 when none did. */
static uint16_t path_evidence(const struct ctx *c, const struct tc_spike *sp)
{
	uint64_t most = 0;
	uint16_t what = 0;

	for (size_t i = 0; i < sp->n_contrib; i++) {
		const struct tc_event *e =
			&c->t->events[c->a->contribs[sp->first_contrib + i].event];

		if (e->kind == TC_EV_COUNTER && e->delta > most && e->flags < TC_PATH_KINDS) {
			most = e->delta;
			what = e->flags;
		}
	}
	return what;
}

/*
 * The credit of sp's intervals that explain nothing (the timing thread blocked
 * while it waited for the answer) is the path's where the path is named: taken
 * from them here, so the books still add up.
 */
static void take_unexplaining(struct tc_analysis *a, struct tc_spike *sp)
{
	for (size_t i = 0; i < sp->n_contrib; i++) {
		struct tc_contrib *k = &a->contribs[sp->first_contrib + i];
		struct tc_cause *cause = &a->causes[k->cause];

		if (cause->cls != TC_CAUSE_UNATTRIBUTED || !k->attributed_ns)
			continue;
		cause->excess_ns -=
			k->attributed_ns < cause->excess_ns ? k->attributed_ns : cause->excess_ns;
		k->attributed_ns = 0;
	}
}

/* The cause index of path (what 0) or path:<what>, made on first use. */
static int path_cause(struct ctx *c, uint32_t *ids, uint16_t what, uint32_t *out)
{
	char name[TC_CAUSE_NAME_LEN];
	int err = 0;

	if (ids[what] == TC_NO_CAUSE) {
		snprintf(name, sizeof(name), "%s%s%s", causes_info(TC_CAUSE_PATH)->prefix,
			 what ? ":" : "", what ? causes_path_name(what) : "");
		err = cause_table_index(&c->causes, name, TC_CAUSE_PATH, &ids[what]);
	}
	*out = ids[what];
	return err;
}

/*
 * hw-noise where it applies (one host, no path counter moved), path where the
 * path is named (a path counter moved in the spike: path:<what>; two hosts,
 * where the peer was weighed: path), the new decisions, and why the rest are
 * unattributed.
 */
static int settle(struct ctx *c, const uint8_t *touched)
{
	struct tc_analysis *a = c->a;
	uint32_t hw = TC_NO_CAUSE, path = TC_NO_CAUSE, paths[TC_PATH_KINDS];
	int joined = c->t->peer.cpu_base != 0;
	int err = 0;

	for (int k = 0; k < TC_PATH_KINDS; k++)
		paths[k] = TC_NO_CAUSE;
	for (size_t i = 0; i < a->n_spikes && !err; i++) {
		struct tc_spike *sp = &a->spikes[i];
		const struct tc_sample *s = &c->t->samples[sp->sample];
		uint16_t what = path_evidence(c, sp);
		int os = has_os_event(c, sp), lost = !os && lost_in(c, s);
		uint64_t u;

		if (what || (joined && sp->cross_host))
			take_unexplaining(a, sp);
		u = unexplained_ns(a, sp);
		if ((what || (joined && sp->cross_host)) && u) {
			err = path_cause(c, paths, what, &path);
			if (err)
				break;
			sp->path_ns = u;
			a->causes[path].excess_ns = sat_add(a->causes[path].excess_ns, u);
		} else if (!joined && u && !os && !lost && a->coverage_complete) {
			err = hw_cause(c, &hw);
			if (err)
				break;
			sp->hw_noise_ns = u;
			a->causes[hw].excess_ns = sat_add(a->causes[hw].excess_ns, u);
		}
		if (sp->hw_noise_ns || sp->path_ns || touched[i])
			err = redecide(c, sp, sp->path_ns ? path : hw);
		sp->unexplained = sp->primary		      ? TC_EXPLAINED
				  : joined && !sp->cross_host ? TC_UNEXPLAINED_CLOCK
				  : os			      ? TC_UNEXPLAINED_LITTLE
				  : lost		      ? TC_UNEXPLAINED_LOST
							      : TC_UNEXPLAINED_UNTRACED;
	}
	return err;
}

/* The CPU of the interval of sp's primary cause credited most in it, -1 if none. */
static int spike_cpu(const struct tc_trace *t, const struct tc_analysis *a,
		     const struct tc_spike *sp)
{
	uint64_t best = 0;
	int cpu = -1;

	for (size_t i = 0; i < sp->n_contrib; i++) {
		const struct tc_contrib *k = &a->contribs[sp->first_contrib + i];

		if (k->cause != sp->primary || k->event >= t->n_events)
			continue;
		if (cpu < 0 || k->attributed_ns > best) {
			best = k->attributed_ns;
			cpu = (int)t->events[k->event].cpu;
		}
	}
	return cpu;
}

int late_run(struct ctx *c)
{
	struct tc_analysis *a = c->a;
	uint64_t attributed = 0;
	uint8_t *touched;
	int err;

	touched = calloc(a->n_spikes ? a->n_spikes : 1, 1);
	if (!touched)
		return -ENOMEM;
	err = credit_steal(c);
	for (size_t i = 0; i < c->n_links; i++)
		touched[c->links[i].spike] = 1;
	err = err ?: settle(c, touched);
	free(touched);
	if (err)
		return err;
	/* causes[0] holds what no cause explains: the books must still add up */
	for (size_t i = 1; i < a->n_causes; i++)
		attributed = sat_add(attributed, a->causes[i].excess_ns);
	a->causes[0].excess_ns =
		a->total_excess_ns > attributed ? a->total_excess_ns - attributed : 0;
	for (size_t i = 0; i < a->n_spikes; i++) {
		const struct tc_spike *sp = &a->spikes[i];
		int cpu = sp->primary < a->n_causes ? spike_cpu(c->t, a, sp) : -1;

		if (cpu >= 0)
			cpuset_add(&a->causes[sp->primary].cpus, (unsigned int)cpu);
	}
	return 0;
}
