// SPDX-License-Identifier: BSD-2-Clause
/* stats_rank.c - the one nearest-rank rule of the exact percentiles and the histogram's. */
#include <math.h>

#include "stats_rank.h"

uint64_t stats_rank(uint64_t n, double p)
{
	double x;
	uint64_t rank;

	if (!(p > 0.0))
		return 1;
	if (p >= 100.0)
		return n;
	/*
	 * rank = ceil(p / 100 * n). p is a decimal such as 99.9 that double
	 * cannot hold exactly, so an exact product (999.0 for n = 1000) may come
	 * out a few ulps high; shave a relative 1e-12 before ceil() so it does
	 * not step to the next rank.
	 */
	x = p * (double)n / 100.0;
	x = ceil(x - x * 1e-12);
	rank = x < 1.0 ? 1 : (uint64_t)x;
	return rank > n ? n : rank;
}
