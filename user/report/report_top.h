/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * report_top.h - `tailcause top FILE`: the live view of a recording to FILE, refreshed
 * every interval until the recording ends or Ctrl-C (report_top.c).
 */
#ifndef TAILCAUSE_REPORT_TOP_H
#define TAILCAUSE_REPORT_TOP_H

#include <stdint.h>
#include <stdio.h>

#include "core/attrib/analyze.h"

#define TOP_CAUSES_MAX 32

struct top_opts {
	uint64_t interval_ns; /* between refreshes */
	int plain;	      /* 1: frames one after the other (not a terminal) */
	unsigned int causes;  /* the last interval's causes shown (<= TOP_CAUSES_MAX) */
	const struct tc_spike_rule *spike; /* what counts as a spike */
	const char *nic_irq_pattern;	   /* NULL: the default */
};

/* 0 when the recording ended or on Ctrl-C, -TC_ERRNO__INPUT for a file that is not a
 * trace, or a negative errno (reported). */
int report_top(const char *path, const struct top_opts *o, FILE *out);

#endif /* TAILCAUSE_REPORT_TOP_H */
