// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_text_irqs.c - the text report's IRQ section: where each IRQ's
 * handler ran, per CPU, with the probe CPUs marked and NIC IRQs first, and
 * every IRQ move the tracer saw (irqbalance at work). Formatting only.
 */
#include <inttypes.h>

#include "report.h"
#include "report_common.h"

#define MAX_CPUS_SHOWN 16
#define MAX_ROWS       12
#define MAX_MOVES      8

static void print_moves(FILE *out, const struct report_model *m)
{
	for (size_t i = 0; i < m->n_irq_moves; i++) {
		const struct tc_event *e = m->irq_moves[i];
		const char *name = trace__irq_name(m->t, e->arg);

		if (i == MAX_MOVES) {
			fprintf(out, "  ... more IRQ moves ('tailcause dump' lists them)\n");
			return;
		}
		fprintf(out, "  IRQ %u (%s) moved from CPU %" PRIu64 " to CPU %u at +%.3f s%s\n",
			e->arg, name ? name : "?", (uint64_t)e->from_cpu, e->cpu,
			(double)((int64_t)(e->start_ns - m->h.start_ns)) / 1e9,
			i == 0 ? " (irqbalance or a manual change)" : "");
	}
}

static void print_row(FILE *out, const struct report_model *m, size_t r, uint32_t ncpu)
{
	const struct plot_irq_matrix *x = &m->irqs;

	fprintf(out, "  %5u %-28.28s", x->irqs[r], m->irq[r].name ? m->irq[r].name : "?");
	for (uint32_t c = 0; c < ncpu; c++)
		fprintf(out, " %10" PRIu64, x->counts[r * x->n_cpus + c]);
	fprintf(out, "%s\n", m->irq[r].nic ? "  NIC" : "");
}

void report_text_irqs(FILE *out, const struct report_model *m)
{
	const struct plot_irq_matrix *x = &m->irqs;
	uint32_t ncpu = x->n_cpus < MAX_CPUS_SHOWN ? x->n_cpus : MAX_CPUS_SHOWN;
	size_t shown = 0;

	if (!x->n_irqs)
		return;
	fprintf(out, "\nIRQ placement (hard IRQ handler runs per CPU, all CPUs; * = probe CPU)\n");
	fprintf(out, "  %5s %-28s", "irq", "name");
	for (uint32_t c = 0; c < ncpu; c++) {
		char label[16];

		snprintf(label, sizeof(label), "cpu%u%s", c, m->probe_cpu[c] ? "*" : "");
		fprintf(out, " %10s", label);
	}
	fprintf(out, "\n");
	/* The NIC's IRQs first: the rows are most handled first within each part. */
	for (int nic = 1; nic >= 0; nic--)
		for (size_t r = 0; r < x->n_irqs; r++)
			if (m->irq[r].nic == nic && shown++ < MAX_ROWS)
				print_row(out, m, r, ncpu);
	if (x->n_irqs > MAX_ROWS)
		fprintf(out, "  ... %zu more IRQs\n", x->n_irqs - MAX_ROWS);
	print_moves(out, m);
}
