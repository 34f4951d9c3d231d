// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_text.c - the terminal report: what was traced, perftest-style
 * statistics with a verdict, the cause table, the top spikes with their
 * timelines, and one recommendation per measured cause. Formatting only.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/attrib/causes.h"
#include "core/model/plot.h"
#include "core/util/units.h"
#include "core/model/verdict.h"
#include "core/hosts/peer_join.h"
#include "report.h"
#include "report_common.h"

#define US(ns) NS_US(ns)
/* Events listed per spike: those with the most credit, in time order. */
#define TIMELINE_MAX 40

/* The statistics table; div 2 prints RTTs as one-way latencies, 1 as they are. */
static void stats_table(FILE *out, const struct lat_summary *s, size_t msg_bytes, unsigned int div)
{
	double f = 1000.0 * div;

	fprintf(out, " %-7s %-11s %-12s %-12s %-15s %-12s %-14s %-22s %s\n", "#bytes",
		"#iterations", "t_min[usec]", "t_max[usec]", "t_typical[usec]", "t_avg[usec]",
		"t_stdev[usec]", "99% percentile[usec]", "99.9% percentile[usec]");
	fprintf(out, " %-7zu %-11zu %-12.3f %-12.3f %-15.3f %-12.3f %-14.3f %-22.3f %.3f\n",
		msg_bytes, s->n, (double)s->min / f, (double)s->max / f, (double)s->p50 / f,
		s->mean / f, s->stdev / f, (double)s->p99 / f, (double)s->p999 / f);
	fprintf(out, " 99.99%%: %.3f usec   99.999%%: %.3f usec   (%s; %s)\n", (double)s->p9999 / f,
		(double)s->p99999 / f,
		div == 2 ? "one way = RTT/2" : "each iteration as the benchmark timed it",
		s->binned ? "every round trip counted, percentiles from a histogram: within 0.8 %"
			  : "every sample kept, unlike perftest which drops the two largest");
}

void report_stats_table(FILE *out, const struct lat_summary *s, size_t msg_bytes)
{
	stats_table(out, s, msg_bytes, 2);
}

/* A header fact, or "?" where the trace does not say. */
static const char *or_q(const char *v)
{
	return v ? v : "?";
}

/* "traced      sched (5), irq (4), ...", then one line per program that is not. */
static void print_tracers(FILE *out, const struct report_model *m)
{
	fprintf(out, "  traced      ");
	for (size_t i = 0; i < m->n_concerns; i++)
		fprintf(out, "%s%s (%u)", i ? ", " : "", m->concerns[i].name,
			m->concerns[i].attached);
	fprintf(out, "%s\n", m->n_concerns ? "" : "nothing");
	for (size_t i = 0; i < m->n_tracers; i++)
		if (!m->tracers[i].attached)
			fprintf(out, "  NOT traced  %s.%s: %s\n", m->tracers[i].concern,
				m->tracers[i].program, m->tracers[i].detail);
	if (!m->n_missing)
		fprintf(out, "  not traced  - (every program attached)\n");
}

/* Whether a hypervisor runs the host, and what it took from the probe CPUs. */
static void print_hypervisor(FILE *out, const struct rm_header *h)
{
	if (!h->hypervisor)
		return; /* an older recorder did not say */
	if (!strcmp(h->hypervisor, "none")) {
		fprintf(out, "  hypervisor  none (bare metal)\n");
		return;
	}
	if (h->steal_traced)
		fprintf(out,
			"  hypervisor  %s: %.3f ms stolen from the probe CPUs during the run (%s)\n",
			h->hypervisor, (double)h->stolen_ns / 1e6, h->steal + strlen("traced: "));
	else
		fprintf(out, "  hypervisor  %s: steal %s\n", h->hypervisor, or_q(h->steal));
}

