// SPDX-License-Identifier: BSD-2-Clause
/* report_json_noise.c - the "noise" member of the JSON report (docs/report-schema.md). */
#include "core/attrib/causes.h"
#include "report_common.h"
#include "report_json.h"

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The time members every level (run, thread, interval) shares. */
static void times(struct json *j, uint64_t run, uint64_t noise, const uint64_t *g, uint64_t faults,
		  uint64_t migrations)
{
	json_num(j, "run_us", NS_US(run), 3);
	json_num(j, "noise_us", NS_US(noise), 3);
	json_num(j, "offcpu_us", NS_US(g[TC_NOISE_OFFCPU]), 3);
	json_num(j, "irq_us", NS_US(g[TC_NOISE_IRQ]), 3);
	json_num(j, "mm_us", NS_US(g[TC_NOISE_MM]), 3);
	json_num(j, "signal_us", NS_US(g[TC_NOISE_SIGNAL]), 3);
	json_num(j, "blocked_us", NS_US(g[TC_NOISE_BLOCKED]), 3);
	json_u64(j, "page_faults", faults);
	json_u64(j, "migrations", migrations);
}

static void write_causes(struct json *j, const struct report_model *m)
{
	const struct tc_noise *n = m->noise;

	json_arr(j, "causes");
	for (size_t i = 0; i < m->n_noise_causes; i++) {
		const struct tc_noise_cause *c = &n->causes[m->noise_causes[i].cause];

		json_obj_compact(j, NULL);
		json_str(j, "name", c->name);
		json_str(j, "class", causes_info(c->cls)->prefix);
		json_str(j, "group", noise_group_name(c->group));
		json_num(j, "time_us", NS_US(c->ns), 3);
		json_u64(j, "count", c->count);
		json_num(j, "share_pct", m->noise_causes[i].share_pct, 2);
		json_end(j);
	}
	json_end(j);
}

static void write_threads(struct json *j, const struct tc_noise *n)
{
	json_arr(j, "threads");
	for (size_t i = 0; i < n->n_threads; i++) {
		const struct tc_noise_thread *th = &n->threads[i];

		json_obj_compact(j, NULL);
		json_u64(j, "tid", th->tid);
		json_str(j, "comm", th->comm);
		json_str(j, "role", th->role == TC_THREAD_TARGET ? "command" : "child");
		times(j, th->run_ns, th->noise_ns, th->group_ns, th->faults, th->migrations);
		json_u64(j, "intervals", th->n_rows);
		json_end(j);
	}
	json_end(j);
}

static void write_row(struct json *j, const struct tc_noise *n, size_t rank,
		      const struct tc_noise_row *r)
{
	const struct tc_noise_thread *th = &n->threads[r->thread];
	uint32_t shown = r->n_cpus < TC_NOISE_ROW_CPUS ? r->n_cpus : TC_NOISE_ROW_CPUS;

	json_obj(j, NULL);
	json_u64(j, "rank", rank);
	json_u64(j, "tid", th->tid);
	json_str(j, "comm", th->comm);
	json_num(j, "start_s", (double)(r->start_ns - n->t0) / 1e9, 6);
	json_num(j, "end_s", (double)(r->end_ns - n->t0) / 1e9, 6);
	json_num(j, "noise_pct", pct(r->noise_ns, r->end_ns - r->start_ns), 2);
	times(j, r->run_ns, r->noise_ns, r->group_ns, r->faults, r->migrations);
	json_arr_compact(j, "cpus");
	for (uint32_t c = 0; c < shown; c++)
		json_u64(j, NULL, r->cpus[c]);
	json_end(j);
	json_u64(j, "cpus_not_listed", r->n_cpus - shown);
	json_arr(j, "causes");
	for (size_t p = 0; p < r->n_parts; p++) {
		const struct tc_noise_part *part = &n->parts[r->first_part + p];
		const struct tc_noise_cause *c = &n->causes[part->cause];

		json_obj_compact(j, NULL);
		json_str(j, "name", c->name);
		json_str(j, "group", noise_group_name(c->group));
		json_num(j, "time_us", NS_US(part->ns), 3);
		json_u64(j, "count", part->count);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

int report_json_noise(struct json *j, const struct report_model *m)
{
	const struct tc_noise *n = m->noise;

	json_obj(j, "noise");
	json_num(j, "interval_ms", (double)n->interval_ns / 1e6, 3);
	json_u64(j, "t0_ns", n->t0);
	json_num(j, "span_s", (double)(n->t1 - n->t0) / 1e9, 6);
	json_u64(j, "intervals", n->n_intervals);
	json_obj_compact(j, "totals");
	times(j, n->run_ns, n->noise_ns, n->group_ns, n->faults, n->migrations);
	json_end(j);
	write_causes(j, m);
	write_threads(j, n);
	json_arr(j, "worst_intervals");
	for (size_t i = 0; i < m->n_worst; i++)
		write_row(j, n, i + 1, &n->rows[m->worst[i]]);
	json_end(j);
	json_end(j);
	return 0;
}
