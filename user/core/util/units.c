// SPDX-License-Identifier: BSD-2-Clause
/* units.c - durations in words. */
#include <stdio.h>

#include "units.h"

void units_duration(double ns, int digits, char *buf, size_t len)
{
	static const struct {
		double scale;
		const char *unit;
	} units[] = {{1, "ns"}, {1e3, "us"}, {1e6, "ms"}, {1e9, "s"}};
	size_t u = 0;

	while (u < 3 && ns >= units[u + 1].scale)
		u++;
	if (!digits)
		snprintf(buf, len, "%g %s", ns / units[u].scale, units[u].unit);
	else if (!u)
		snprintf(buf, len, "%.0f ns", ns);
	else
		snprintf(buf, len, "%.*g %s", digits, ns / units[u].scale, units[u].unit);
}
