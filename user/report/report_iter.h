/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * report_iter.h - a trace recorded with --iter: its iterations, from its marks
 * (core/iter/iter_samples.h), or from the benchmark's own log placed by the first marked
 * ones (core/iter/iter_log.h, --iter-log).
 */
#ifndef TAILCAUSE_REPORT_REPORT_ITER_H
#define TAILCAUSE_REPORT_REPORT_ITER_H

#include "core/trace/trace.h"

/*
 * Makes t's iterations its samples (and says how in its meta: iter.made,
 * iter.method); none marked leaves it for the noise report, saying so. log_path:
 * the benchmark's log (NULL: none). 0, -ENOMEM or -TC_ERRNO__INPUT (reported).
 */
int report_apply_marks(struct tc_trace *t, const char *path, const char *log_path);

#endif /* TAILCAUSE_REPORT_REPORT_ITER_H */
