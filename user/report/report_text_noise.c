// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_text_noise.c - the terminal report of a trace without samples
 * (record -- CMD): host noise per thread of the command and per interval,
 * the worst intervals first, totals by cause. Formatting only.
 */
#include "report.h"
#include "report_common.h"

#define MS(ns) ((double)(ns) / 1e6)

/* Rows of the cause table; the rest are summed on one line. */
#define CAUSE_ROWS 20
/* Causes listed under each of the worst intervals. */
#define ROW_CAUSES 6

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_intro(FILE *out, const struct tc_noise *n)
{
	fprintf(out,
		"\nhost noise of the command: %zu thread%s, %zu interval%s of %.3g ms over %.3f "
		"s\n",
		n->n_threads, n->n_threads == 1 ? "" : "s", n->n_intervals,
		n->n_intervals == 1 ? "" : "s", MS(n->interval_ns), (double)(n->t1 - n->t0) / 1e9);
	fprintf(out,
		"  noise is time the host took from a thread: off CPU while preempted or waiting\n"
		"  for its CPU after a wake-up; IRQs, softirqs, the timer and IPIs on its CPU "
		"while\n"
		"  it ran; its own compaction and reclaim; its signal handlers while they ran.\n"
		"  Blocked (asleep) time is its own doing.\n"
		"  Times count only while a thread is known to run: between its switch-ins and\n"
		"  switch-outs (or page faults); before its first and after its last they are "
		"unknown.\n");
	if (!n->n_threads)
		fprintf(out,
			"\n  no thread of the command was seen: no off-CPU interval was traced\n");
}

static void print_causes(FILE *out, const struct report_model *m)
{
	const struct tc_noise *n = m->noise;
	uint64_t rest_ns = 0, rest_count = 0;
	size_t shown = 0, rest = 0;

	if (!n->n_causes)
		return;
	fprintf(out, "\ntotals by cause\n  %-40s %-8s %14s %9s %7s\n", "cause", "group",
		"time[usec]", "count", "share");
	for (size_t i = 0; i < m->n_noise_causes; i++) {
		const struct tc_noise_cause *c = &n->causes[m->noise_causes[i].cause];

		if (c->group >= TC_NOISE_NOISY)
			continue;
		if (shown == CAUSE_ROWS) {
			rest++;
			rest_ns += c->ns;
			rest_count += c->count;
			continue;
		}
		shown++;
		fprintf(out, "  %-40.40s %-8s %14.3f %9llu %6.1f%%\n", c->name,
			noise_group_name(c->group), NS_US(c->ns), (unsigned long long)c->count,
			m->noise_causes[i].share_pct);
	}
	if (rest)
		fprintf(out, "  %-40s %-8s %14.3f %9llu %6.1f%%\n", "(more causes)", "",
			NS_US(rest_ns), (unsigned long long)rest_count, pct(rest_ns, n->noise_ns));
	fprintf(out, "  %-40s %-8s %14.3f %9s %6.1f%%\n", "noise in all", "", NS_US(n->noise_ns),
		"", 100.0);
	for (size_t i = 0; i < m->n_noise_causes; i++) {
		const struct tc_noise_cause *c = &n->causes[m->noise_causes[i].cause];

		if (c->group >= TC_NOISE_NOISY)
			fprintf(out, "  %-40.40s %-8s %14.3f %9llu %7s\n", c->name,
				noise_group_name(c->group), NS_US(c->ns),
				(unsigned long long)c->count, "-");
	}
}