/* --peer: the other host's trace, and how well the two clocks were aligned. */
static void print_peer(FILE *out, const struct rm_header *h)
{
	const struct rm_peer *p = &h->peer;

	if (!p->joined) {
		if (p->missing)
			fprintf(out, "  peer        the server's trace was not fetched: %s\n",
				p->missing);
		return;
	}
	fprintf(out,
		"  peer        %s: %s, the %s (CPUs %s), %" PRIu64 " intervals joined, %" PRIu64
		" lost\n"
		"              clocks aligned by %" PRIu64 " round trips: the peer's is %+.3f usec "
		"off this one's, drifting %+.3f ppm, to within +-%.3f usec%s\n"
		"              (spikes smaller than that are not attributed across hosts; what "
		"neither host explains is `path`); paired by %s\n",
		or_q(p->path), or_q(p->host), or_q(p->mode), or_q(p->cpus), p->events, p->lost,
		p->pairs, p->offset_ns / 1e3, p->drift_ppm, US(p->uncertainty_ns),
		p->consistent ? "" : " (no line fits every round trip: a clock stepped)",
		or_q(p->paired_by));
}

/* What the calibration found each kind of event costs, against what the guest sees. */
static void print_calibration(FILE *out, const struct rm_header *h)
{
	const char *sep = "";

	if (!h->calib_status)
		return; /* an older recorder did not calibrate */
	if (!h->calibrated || strncmp(h->calib_status, "measured", 8)) {
		fprintf(out, "  calibration %s\n", h->calib_status);
		return;
	}
	fprintf(out, "  calibration ");
	for (int k = 0; k < TC_CALIB_KINDS; k++) {
		const struct tc_calib_kind *x = calibrate_kind(&h->cal, tc_calib_kinds[k]);

		if (!x)
			continue;
		fprintf(out, "%s%s %s costs %.3f usec, %.3f of it traced (n %zu)", sep,
			strchr("AEIOU", tc_calib_names[k][0]) ? "an" : "a", tc_calib_names[k],
			US(x->gap_ns), US(x->traced_ns), x->n);
		sep = "; ";
	}
	fprintf(out, "%s\n              (%s; the rest is credited as hidden)\n",
		*sep ? "" : "nothing measured enough", h->calib_status);
	if (h->cal.exit_floor_ns)
		fprintf(out,
			"              the cheapest exit to the hypervisor (a cpuid) costs %.3f usec: "
			"a spike with no OS event that lost less in all is cpu-variance, not hw-noise\n",
			US(h->cal.exit_floor_ns));
}

/* record --iter: how the command's iterations were marked, and what the markers cost. */
static void print_iterations(FILE *out, const struct rm_header *h)
{
	fprintf(out,
		"  iterations  --iter %s: %s\n"
		"              %s; marked at %s\n",
		h->iter_spec, or_q(h->iter_what), or_q(h->iter_summary), or_q(h->iter_points));
	if (h->has_iter_bounds)
		fprintf(out,
			"              each iteration's bounds moved out %.3f usec before and %.3f "
			"usec after,\n"
			"              to the benchmark's own clock reads\n",
			US(h->iter_pre_ns), US(h->iter_post_ns));
	if (h->has_iter_calib)
		fprintf(out, "              the markers add %.3f usec to each iteration (%s)\n",
			US(h->iter_cost_ns), or_q(h->iter_calib));
	if (h->has_iter_jitter)
		fprintf(out,
			"              and move one iteration's length by %.3f usec (median, from "
			"call to call)\n",
			US(h->iter_jitter_ns));
	/* a system-call tracepoint slows every system call of the machine: a peer here too */
	if (h->iter_syscalls)
		fprintf(out, "              (while they were attached every system call on this "
			     "host took the tracepoints' slow path: a peer here paid too)\n");
	if (!h->has_iter_calib && h->iter_calib)
		fprintf(out, "              markers %s\n", h->iter_calib);
}

/* What ran: the built-in probe, or a traced command and perhaps its own samples. */
static void print_workload(FILE *out, const struct rm_header *h)
{
	const char *interrupted = h->interrupted ? ", interrupted"
				  : h->peer_lost ? ", then the peer was lost: the run stopped there"
						 : "";

	if (!h->command) {
		fprintf(out,
			"  probe       %s on CPUs %s: %zu round trips recorded (%s requested)%s\n",
			or_q(h->probe), or_q(h->cpus), h->round_trips, or_q(h->iterations),
			interrupted);
		return;
	}
	fprintf(out, "  command     %s (pid %s, %s)%s\n", or_q(h->target), or_q(h->target_pid),
		h->target_status ? h->target_status : "status unknown", interrupted);
	if (h->samples_file)
		fprintf(out, "  samples     %s: %zu iterations timed by the command (%s columns)\n",
			h->samples_file, h->round_trips, or_q(h->samples_columns));
	else if (h->iter_spec)
		print_iterations(out, h);
	else
		fprintf(out,
			"  samples     none (no --samples): host noise per thread and interval\n");
}

