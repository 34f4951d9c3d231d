/* SPDX-License-Identifier: BSD-2-Clause */
/* units.h - durations in words: nanoseconds in the unit that suits them. */
#ifndef TAILCAUSE_CORE_UNITS_H
#define TAILCAUSE_CORE_UNITS_H

#include <stddef.h>

/*
 * ns in ns, us, ms or s, whichever keeps it under 1000 (s at most), into buf:
 * with digits 0 as short as "%g" writes it ("850 ns", "20 us", "1.5 ms"), else
 * with that many significant digits, and whole nanoseconds below 1 us ("850 ns",
 * "12.3 us", "4.56 ms").
 */
void units_duration(double ns, int digits, char *buf, size_t len);

#endif /* TAILCAUSE_CORE_UNITS_H */