static void print_threads(FILE *out, const struct tc_noise *n)
{
	if (!n->n_threads)
		return;
	fprintf(out, "\nthreads\n  %8s %-16s %10s %10s %10s %9s %8s %11s %11s %7s %5s\n", "tid",
		"comm", "run[ms]", "noise[ms]", "offcpu[ms]", "irq[ms]", "mm[ms]", "signal[ms]",
		"blocked[ms]", "faults", "migr");
	for (size_t i = 0; i < n->n_threads; i++) {
		const struct tc_noise_thread *th = &n->threads[i];

		fprintf(out,
			"  %8u %-16.16s %10.3f %10.3f %10.3f %9.3f %8.3f %11.3f %11.3f %7llu %5llu\n",
			th->tid, th->comm, MS(th->run_ns), MS(th->noise_ns),
			MS(th->group_ns[TC_NOISE_OFFCPU]), MS(th->group_ns[TC_NOISE_IRQ]),
			MS(th->group_ns[TC_NOISE_MM]), MS(th->group_ns[TC_NOISE_SIGNAL]),
			MS(th->group_ns[TC_NOISE_BLOCKED]), (unsigned long long)th->faults,
			(unsigned long long)th->migrations);
	}
}

static void print_cpus(FILE *out, const struct tc_noise_row *r)
{
	uint32_t shown = r->n_cpus < TC_NOISE_ROW_CPUS ? r->n_cpus : TC_NOISE_ROW_CPUS;

	if (!shown) {
		fprintf(out, "cpu ?");
		return;
	}
	fprintf(out, "cpu%s ", shown > 1 ? "s" : "");
	for (uint32_t c = 0; c < shown; c++)
		fprintf(out, "%s%u", c ? "," : "", r->cpus[c]);
	if (r->n_cpus > shown)
		fprintf(out, ",+%u", r->n_cpus - shown);
}

static void print_row(FILE *out, const struct tc_noise *n, size_t rank,
		      const struct tc_noise_row *r)
{
	const struct tc_noise_thread *th = &n->threads[r->thread];
	size_t shown = 0, noisy = 0;

	fprintf(out, "\n  #%zu  +%.3f .. +%.3f s  tid %u %s on ", rank,
		(double)(r->start_ns - n->t0) / 1e9, (double)(r->end_ns - n->t0) / 1e9, th->tid,
		th->comm);
	print_cpus(out, r);
	fprintf(out, ": noise %.3f ms (%.1f%%), ran %.3f ms, blocked %.3f ms", MS(r->noise_ns),
		pct(r->noise_ns, r->end_ns - r->start_ns), MS(r->run_ns),
		MS(r->group_ns[TC_NOISE_BLOCKED]));
	if (r->faults || r->migrations)
		fprintf(out, ", %llu page faults, %llu migrations", (unsigned long long)r->faults,
			(unsigned long long)r->migrations);
	fprintf(out, "\n");
	for (size_t p = 0; p < r->n_parts; p++) {
		const struct tc_noise_part *part = &n->parts[r->first_part + p];

		noisy += n->causes[part->cause].group < TC_NOISE_NOISY && part->ns;
	}
	for (size_t p = 0; p < r->n_parts; p++) {
		const struct tc_noise_part *part = &n->parts[r->first_part + p];
		const struct tc_noise_cause *c = &n->causes[part->cause];

		if (c->group >= TC_NOISE_NOISY || !part->ns)
			continue;
		if (shown++ == ROW_CAUSES) {
			fprintf(out, "      (%zu more)\n", noisy - ROW_CAUSES);
			break;
		}
		fprintf(out, "      %-40.40s %-6s %12.3f usec  x%llu\n", c->name,
			noise_group_name(c->group), NS_US(part->ns),
			(unsigned long long)part->count);
	}
}

static void print_worst(FILE *out, const struct report_model *m)
{
	const struct tc_noise *n = m->noise;

	if (!n->n_rows || !m->top)
		return;
	fprintf(out, "\nworst intervals (top %zu of %zu thread-intervals)\n", m->n_worst,
		n->n_rows);
	for (size_t i = 0; i < m->n_worst; i++)
		print_row(out, n, i + 1, &n->rows[m->worst[i]]);
}

void report_text_noise(FILE *out, const struct report_model *m)
{
	report_text_header(out, m);
	print_intro(out, m->noise);
	print_causes(out, m);
	print_threads(out, m->noise);
	print_worst(out, m);
}