/* Where events were lost: the recorder's lost windows, the first few of them. */
static void print_lost(FILE *out, const struct report_model *m)
{
	for (size_t i = 0; i < m->n_lost && i < 5; i++) {
		const struct tc_event *e = m->lost[i];

		/* flags: the kind lost (0 in traces from before they were told apart) */
		fprintf(out,
			"  lost        %" PRIu64
			" %s%srecords on cpu %u between +%.3f s and +%.3f s:"
			" spikes there may lack their cause\n",
			(uint64_t)e->lost, e->lost_kind ? describe_kind(e->lost_kind) : "",
			e->lost_kind ? " " : "", e->cpu,
			(double)((int64_t)(e->start_ns - m->h.start_ns)) / 1e9,
			(double)((int64_t)(e->start_ns + e->dur_ns - m->h.start_ns)) / 1e9);
	}
	if (m->n_lost > 5)
		fprintf(out,
			"  lost        ... and %zu more windows ('tailcause dump' lists them)\n",
			m->n_lost - 5);
}

void report_text_header(FILE *out, const struct report_model *m)
{
	const struct rm_header *h = &m->h;

	fprintf(out, "tailcause report  %s\n", h->path ? h->path : "(trace not kept)");
	fprintf(out, "  host        %s  (Linux %s, %s CPUs, %s)\n", or_q(h->host_name),
		or_q(h->kernel), or_q(h->host_cpus), or_q(h->cpu_model));
	print_hypervisor(out, h);
	print_calibration(out, h);
	print_workload(out, h);
	if (h->stretch)
		fprintf(out, "  stretch     %s (--from/--to)\n", h->stretch);
	if (h->streamed)
		fprintf(out, "  streamed    %s\n", h->streamed);
	print_peer(out, h);
	if (h->probe_detail)
		fprintf(out, "  device      %s\n", h->probe_detail);
	fprintf(out, "  clock       %s\n", h->clock ? h->clock : "CLOCK_MONOTONIC");
	print_tracers(out, m);
	fprintf(out, "  events      %zu intervals, %" PRIu64 " lost to ring-buffer overrun%s\n",
		h->n_events, h->lost, h->lost ? " (attribution may be incomplete)" : "");
	if (h->missed)
		fprintf(out,
			"  missed      %" PRIu64 " program runs skipped by the kernel's recursion "
			"guard (an event while another BPF program ran on its CPU): their records "
			"were never made\n",
			h->missed);
	print_lost(out, m);
	if (h->truncated)
		fprintf(out,
			"  WARNING     the trace file is truncated: it ends before its END block;"
			" what follows covers only what was written\n");
	if (!h->path)
		fprintf(out, "  trace       not kept (use -o FILE to keep it)\n");
}

/* Rows of the cause table; the rest are summed on one line. */
#define CAUSE_ROWS 15

static void print_causes(FILE *out, const struct report_model *m)
{
	const struct tc_analysis *a = m->a;
	uint64_t rest_spikes = 0, rest_excess = 0;
	size_t rest = 0;

	fprintf(out, "\nspikes: %" PRIu64 " of %zu %s above %.3f usec %s (%s)\n", a->n_spikes_run,
		a->stats.n, m->div == 2 ? "round trips" : "iterations",
		rm_lat_us(m, a->threshold_ns), rm_lat_what(m), m->rule);
	if (!a->n_spikes)
		return;
	fprintf(out, "  %-48s %8s %16s %7s\n", "cause", "spikes", "excess[usec]", "share");
	for (size_t i = 0; i < m->n_causes; i++) {
		const struct tc_cause *c = &a->causes[m->causes[i].cause];

		if (i >= CAUSE_ROWS) {
			rest++;
			rest_spikes += c->spikes;
			rest_excess += c->excess_ns;
			continue;
		}
		fprintf(out, "  %-48.48s %8" PRIu64 " %16.3f %6.1f%%\n", c->name, c->spikes,
			rm_lat_us(m, c->excess_ns), m->causes[i].share_pct);
	}
	if (rest) {
		char label[48];

		snprintf(label, sizeof(label), "(%zu more cause%s)", rest, rest == 1 ? "" : "s");
		fprintf(out, "  %-48s %8" PRIu64 " %16.3f %6.1f%%\n", label, rest_spikes,
			rm_lat_us(m, rest_excess),
			a->total_excess_ns
				? 100.0 * (double)rest_excess / (double)a->total_excess_ns
				: 0.0);
	}
	fprintf(out,
		"  (spikes: spikes with this primary cause; excess: %s latency above the"
		" median, split among causes by overlap)\n",
		m->div == 2 ? "one-way" : "the");
}

