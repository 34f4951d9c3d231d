// SPDX-License-Identifier: BSD-2-Clause
/*
 * spike_credit.c - a spike's books after the sweep (analyze_internal.h): what no interval
 * explains yet, and the credit held by intervals that explain nothing (the timing thread
 * blocked while it waited for the answer), which steal and the path may take.
 */
#include "analyze_internal.h"
#include "core/util/grow.h"

/*
 * The credit of sp's intervals that explain nothing (the timing thread blocked while it
 * waited for the answer): held only until something that explains the time takes it.
 */
uint64_t spike_credit_waiting_ns(const struct tc_analysis *a, const struct tc_spike *sp)
{
	uint64_t n = 0;

	for (size_t i = 0; i < sp->n_contrib; i++) {
		const struct tc_contrib *k = &a->contribs[sp->first_contrib + i];

		if (a->causes[k->cause].cls == TC_CAUSE_UNATTRIBUTED)
			n = sat_add(n, k->attributed_ns);
	}
	return n;
}

/* The part of sp's excess no interval (nor hw-noise, nor cpu-variance) explains yet. */
uint64_t spike_credit_unexplained_ns(const struct tc_analysis *a, const struct tc_spike *sp)
{
	uint64_t done = sp->hw_noise_ns + sp->variance_ns;

	for (size_t i = 0; i < sp->n_contrib; i++)
		done += a->contribs[sp->first_contrib + i].attributed_ns;
	return sp->excess_ns > done ? sp->excess_ns - done : 0;
}

/*
 * Takes up to n ns of the credit of sp's intervals that explain nothing (the timing thread
 * blocked while it waited for the answer), for steal or the path; the books still add up.
 * Returns what was taken.
 */
uint64_t spike_credit_take_waiting(struct tc_analysis *a, struct tc_spike *sp, uint64_t n)
{
	uint64_t taken = 0;

	for (size_t i = 0; i < sp->n_contrib && taken < n; i++) {
		struct tc_contrib *k = &a->contribs[sp->first_contrib + i];
		struct tc_cause *cause = &a->causes[k->cause];
		uint64_t take = k->attributed_ns < n - taken ? k->attributed_ns : n - taken;

		if (cause->cls != TC_CAUSE_UNATTRIBUTED || !take)
			continue;
		cause->excess_ns -= take < cause->excess_ns ? take : cause->excess_ns;
		k->attributed_ns -= take;
		taken += take;
	}
	return taken;
}
