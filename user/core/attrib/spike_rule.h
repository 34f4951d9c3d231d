/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spike_rule.h - the rule that makes a sample a spike, private to user/core
 * (spike_rule_parse() and spike_rule_describe() are in analyze.h).
 */
#ifndef TAILCAUSE_CORE_SPIKE_RULE_H
#define TAILCAUSE_CORE_SPIKE_RULE_H

#include <stdint.h>

#include "analyze.h"

/* 1 if r is DEFAULT or a mode with a finite value in range (percentile in (0, 100]). */
int spike_rule_valid(const struct tc_spike_rule *r);

/* The percentile of the RTTs that r needs as pct in spike_rule_threshold() (50 when none). */
double spike_rule_percentile(const struct tc_spike_rule *r);
/* The RTT threshold of r over RTTs summarized in st, pct their spike_rule_percentile(r)-th. */
uint64_t spike_rule_threshold(const struct tc_spike_rule *r, const struct lat_summary *st,
			      uint64_t pct);

#endif /* TAILCAUSE_CORE_SPIKE_RULE_H */
