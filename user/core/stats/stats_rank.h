/* SPDX-License-Identifier: BSD-2-Clause */
/* stats_rank.h - the rank of a percentile, below the exact statistics and the histogram. */
#ifndef TAILCAUSE_CORE_STATS_RANK_H
#define TAILCAUSE_CORE_STATS_RANK_H

#include <stdint.h>

/*
 * The nearest rank of percentile p among n values (1-based, in [1, n]): ceil(p / 100 *
 * n), with the product's rounding error shaved so that 99.9 % of 1000 is 999. The one
 * rank rule of the exact percentiles and the histogram's.
 */
uint64_t stats_rank(uint64_t n, double p);

#endif /* TAILCAUSE_CORE_STATS_RANK_H */