static void print_event(FILE *out, const struct tc_trace *t, const struct tc_event *e)
{
	char detail[256];

	describe_event(t, e, detail, sizeof(detail));
	fprintf(out, "%-9s %s", describe_kind(e->kind), detail);
}

/* Two hosts, this host the client: where the round trip's time went, to the peer or back. */
static void print_direction(FILE *out, const struct report_model *m, const struct tc_sample *s)
{
	static const char *const slow[] = {
		[PEER_LEG_NEITHER] = "neither leg by more than the clocks' uncertainty",
		[PEER_LEG_TO] =
			"slow before the peer read it (the way there, or the peer's wake-up)",
		[PEER_LEG_BACK] = "slow after the peer read it (its turnaround, or the way back)",
	};
	uint64_t to, back;

	if (peer_direction(m->t, s, &to, &back))
		return;
	fprintf(out,
		"      direction the peer's probe read the request %.3f usec after it was sent "
		"(usually %.3f), its answer came %.3f usec later (usually %.3f): %s\n",
		US(to), US(m->t->peer.to_median_ns), US(back), US(m->t->peer.back_median_ns),
		slow[peer_slow_leg(m->t, to, back)]);
}

/* Whom the timing thread waited on, and whom they waited on (wait_chain.h). */
static void print_chain(FILE *out, const struct report_model *m, const struct tc_spike *sp)
{
	char line[160];
	uint32_t depth;
	size_t pos = 0;

	while (report_chain_next(m, sp, &pos, &depth, line, sizeof(line)))
		fprintf(out, "      %s %s\n", depth == 1 ? "waited on" : "  which waited on", line);
}

static void print_spike(FILE *out, const struct report_model *m, size_t rank,
			const struct tc_spike *sp)
{
	const struct tc_trace *t = m->t;
	const struct tc_analysis *a = m->a;
	const struct tc_sample *s = &t->samples[sp->sample];
	const struct tc_cause *c = &a->causes[sp->primary];
	size_t pick[TIMELINE_MAX], n;

	fprintf(out, "\n  #%zu  at +%.6f s: %.3f usec %s (%.1fx median), cpu %d\n", rank,
		(double)(s->t_start - m->h.first_sample_ns) / 1e9, rm_lat_us(m, sp->rtt_ns),
		rm_lat_what(m), a->stats.p50 ? (double)sp->rtt_ns / (double)a->stats.p50 : 0.0,
		s->cpu == UINT32_MAX ? -1 : (int)s->cpu);
	fprintf(out, "      cause %s, %.0f%% of the excess explained", c->name,
		sp->explained * 100);
	if (sp->primary == 0 && sp->candidate != TC_NO_CAUSE)
		fprintf(out, " (best candidate: %s)", a->causes[sp->candidate].name);
	fprintf(out, "\n");
	if (sp->unexplained) {
		char why[256];

		report_unexplained_words(m, sp, why, sizeof(why));
		fprintf(out, "      %s\n", why);
	}
	if (sp->hw_noise_ns) {
		char what[320];

		report_hw_noise_sentence(m, sp, what, sizeof(what));
		fprintf(out, "      hw-noise  %.3f usec: %s\n", rm_lat_us(m, sp->hw_noise_ns),
			what);
	}
	if (sp->variance_ns) {
		char what[320];

		report_cpu_variance_sentence(m, sp, what, sizeof(what));
		fprintf(out, "      cpu-variance  %.3f usec: %s\n", rm_lat_us(m, sp->variance_ns),
			what);
	}
	if (sp->path_ns)
		fprintf(out, "      path      %.3f usec: %s\n", rm_lat_us(m, sp->path_ns),
			m->h.peer.joined
				? "neither host's intervals explain it"
				: "no interval explains it, and a path counter moved in it");
	print_direction(out, m, s);
	print_chain(out, m, sp);
	if (!sp->n_contrib)
		return;
	n = plot_timeline_pick(t, a, sp, TIMELINE_MAX, pick);
	fprintf(out, "      %12s %12s %12s  %s%s\n", "start[usec]", "dur[usec]", "credit[usec]",
		a->calibrated ? "hidden[usec]  " : "",
		"event (start relative to the round trip's start)");
	for (size_t i = 0; i < n; i++) {
		const struct tc_contrib *k = &a->contribs[sp->first_contrib + pick[i]];
		const struct tc_event *e = &t->events[k->event];
		double rel = (double)((int64_t)(e->start_ns - s->t_start)) / 1000.0;

		fprintf(out, "      %+12.3f %12.3f %12.3f  ", rel, US(e->dur_ns),
			US(k->attributed_ns));
		if (a->calibrated)
			fprintf(out, "%12.3f  ", US(k->hidden_ns));
		print_event(out, t, e);
		if (describe_mark(k))
			fprintf(out, "  [%s]", describe_mark(k));
		if (describe_chain_mark(t, k))
			fprintf(out, "  [%s]", describe_chain_mark(t, k));
		fputc('\n', out);
	}
	if (n < sp->n_contrib)
		fprintf(out, "      (%zu more events with less credit not listed)\n",
			sp->n_contrib - n);
}

