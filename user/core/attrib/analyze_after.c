// SPDX-License-Identifier: BSD-2-Clause
/*
 * analyze_after.c - what the analyzer credits after the sweep, once every spike has its
 * traced intervals: the hypervisor's steal first (analyze_steal.c), then timer
 * interrupts held up beyond a whole tick, hw-noise and the path; then each changed spike
 * is decided again, and an unattributed one says why. The rules are docs/design.md's
 * "After the sweep".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_internal.h"
#include "core/util/grow.h"

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

int analysis_after_setup(struct ctx *c)
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

int analysis_after_note(struct ctx *c, size_t spike, size_t contrib, uint64_t cap)
{
	if (grow(&c->links, &c->cap_links, c->n_links + 1, sizeof(*c->links)))
		return -ENOMEM;
	c->links[c->n_links++] =
		(struct steal_link){c->a->contribs[contrib].event, spike, contrib, cap};
	return 0;
}

void analysis_after_free(struct ctx *c)
{
	free(c->links);
	free(c->lost);
	c->links = NULL;
	c->lost = NULL;
	c->n_links = c->n_lost = 0;
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

/* The causes that have no event of their own: hw-noise, cpu-variance and the path. */
struct eventless {
	uint32_t hw, variance, path; /* cause indices, TC_NO_CAUSE until made */
};

/*
 * Decides sp again from its contribs (and its hw-noise, cpu-variance and path, the causes
 * in ids) after late credit: the same rule as the sweep's (spike_window_decide), and the
 * books follow.
 */
