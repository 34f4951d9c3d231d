// SPDX-License-Identifier: BSD-2-Clause
/* rtt_hist.c - every round trip of a recording counted as it is written, for its RTT_HIST
 * block (trace_codec.h). */
#include <errno.h>
#include <string.h>

#include "core/stats/histogram.h"
#include "trace_codec.h"

int tc_rtt_hist__init(struct tc_rtt_hist *r)
{
	memset(r, 0, sizeof(*r));
	r->h = hist__new();
	return r->h ? 0 : -ENOMEM;
}

void tc_rtt_hist__free(struct tc_rtt_hist *r)
{
	hist__free(r->h);
	memset(r, 0, sizeof(*r));
}

void tc_rtt_hist_add(struct tc_rtt_hist *r, const struct tc_sample *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v = tc_sample_rtt(&s[i]);

		hist__add(r->h, v, 1);
		r->wrapped |= __builtin_add_overflow(r->sum, v, &r->sum);
	}
}
