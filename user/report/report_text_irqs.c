// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_text_irqs.c - the text report's IRQ section: where each IRQ's
 * handler ran, per CPU, with the probe CPUs marked and NIC IRQs first, and
 * every IRQ move the tracer saw (irqbalance at work). Formatting only.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/causes.h"
#include "report.h"
#include "report_common.h"

#define MAX_CPUS_SHOWN 16
#define MAX_ROWS 12
#define MAX_MOVES 8

struct irq_row {
	uint32_t irq;
	int nic;
	uint64_t total;
	uint64_t on_cpu[MAX_CPUS_SHOWN];
};

static int is_nic(const struct tc_trace *t, uint32_t irq, const char *pattern)
{
	const char *name = trace__irq_name(t, irq);

	return name && !fnmatch(pattern ? pattern : TC_NIC_IRQ_PATTERN_DEFAULT, name, 0);
}

/* NIC IRQs first, then by handler runs. */
static int cmp_row(const void *pa, const void *pb)
{
	const struct irq_row *a = pa, *b = pb;

	if (a->nic != b->nic)
		return b->nic - a->nic;
	if (a->total != b->total)
		return a->total < b->total ? 1 : -1;
	return (a->irq > b->irq) - (a->irq < b->irq);
}

/* One row per IRQ from the TC_COUNTER_IRQ counters; returns how many. */
static size_t collect(const struct tc_trace *t, const char *pattern, struct irq_row **out,
		      uint32_t *ncpu)
{
	struct irq_row *rows = calloc(t->n_counters ? t->n_counters : 1, sizeof(*rows));
	size_t n = 0;

	*ncpu = 0;
	for (size_t i = 0; rows && i < t->n_counters; i++) {
		const struct tc_counter *c = &t->counters[i];
		size_t r;

		if (c->kind != TC_COUNTER_IRQ)
			continue;
		for (r = 0; r < n && rows[r].irq != c->key; r++)
			;
		if (r == n) {
			rows[n].irq = c->key;
			rows[n++].nic = is_nic(t, c->key, pattern);
		}
		rows[r].total += c->value;
		if (c->cpu < MAX_CPUS_SHOWN)
			rows[r].on_cpu[c->cpu] += c->value;
		if (c->cpu + 1 > *ncpu)
			*ncpu = c->cpu + 1;
	}
	*out = rows;
	return rows ? n : 0;
}

static void print_moves(FILE *out, const struct tc_trace *t)
{
	size_t shown = 0;

	for (size_t i = 0; i < t->n_events; i++) {
		const struct tc_event *e = &t->events[i];
		const char *name;

		if (e->kind != TC_EV_IRQ_MOVE)
			continue;
		if (shown++ == MAX_MOVES) {
			fprintf(out, "  ... more IRQ moves ('tailcause dump' lists them)\n");
			return;
		}
		name = trace__irq_name(t, e->arg);
		fprintf(out, "  IRQ %u (%s) moved from CPU %" PRIu64 " to CPU %u at +%.3f s%s\n",
			e->arg, name ? name : "?", (uint64_t)e->aux, e->cpu,
			(double)((int64_t)(e->start_ns - t->mono_ns)) / 1e9,
			shown == 1 ? " (irqbalance or a manual change)" : "");
	}
}

void report_text_irqs(FILE *out, const struct tc_trace *t, const char *nic_pattern)
{
	unsigned char probe[MAX_CPUS_SHOWN];
	struct irq_row *rows;
	uint32_t ncpu;
	size_t n = collect(t, nic_pattern, &rows, &ncpu);

	if (!n) {
		free(rows);
		return;
	}
	if (ncpu > MAX_CPUS_SHOWN)
		ncpu = MAX_CPUS_SHOWN;
	report_probe_cpus(t, probe, MAX_CPUS_SHOWN);
	qsort(rows, n, sizeof(*rows), cmp_row);
	fprintf(out, "\nIRQ placement (hard IRQ handler runs per CPU, all CPUs; * = probe CPU)\n");
	fprintf(out, "  %5s %-28s", "irq", "name");
	for (uint32_t c = 0; c < ncpu; c++) {
		char label[16];

		snprintf(label, sizeof(label), "cpu%u%s", c, probe[c] ? "*" : "");
		fprintf(out, " %10s", label);
	}
	fprintf(out, "\n");
	for (size_t r = 0; r < n && r < MAX_ROWS; r++) {
		const char *name = trace__irq_name(t, rows[r].irq);

		fprintf(out, "  %5u %-28.28s", rows[r].irq, name ? name : "?");
		for (uint32_t c = 0; c < ncpu; c++)
			fprintf(out, " %10" PRIu64, rows[r].on_cpu[c]);
		fprintf(out, "%s\n", rows[r].nic ? "  NIC" : "");
	}
	if (n > MAX_ROWS)
		fprintf(out, "  ... %zu more IRQs\n", n - MAX_ROWS);
	print_moves(out, t);
	free(rows);
}
