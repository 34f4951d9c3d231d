/* SPDX-License-Identifier: BSD-2-Clause */
/* report_common.h - what the renderers share beyond the model: units, word wrap. */
#ifndef TAILCAUSE_REPORT_REPORT_COMMON_H
#define TAILCAUSE_REPORT_REPORT_COMMON_H

#include <stddef.h>
#include <stdio.h>

#include "core/attrib/describe.h"
#include "core/model/report_model.h"

#define NS_US(ns) ((double)(ns) / 1000.0)

/*
 * Prints prefix, then text[0..n) wrapped at width columns (breaking at spaces),
 * continuation lines indented by indent, and a newline.
 */
void report_wrap(FILE *out, const char *prefix, const char *text, size_t n, size_t width,
		 size_t indent);

/*
 * Why spike sp has no primary cause, in words, into buf ("" when it has one): events that
 * explain too little, or no OS event at all with the reason it is not hw-noise.
 */
void report_unexplained_words(const struct report_model *m, const struct tc_spike *sp, char *buf,
			      size_t len);
/* What sp's hw-noise is, after "hw-noise X usec: ": no OS event at all, or timer
 * interrupts held up beyond a whole tick (tc_spike.stall_ns). */
void report_hw_noise_sentence(const struct report_model *m, const struct tc_spike *sp, char *buf,
			      size_t len);
/* What sp's cpu-variance is, after "cpu-variance X usec: ": no OS event, and less lost in
 * all than the calibration's exit floor. */
void report_cpu_variance_sentence(const struct report_model *m, const struct tc_spike *sp,
				  char *buf, size_t len);

/*
 * The wait chain of sp, one waking at a time (the contribs of kind TC_EV_WAKEUP that end a
 * link, wait_chain.h): "waitpair (pid 812, tid 815), which woke tid 813 from cpu 0" into buf, its
 * depth (1: it woke the timing thread) into *depth. *pos starts at 0; returns 0 when none
 * is left.
 */
int report_chain_next(const struct report_model *m, const struct tc_spike *sp, size_t *pos,
		      uint32_t *depth, char *buf, size_t len);

#endif /* TAILCAUSE_REPORT_REPORT_COMMON_H */
