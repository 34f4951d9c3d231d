/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * summary.h - the figures of one latency run, as `tailcause diff` and `rank`
 * compare them: where it ran, its statistics and distribution, its causes and its
 * host audit. Made from a trace and its analysis, or read back from a JSON report
 * (docs/report-schema.md). Latencies are in ns as the report states them: one way
 * (RTT/2) for the probe's round trips, whole for --samples. Its text (host, kernel,
 * probe, cause names, the audit) is escaped (lib/str.h) whichever source it came from.
 * Pure: no I/O.
 */
#ifndef TAILCAUSE_CORE_SUMMARY_H
#define TAILCAUSE_CORE_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "core/attrib/analyze.h"
#include "core/model/audit.h"
#include "core/stats/histogram.h"
#include "json_in.h"

/* A cause over the whole run. */
struct sm_cause {
	char name[TC_CAUSE_NAME_LEN];
	enum tc_cause_class cls;
	uint64_t spikes;  /* spikes whose primary cause it is */
	double excess_ns; /* latency above the median credited to it, over all spikes */
};

/* The percentiles a summary keeps, in this order (sm_pct[]). */
enum sm_figure {
	SM_P50 = 0,
	SM_P99,
	SM_P999,
	SM_P9999,
	SM_P99999,
	SM_MAX,
	SM_FIGURES,
};

/*
 * Consecutive samples in one histogram each, for a block bootstrap that keeps the
 * correlation in time (a trace has them; a JSON report only its whole histogram).
 */
struct sm_blocks {
	size_t n;	  /* blocks */
	size_t size;	  /* samples in each but perhaps the last */
	size_t *first;	  /* block i's cells are cell[first[i] .. first[i + 1]) */
	uint32_t *bucket; /* histogram bucket (of the RTT) of each cell */
	uint64_t *count;  /* and its count */
};

struct summary {
	char source[256]; /* the file it came from */
	char host[64];
	char kernel[96];
	char probe[32]; /* "shm", "verbs", "command" (--samples) */
	char cpus[32];
	int has_bytes;
	uint64_t bytes;	  /* message size (verbs) */
	unsigned int div; /* latency = RTT / div: 2 one way, 1 whole */
	uint64_t n;	  /* samples */
	double mean_ns;
	double stdev_ns;
	double pct[SM_FIGURES]; /* ns, exact where the source had every sample */
	struct hist *rtt;	/* the distribution of the samples (before div) */
	struct sm_blocks blocks;
	uint64_t n_spikes;
	double threshold_ns;
	double total_excess_ns;
	struct sm_cause *causes; /* most excess first */
	size_t n_causes;
	int has_audit;
	struct tc_audit audit;
};

/* "p50", "p99", "p99.9", "p99.99", "p99.999", "max". */
const char *summary_figure_name(enum sm_figure f);
/* The figure called name ("p99.9", "max"), or -EINVAL. */
int summary_figure_parse(const char *name, enum sm_figure *out);
/* The percentile of figure f (50, 99, ..., 100 for max). */
double summary_figure_pct(enum sm_figure f);

/*
 * From a trace and its analysis; blocks of block_size consecutive samples for the
 * bootstrap (0: none). div as the report divides. 0 or -ENOMEM.
 */
int summary_from_analysis(struct summary *s, const struct tc_trace *t, const struct tc_analysis *a,
			  unsigned int div, size_t block_size);

/*
 * From a parsed JSON report. 0; -EINVAL with why set (not a tailcause report, another
 * schema version, a noise report, a member missing); -ENOMEM.
 */
int summary_from_json(struct summary *s, const struct jv *root, char *why, size_t len);

void summary__free(struct summary *s);

#endif /* TAILCAUSE_CORE_SUMMARY_H */
