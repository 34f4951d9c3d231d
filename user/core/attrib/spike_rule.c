// SPDX-License-Identifier: BSD-2-Clause
/*
 * spike_rule.c - the --spike rule: parsed, described, turned into an RTT
 * threshold.
 *
 * Rule numbers are plain decimals ("1.5", "20"; ".5" is refused): no sign, no
 * exponent, no "inf"/"nan", no surrounding blanks, and parsed without strtod()
 * so that a locale with a decimal comma cannot change what "1.5ms" means.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/grow.h"
#include "spike_rule.h"
#include "core/util/units.h"

/* More digits than a double holds exactly is a typo, not a latency. */
#define MAX_DIGITS 15

/*
 * Parses a decimal "D+[.D+]" at s, scaled by mult (an integer such as 1000
 * for "us"). Sets *end past it. 0, or -EINVAL.
 */
static int parse_decimal(const char *s, double mult, double *out, const char **end)
{
	double mant = 0.0, div = 1.0;
	int digits = 0, frac = 0;

	while (*s >= '0' && *s <= '9') {
		mant = mant * 10.0 + (*s++ - '0');
		digits++;
	}
	if (!digits)
		return -EINVAL;
	if (*s == '.') {
		s++;
		while (*s >= '0' && *s <= '9') {
			mant = mant * 10.0 + (*s++ - '0');
			div *= 10.0;
			frac++;
		}
		if (!frac)
			return -EINVAL;
	}
	if (digits + frac > MAX_DIGITS)
		return -EINVAL;
	/* mant, mult and div are exact integers: one rounding, in the division. */
	*out = mant * mult / div;
	*end = s;
	return 0;
}

/* Nanoseconds per unit for a unit suffix that ends the string, or 0. */
static double unit_ns(const char *u)
{
	if (!strcmp(u, "ns"))
		return 1.0;
	if (!strcmp(u, "us"))
		return 1e3;
	if (!strcmp(u, "ms"))
		return 1e6;
	if (!strcmp(u, "s"))
		return 1e9;
	return 0.0;
}

int spike_rule_parse(const char *s, struct tc_spike_rule *out)
{
	struct tc_spike_rule r = {TC_SPIKE_DEFAULT, 0.0};
	const char *end;
	double v, mult;

	if (!s || !out)
		return -EINVAL;
	if (!strcmp(s, "default")) {
		*out = r;
		return 0;
	}
	if (s[0] == 'p') {
		if (parse_decimal(s + 1, 1.0, &v, &end) || *end || v <= 0.0 || v > 100.0)
			return -EINVAL;
		r.mode = TC_SPIKE_PERCENTILE;
		r.value = v;
		*out = r;
		return 0;
	}
	if (parse_decimal(s, 1.0, &v, &end))
		return -EINVAL;
	if (!strcmp(end, "x")) {
		r.mode = TC_SPIKE_MEDIAN_X;
	} else {
		mult = unit_ns(end);
		if (mult == 0.0)
			return -EINVAL;
		parse_decimal(s, mult, &v, &end);
		r.mode = TC_SPIKE_ABSOLUTE;
	}
	if (v <= 0.0)
		return -EINVAL;
	r.value = v;
	*out = r;
	return 0;
}

void spike_rule_describe(const struct tc_spike_rule *r, char *buf, size_t len)
{
	double v = r->value;
	char d[32];

	switch (r->mode) {
	case TC_SPIKE_PERCENTILE:
		snprintf(buf, len, "above p%g", v);
		break;
	case TC_SPIKE_ABSOLUTE:
		units_duration(v, 0, d, sizeof(d));
		snprintf(buf, len, "one-way latency above %s", d);
		break;
	case TC_SPIKE_MEDIAN_X:
		snprintf(buf, len, "above %gx median", v);
		break;
	case TC_SPIKE_DEFAULT:
	default:
		snprintf(buf, len, "above p99 and above 2x median");
		break;
	}
}

int spike_rule_valid(const struct tc_spike_rule *r)
{
	switch (r->mode) {
	case TC_SPIKE_DEFAULT:
		return 1;
	case TC_SPIKE_PERCENTILE:
		return r->value > 0.0 && r->value <= 100.0;
	case TC_SPIKE_ABSOLUTE:
	case TC_SPIKE_MEDIAN_X:
		return r->value > 0.0 && isfinite(r->value);
	default:
		return 0;
	}
}

/*
 * floor(x) for a product of decimals: 1.4 x 1000 is 1399.999... in binary and
 * must give 1400. The nudge (1e-12 relative) is far below a nanosecond.
 */
static uint64_t decimal_floor(long double x)
{
	return clamp_floor(x + x * 1e-12L);
}

double spike_rule_percentile(const struct tc_spike_rule *r)
{
	return r->mode == TC_SPIKE_PERCENTILE ? (double)r->value : 50.0;
}

uint64_t spike_rule_threshold(const struct tc_spike_rule *r, const struct lat_summary *st,
			      uint64_t pct)
{
	uint64_t twice;

	switch (r->mode) {
	case TC_SPIKE_PERCENTILE:
		return pct;
	case TC_SPIKE_ABSOLUTE:
		/* one-way above v <=> RTT above 2v <=> RTT above floor(2v), RTTs being integers */
		return decimal_floor(2.0L * r->value);
	case TC_SPIKE_MEDIAN_X:
		return decimal_floor((long double)r->value * st->p50);
	case TC_SPIKE_DEFAULT:
	default:
		twice = st->p50 > UINT64_MAX / 2 ? UINT64_MAX : 2 * st->p50;
		return st->p99 > twice ? st->p99 : twice;
	}
}
