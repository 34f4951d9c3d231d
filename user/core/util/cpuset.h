/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cpuset.h - sets of CPU numbers and the kernel's cpulist syntax
 * ("0-3,8,10-15:2/4"), as sysfs, procfs and the kernel command line write them.
 */
#ifndef TAILCAUSE_CORE_CPUSET_H
#define TAILCAUSE_CORE_CPUSET_H

#include <stddef.h>
#include <stdint.h>

#define TC_CPUSET_MAX 4096 /* CPUs 0..4095, the kernel's NR_CPUS on large configs */

struct tc_cpuset {
	uint64_t w[TC_CPUSET_MAX / 64];
};

void cpuset_zero(struct tc_cpuset *s);
/* Adds cpu (ignored when >= TC_CPUSET_MAX). */
void cpuset_add(struct tc_cpuset *s, unsigned int cpu);
/* 1 when cpu is in s. */
int cpuset_has(const struct tc_cpuset *s, unsigned int cpu);
size_t cpuset_count(const struct tc_cpuset *s);
int cpuset_empty(const struct tc_cpuset *s);
/* The lowest CPU in s above after (-1: from the start), or -1 when none is left. */
int cpuset_next(const struct tc_cpuset *s, int after);
/* The highest CPU in s, or -1 when s is empty. */
int cpuset_last(const struct tc_cpuset *s);
/* out = a & b; out = a & ~b; out = a | b (out may alias a or b). */
void cpuset_and(struct tc_cpuset *out, const struct tc_cpuset *a, const struct tc_cpuset *b);
void cpuset_andnot(struct tc_cpuset *out, const struct tc_cpuset *a, const struct tc_cpuset *b);
void cpuset_or(struct tc_cpuset *out, const struct tc_cpuset *a, const struct tc_cpuset *b);

/*
 * Parses a cpulist ("0-3,8", "0-15:2/4", "" is empty; surrounding blanks and a
 * trailing newline are accepted) into s. 0, -EINVAL on bad syntax, -ERANGE
 * for a CPU >= TC_CPUSET_MAX.
 */
int cpuset_parse(const char *list, struct tc_cpuset *s);

/* Writes s as a cpulist ("0-3,8"; "" when empty) into buf; returns strlen of the full text. */
size_t cpuset_format(const struct tc_cpuset *s, char *buf, size_t len);

#endif /* TAILCAUSE_CORE_CPUSET_H */
