// SPDX-License-Identifier: BSD-2-Clause
/* verdict.c - the latency classes of docs/domain.md ("Judging a latency result"). */
#include "verdict.h"

static const struct tc_verdict verdicts[] = {
	{"excellent", "excellent (< 2 us: one switch hop)"},
	{"good", "good (2-5 us: several hops)"},
	{"fair", "fair (5-10 us: small configuration problems)"},
	{"problem", "problem (> 10 us: driver, firmware, configuration)"},
	{"failure", "failure (> 50 us: RDMA advantage lost, probably the IPoIB/TCP path)"},
};

const struct tc_verdict *verdict_of(double t_avg_us)
{
	if (t_avg_us < 2)
		return &verdicts[0];
	if (t_avg_us < 5)
		return &verdicts[1];
	if (t_avg_us < 10)
		return &verdicts[2];
	if (t_avg_us <= 50)
		return &verdicts[3];
	return &verdicts[4];
}