static int redecide(struct ctx *c, struct tc_spike *sp, const struct eventless *ids)
{
	struct tc_analysis *a = c->a;
	uint32_t old = sp->primary, old_candidate = sp->candidate;
	const uint64_t none_ns[3] = {sp->hw_noise_ns, sp->variance_ns, sp->path_ns};
	const uint32_t none_id[3] = {ids->hw, ids->variance, ids->path};

	c->win.n_items = 0;
	for (size_t i = 0; i < sp->n_contrib + 3; i++) {
		uint64_t eventless = i >= sp->n_contrib ? none_ns[i - sp->n_contrib] : 0;
		struct spike_item *it;

		if (i >= sp->n_contrib && !eventless)
			continue;
		it = spike_window__add(&c->win);
		if (!it)
			return -ENOMEM;
		if (i >= sp->n_contrib) {
			it->ev = SIZE_MAX; /* these have no event */
			it->cause = none_id[i - sp->n_contrib];
			it->att = eventless;
		} else {
			const struct tc_contrib *k = &a->contribs[sp->first_contrib + i];

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

/*
 * The local timer interrupt's span holds its callbacks (each traced) and its own code:
 * entering, reading the clock, programming the next event, leaving. The calibration
 * measured what a whole tick takes on this host, callbacks and all: what the tracers saw
 * of it, whose 90th percentile is the top of its usual spread (a tick a little longer
 * than the median is a usual tick). Where an interrupt spent longer than that in its own
 * code inside a spike, the rest was not the tick's doing: the CPU was held in the handler
 * from outside (on a VM the hypervisor, not accounting it as steal; on bare metal an
 * SMI). Only what is proven inside the spike: the interrupt's own time in the window
 * (its span there less its callbacks there) less that whole tick. Taken from the
 * interrupt's credit for what the tracers saw, and credited to hw-noise. A calibration
 * without that percentile (an older recorder's) cannot tell: the rule is off.
 */
static uint64_t stalled_ns(const struct ctx *c, const struct tc_spike *sp, const struct tc_event *e,
			   uint64_t tick_ns)
{
	const struct tc_sample *s = &c->t->samples[sp->sample];
	uint64_t lo = e->start_ns > s->t_start ? e->start_ns : s->t_start;
	uint64_t hi = sat_add(e->start_ns, e->dur_ns), own;

	hi = hi < s->t_end ? hi : s->t_end;
	if (hi <= lo)
		return 0;
	own = hi - lo;
	for (size_t i = 0; i < sp->n_contrib; i++) {
		const struct tc_event *f =
			&c->t->events[c->a->contribs[sp->first_contrib + i].event];
		uint64_t a = f->start_ns > lo ? f->start_ns : lo,
			 b = sat_add(f->start_ns, f->dur_ns);

		b = b < hi ? b : hi;
		if (f->kind == TC_EV_TIMER_FN && f->cpu == e->cpu && b > a)
			own -= b - a < own ? b - a : own;
	}
	return own > tick_ns ? own - tick_ns : 0;
}

static int credit_stalls(struct ctx *c, uint8_t *touched, uint32_t *hw)
{
	const struct tc_calib_kind *tick = calibrate_kind(&c->cal, TC_EV_TIMER);
	struct tc_analysis *a = c->a;
	int err = 0;

	/* two hosts: what the clocks leave unplaced is the path's, not hw-noise */
	if (!tick || !tick->traced_p90_ns || c->t->peer.cpu_base)
		return 0;
	for (size_t i = 0; i < a->n_spikes && !err; i++) {
		struct tc_spike *sp = &a->spikes[i];

		for (size_t j = 0; j < sp->n_contrib && !err; j++) {
			struct tc_contrib *k = &a->contribs[sp->first_contrib + j];
			const struct tc_event *e = &c->t->events[k->event];
			uint64_t seen = k->attributed_ns - k->hidden_ns, take;

			if (e->kind != TC_EV_TIMER || k->nested || !seen)
				continue;
			take = stalled_ns(c, sp, e, tick->traced_p90_ns);
			take = take < seen ? take : seen;
			if (!take)
				continue;
			err = hw_cause(c, hw);
			if (err)
				break;
			k->attributed_ns -= take;
			a->causes[k->cause].excess_ns -= take < a->causes[k->cause].excess_ns
								 ? take
								 : a->causes[k->cause].excess_ns;
			a->causes[*hw].excess_ns = sat_add(a->causes[*hw].excess_ns, take);
			sp->hw_noise_ns += take;
			sp->stall_ns += take;
			touched[i] = 1;
		}
	}
	return err;
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
 * What a spike with no OS event, with complete tracing, leaves unexplained (u): hw-noise
 * where it can hold one exit to the hypervisor (the calibration's floor; every u where
 * the trace has none), else cpu-variance: shorter than any exit, the CPU's own doing.
 */
static int credit_eventless(struct ctx *c, struct tc_spike *sp, uint64_t u, struct eventless *ids)
{
	struct tc_analysis *a = c->a;
	int variance = c->cal.exit_floor_ns && u < c->cal.exit_floor_ns;
	int err;

	if (variance) {
		err = ids->variance != TC_NO_CAUSE
			      ? 0
			      : cause_table_index(&c->causes,
						  causes_info(TC_CAUSE_CPU_VARIANCE)->prefix,
						  TC_CAUSE_CPU_VARIANCE, &ids->variance);
		if (err)
			return err;
		sp->variance_ns = u;
		a->causes[ids->variance].excess_ns = sat_add(a->causes[ids->variance].excess_ns, u);
		return 0;
	}
	err = hw_cause(c, &ids->hw);
	if (err)
		return err;
	sp->hw_noise_ns = u;
	a->causes[ids->hw].excess_ns = sat_add(a->causes[ids->hw].excess_ns, u);
	return 0;
}

/*
 * hw-noise or cpu-variance where they apply (one host, no path counter moved), path where
 * the path is named (a path counter moved in the spike: path:<what>; two hosts, where the
 * peer was weighed: path), the new decisions, and why the rest are unattributed.
 */
static int settle(struct ctx *c, const uint8_t *touched, uint32_t hw)
{
	struct tc_analysis *a = c->a;
	struct eventless ids = {hw, TC_NO_CAUSE, TC_NO_CAUSE};
	uint32_t paths[TC_PATH_KINDS];
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
			spike_credit_take_waiting(a, sp, UINT64_MAX);
		u = spike_credit_unexplained_ns(a, sp);
		if ((what || (joined && sp->cross_host)) && u) {
			err = path_cause(c, paths, what, &ids.path);
			if (err)
				break;
			sp->path_ns = u;
			a->causes[ids.path].excess_ns = sat_add(a->causes[ids.path].excess_ns, u);
		} else if (!joined && u && !os && !lost && a->coverage_complete) {
			err = credit_eventless(c, sp, u, &ids);
			if (err)
				break;
		}
		if (sp->hw_noise_ns || sp->variance_ns || sp->path_ns || touched[i])
			err = redecide(c, sp, &ids);
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

int analysis_after_run(struct ctx *c)
{
	struct tc_analysis *a = c->a;
	uint32_t hw = TC_NO_CAUSE;
	uint64_t attributed = 0;
	uint8_t *touched;
	int err;

	touched = calloc(a->n_spikes ? a->n_spikes : 1, 1);
	if (!touched)
		return -ENOMEM;
	err = analysis_credit_steal(c);
	for (size_t i = 0; i < c->n_links; i++)
		touched[c->links[i].spike] = 1;
	err = err ?: credit_stalls(c, touched, &hw);
	err = err ?: settle(c, touched, hw);
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