static void print_top(FILE *out, const struct report_model *m)
{
	if (!m->n_top)
		return;
	fprintf(out, "\ntop %zu spikes\n", m->n_top);
	for (size_t i = 0; i < m->n_top; i++)
		print_spike(out, m, i + 1, &m->a->spikes[m->ranked[i]]);
}

static void print_recommendations(FILE *out, const struct report_model *m)
{
	if (m->n_recs)
		fprintf(out, "\nrecommendations\n");
	for (size_t i = 0; i < m->n_recs; i++)
		fprintf(out, "  %-16s %s\n  %-16s fix: %s\n", m->recs[i].info->prefix,
			m->recs[i].what, "", m->recs[i].info->fix);
}

/* A short histogram of the latency, one row per decade, bars on a log scale. */
static void print_distribution(FILE *out, const struct hist *h, unsigned int div)
{
	uint64_t lo = 1, below;
	double scale;
	char a[32], b[32];

	if (!h->total)
		return;
	while (lo * 10 <= h->min / div)
		lo *= 10;
	scale = 40.0 / log10(1.0 + (double)h->total);
	fprintf(out, "\ndistribution (%s, per decade; bars on a log scale)\n",
		div == 2 ? "one way" : "per iteration");
	below = hist_count_below(h, div * lo);
	for (; lo <= h->max / div && lo <= UINT64_MAX / 20; lo *= 10) {
		uint64_t upto = hist_count_below(h, 10 * div * lo), n = upto - below;
		int bar = n ? (int)(scale * log10(1.0 + (double)n) + 0.999) : 0;

		below = upto;
		units_duration((double)lo, 0, a, sizeof(a));
		units_duration((double)(10 * lo), 0, b, sizeof(b));
		fprintf(out, "  %6s .. %-6s %10llu %8.4f%%  %.*s\n", a, b, (unsigned long long)n,
			100.0 * (double)n / (double)h->total, bar,
			"########################################");
	}
}

void report_text(FILE *out, const struct report_model *m)
{
	const struct tc_analysis *a = m->a;

	report_text_header(out, m);
	fprintf(out, "\n");
	stats_table(out, &a->stats, m->h.has_message_bytes ? m->h.message_bytes : 0, m->div);
	if (m->verdict)
		fprintf(out, " verdict: t_avg %.3f usec is %s%s\n", rm_lat_us(m, a->stats.mean),
			m->verdict->text,
			!m->h.nic_probe
				? " - on the RDMA scale; this probe has no NIC, so read it as"
				  " host jitter"
				: "");
	if (m->hist)
		print_distribution(out, m->hist, m->div);
	print_causes(out, m);
	report_text_coll(out, m);
	print_top(out, m);
	report_text_irqs(out, m);
	print_recommendations(out, m);
	report_audit(out, m);
}
