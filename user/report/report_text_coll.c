// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_text_coll.c - the terminal report's collectives section (record --iter mpi):
 * each operation's durations, the ranks the others waited for and why, and the
 * slowest instances. Formatting only (core/model/coll_report.h has the rules).
 */
#include <stdio.h>
#include <string.h>

#include "core/model/coll_report.h"
#include "mpi/coll.h"
#include "report.h"
#include "report_common.h"

#define US(ns) NS_US(ns)

static const char *cause_name(const struct report_model *m, uint32_t c)
{
	return c < m->a->n_causes ? m->a->causes[c].name : "?";
}

static void print_ops(FILE *out, const struct coll_report *r)
{
	fprintf(out, "  %-22s %10s %8s %10s %10s %10s %10s\n", "operation", "bytes", "count",
		"p50 us", "p99 us", "p99.9 us", "max us");
	for (size_t i = 0; i < r->n_ops; i++) {
		const struct coll_op_row *o = &r->ops[i];

		fprintf(out, "  %-22s %10llu %8zu %10.3f %10.3f %10.3f %10.3f\n",
			coll_op_name(o->op), (unsigned long long)o->bytes, o->count, US(o->p50_ns),
			US(o->p99_ns), US(o->p999_ns), US(o->max_ns));
	}
}

static void print_stragglers(FILE *out, const struct report_model *m, const struct coll_report *r)
{
	fprintf(out,
		" stragglers: the rank the others waited for; late where its own step before the "
		"call\n was a spike by the rule above (%zu of %zu instances):\n",
		r->late, r->spans);
	fprintf(out, "  %6s %8s %8s %6s %12s  %s\n", "rank", "tid", "last", "late", "late ms",
		"top cause of its late steps (in how many)");
	for (size_t i = 0; i < r->n_ranks; i++) {
		const struct coll_rank_row *k = &r->ranks[i];

		fprintf(out, "  %6d %8u %8zu %6zu %12.3f  %s", k->rank, k->tid, k->last, k->late,
			(double)k->late_ns / 1e6, k->has_cause ? cause_name(m, k->top_cause) : "-");
		if (k->has_cause)
			fprintf(out, " (%zu)", k->top_count);
		fputc('\n', out);
	}
}

static void print_slowest(FILE *out, const struct report_model *m, const struct coll_report *r)
{
	fprintf(out, " slowest instances:\n");
	for (size_t i = 0; i < r->n_slowest; i++) {
		const struct coll_slow_row *s = &r->slowest[i];

		fprintf(out, "  %s #%u (%llu bytes, %u of %d ranks) %.3f us",
			coll_op_name(s->in->op), s->in->seq, (unsigned long long)s->in->bytes,
			s->in->n_calls, s->in->comm_size, US(coll_duration(s->in)));
		if (!s->straggler) {
			fprintf(out, ": one rank, nobody to wait for\n");
			continue;
		}
		fprintf(out, ": rank %d (cpu %u) arrived %.3f us after the others' median",
			s->straggler->rank, s->straggler->cpu, US(s->in->late_ns));
		if (s->late)
			fprintf(out, ", late: %s\n", cause_name(m, s->cause));
		else
			fprintf(out, "; its step before was usual: the collective itself, %s\n",
				s->transport);
	}
}

/* What the recorder could not take: a rank that died, calls past a full file, ... */
static void print_losses(FILE *out, const struct tc_trace *t)
{
	const char *unfinished = trace__meta(t, "coll.unfinished");
	const char *lost = trace__meta(t, "coll.lost"), *torn = trace__meta(t, "coll.torn");
	const char *refused = trace__meta(t, "coll.refused"), *bad = trace__meta(t, "coll.bad");

	if (unfinished && strcmp(unfinished, "none"))
		fprintf(out,
			" rank %s did not reach MPI_Finalize (killed, or it failed): its calls until "
			"then are kept\n",
			unfinished);
	if (lost && strcmp(lost, "0"))
		fprintf(out,
			" %s calls were not recorded: a rank's file was full (TAILCAUSE_COLL_MAX "
			"records)\n",
			lost);
	if (torn && strcmp(torn, "0"))
		fprintf(out,
			" %s blocks of %d calls were reserved and never copied whole (a rank killed "
			"while copying): skipped\n",
			torn, TC_COLL_BLOCK);
	if (bad && strcmp(bad, "0"))
		fprintf(out, " %s records named an operation this version does not know: skipped\n",
			bad);
	if (refused && strcmp(refused, "0"))
		fprintf(out,
			" %s files in the records' directory were not rank files, and skipped\n",
			refused);
}

void report_text_coll(FILE *out, const struct report_model *m)
{
	const struct coll_report *r = m->coll;

	if (!r)
		return;
	fprintf(out,
		"\ncollectives: %zu calls, %zu instances (%zu with a rank missing); the "
		"iterations above\nare each rank's steps between its calls\n",
		r->m.n_calls, r->m.n_inst, r->m.incomplete);
	print_losses(out, m->t);
	print_ops(out, r);
	print_stragglers(out, m, r);
	print_slowest(out, m, r);
}
