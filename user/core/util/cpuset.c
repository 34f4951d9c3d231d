// SPDX-License-Identifier: BSD-2-Clause
/* cpuset.c - CPU sets and cpulist parsing/formatting (lib/bitmap.c's syntax). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"

#define N_WORDS (TC_CPUSET_MAX / 64)

void cpuset_zero(struct tc_cpuset *s)
{
	memset(s, 0, sizeof(*s));
}

void cpuset_add(struct tc_cpuset *s, unsigned int cpu)
{
	if (cpu < TC_CPUSET_MAX)
		s->w[cpu / 64] |= 1ull << (cpu % 64);
}

int cpuset_has(const struct tc_cpuset *s, unsigned int cpu)
{
	return cpu < TC_CPUSET_MAX && (s->w[cpu / 64] >> (cpu % 64)) & 1;
}

size_t cpuset_count(const struct tc_cpuset *s)
{
	size_t n = 0;

	for (size_t i = 0; i < N_WORDS; i++)
		n += (size_t)__builtin_popcountll(s->w[i]);
	return n;
}

int cpuset_empty(const struct tc_cpuset *s)
{
	for (size_t i = 0; i < N_WORDS; i++)
		if (s->w[i])
			return 0;
	return 1;
}

int cpuset_next(const struct tc_cpuset *s, int after)
{
	unsigned int c = after < 0 ? 0 : (unsigned int)after + 1;

	while (c < TC_CPUSET_MAX) {
		uint64_t w = s->w[c / 64] >> (c % 64);

		if (w)
			return (int)(c + (unsigned int)__builtin_ctzll(w));
		c = (c / 64 + 1) * 64;
	}
	return -1;
}

int cpuset_last(const struct tc_cpuset *s)
{
	for (size_t i = N_WORDS; i-- > 0;)
		if (s->w[i])
			return (int)(i * 64 + 63 - (size_t)__builtin_clzll(s->w[i]));
	return -1;
}

void cpuset_and(struct tc_cpuset *out, const struct tc_cpuset *a, const struct tc_cpuset *b)
{
	for (size_t i = 0; i < N_WORDS; i++)
		out->w[i] = a->w[i] & b->w[i];
}

void cpuset_andnot(struct tc_cpuset *out, const struct tc_cpuset *a, const struct tc_cpuset *b)
{
	for (size_t i = 0; i < N_WORDS; i++)
		out->w[i] = a->w[i] & ~b->w[i];
}

void cpuset_or(struct tc_cpuset *out, const struct tc_cpuset *a, const struct tc_cpuset *b)
{
	for (size_t i = 0; i < N_WORDS; i++)
		out->w[i] = a->w[i] | b->w[i];
}

/* A decimal number at *p; advances *p. 0, -EINVAL or -ERANGE. */
static int number(const char **p, unsigned long *out)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	*out = strtoul(*p, &end, 10);
	*p = end;
	return *out >= TC_CPUSET_MAX ? -ERANGE : 0;
}

/* One "a", "a-b" or "a-b:used/group" element at *p. */
static int parse_range(const char **p, struct tc_cpuset *s)
{
	unsigned long a, b, used = 1, group = 1;
	int err;

	err = number(p, &a);
	if (err)
		return err;
	b = a;
	if (**p == '-') {
		(*p)++;
		err = number(p, &b);
		if (err)
			return err;
	}
	if (**p == ':') {
		(*p)++;
		if (number(p, &used) || **p != '/')
			return -EINVAL;
		(*p)++;
		if (number(p, &group))
			return -EINVAL;
	}
	if (b < a || !used || !group || used > group)
		return -EINVAL;
	for (unsigned long c = a; c <= b; c++)
		if ((c - a) % group < used)
			cpuset_add(s, (unsigned int)c);
	return 0;
}

int cpuset_parse(const char *list, struct tc_cpuset *s)
{
	const char *p = list;
	int err;

	cpuset_zero(s);
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '\n')
		return 0;
	for (;;) {
		err = parse_range(&p, s);
		if (err)
			return err;
		if (*p != ',')
			break;
		p++;
	}
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return *p ? -EINVAL : 0;
}

size_t cpuset_format(const struct tc_cpuset *s, char *buf, size_t len)
{
	size_t off = 0;
	int c = cpuset_next(s, -1);

	if (len)
		buf[0] = 0;
	while (c >= 0) {
		int end = c;
		char item[32];
		size_t n;

		while (cpuset_has(s, (unsigned int)end + 1))
			end++;
		if (end == c)
			n = (size_t)snprintf(item, sizeof(item), "%s%d", off ? "," : "", c);
		else
			n = (size_t)snprintf(item, sizeof(item), "%s%d-%d", off ? "," : "", c, end);
		if (off + n < len)
			memcpy(buf + off, item, n + 1);
		else if (len)
			buf[off < len ? off : len - 1] = 0;
		off += n;
		c = cpuset_next(s, end);
	}
	return off;
}
