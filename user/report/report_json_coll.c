// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_json_coll.c - the JSON report's collectives object (record --iter mpi), written
 * only where the trace has collectives (docs/report-schema.md: latency.collectives).
 */
#include "core/model/coll_report.h"
#include "lib/json_out.h"
#include "report.h"
#include "report_json.h"

static const char *cause_name(const struct report_model *m, uint32_t c)
{
	return c < m->a->n_causes ? m->a->causes[c].name : NULL;
}

static void write_ops(struct json *j, const struct coll_report *r)
{
	json_arr(j, "operations");
	for (size_t i = 0; i < r->n_ops; i++) {
		const struct coll_op_row *o = &r->ops[i];

		json_obj_compact(j, NULL);
		json_str(j, "op", coll_op_name(o->op));
		json_u64(j, "bytes", o->bytes);
		json_u64(j, "count", o->count);
		json_num(j, "p50_us", (double)o->p50_ns / 1000.0, 3);
		json_num(j, "p99_us", (double)o->p99_ns / 1000.0, 3);
		json_num(j, "p999_us", (double)o->p999_ns / 1000.0, 3);
		json_num(j, "max_us", (double)o->max_ns / 1000.0, 3);
		json_end(j);
	}
	json_end(j);
}

static void write_stragglers(struct json *j, const struct report_model *m,
			     const struct coll_report *r)
{
	json_arr(j, "stragglers");
	for (size_t i = 0; i < r->n_ranks; i++) {
		const struct coll_rank_row *k = &r->ranks[i];

		json_obj_compact(j, NULL);
		json_u64(j, "rank", (uint64_t)(uint32_t)k->rank);
		json_str(j, "host", m->h.host_name);
		json_u64(j, "tid", k->tid);
		json_u64(j, "last", k->last);
		json_u64(j, "late", k->late);
		json_num(j, "late_us", (double)k->late_ns / 1000.0, 3);
		json_str(j, "top_cause", k->has_cause ? cause_name(m, k->top_cause) : NULL);
		json_u64(j, "top_cause_late", k->top_count);
		json_end(j);
	}
	json_end(j);
}

static void write_slowest(struct json *j, const struct report_model *m, const struct coll_report *r)
{
	json_arr(j, "slowest");
	for (size_t i = 0; i < r->n_slowest; i++) {
		const struct coll_slow_row *s = &r->slowest[i];

		json_obj_compact(j, NULL);
		json_str(j, "op", coll_op_name(s->in->op));
		json_u64(j, "seq", s->in->seq);
		json_u64(j, "bytes", s->in->bytes);
		json_num(j, "duration_us", (double)coll_duration(s->in) / 1000.0, 3);
		if (s->straggler) {
			json_u64(j, "straggler_rank", (uint64_t)(uint32_t)s->straggler->rank);
			json_num(j, "late_us", (double)s->in->late_ns / 1000.0, 3);
		} else {
			json_null(j, "straggler_rank");
			json_null(j, "late_us");
		}
		json_bool(j, "late", s->late);
		json_str(j, "cause",
			 s->late	? cause_name(m, s->cause)
			 : s->straggler ? s->transport
					: NULL);
		json_end(j);
	}
	json_end(j);
}

void report_json_coll(struct json *j, const struct report_model *m)
{
	const struct coll_report *r = m->coll;

	if (!r)
		return;
	json_obj(j, "collectives");
	json_u64(j, "calls", r->m.n_calls);
	json_u64(j, "instances", r->m.n_inst);
	json_u64(j, "incomplete", r->m.incomplete);
	json_u64(j, "late", r->late);
	write_ops(j, r);
	write_stragglers(j, m, r);
	write_slowest(j, m, r);
	json_end(j);
}
