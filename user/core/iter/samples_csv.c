// SPDX-License-Identifier: BSD-2-Clause
/* samples_csv.c - parse start_ns,end_ns[,cpu[,tid]] rows and put them into a trace. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/grow.h"
#include "samples_csv.h"

static const char *const column_names[] = {"start_ns", "end_ns", "cpu", "tid"};
#define MAX_COLUMNS 4

int samples_csv_fail(struct samples_csv_error *err, size_t line, const char *fmt, ...)
{
	va_list ap;

	err->line = line;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* One field, whitespace trimmed. */
struct field {
	const char *p;
	size_t len;
};

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static struct field trim(const char *p, size_t len)
{
	while (len && is_space(*p)) {
		p++;
		len--;
	}
	while (len && is_space(p[len - 1]))
		len--;
	return (struct field){p, len};
}

/* Splits a line at commas; returns the number of fields, MAX_COLUMNS + 1 when there are more. */
static unsigned int split(const char *p, size_t len, struct field *f)
{
	unsigned int n = 0;
	size_t start = 0;

	for (size_t i = 0; i <= len; i++) {
		if (i < len && p[i] != ',')
			continue;
		if (n == MAX_COLUMNS)
			return MAX_COLUMNS + 1;
		f[n++] = trim(p + start, i - start);
		start = i + 1;
	}
	return n;
}

/* Unsigned decimal up to max; 0 or -ERANGE (too large) or -EINVAL (not a number). */
static int parse_u64(struct field f, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!f.len)
		return -EINVAL;
	for (size_t i = 0; i < f.len; i++) {
		unsigned int d = (unsigned int)(f.p[i] - '0');

		if (d > 9)
			return -EINVAL;
		if (v > (max - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* The header line: the column names in order, 2 to 4 of them. */
static int parse_header(const struct field *f, unsigned int n, size_t line, unsigned int *cols,
			struct samples_csv_error *err)
{
	if (n < 2 || n > MAX_COLUMNS)
		return samples_csv_fail(
			err, line, "header has %s columns, expected start_ns,end_ns[,cpu[,tid]]",
			n > MAX_COLUMNS ? "more than 4" : "fewer than 2");
	for (unsigned int i = 0; i < n; i++)
		if (f[i].len != strlen(column_names[i]) ||
		    strncmp(f[i].p, column_names[i], f[i].len))
			return samples_csv_fail(err, line,
						"header column %u is '%.*s', expected '%s'"
						" (the header is start_ns,end_ns[,cpu[,tid]])",
						i + 1, (int)(f[i].len > 40 ? 40 : f[i].len), f[i].p,
						column_names[i]);
	*cols = n;
	return 0;
}

static int parse_row(const struct field *f, unsigned int n, size_t line, struct tc_sample *s,
		     struct samples_csv_error *err)
{
	static const uint64_t max[] = {UINT64_MAX, UINT64_MAX, UINT32_MAX - 1, UINT32_MAX};
	uint64_t v[MAX_COLUMNS] = {0, 0, UINT32_MAX, 0};

	for (unsigned int i = 0; i < n; i++) {
		int r = parse_u64(f[i], max[i], &v[i]);

		if (r == -ERANGE)
			return samples_csv_fail(err, line, "%s '%.*s' is too large",
						column_names[i],
						(int)(f[i].len > 40 ? 40 : f[i].len), f[i].p);
		if (r)
			return samples_csv_fail(
				err, line, "%s '%.*s' is not an unsigned decimal integer",
				column_names[i], (int)(f[i].len > 40 ? 40 : f[i].len), f[i].p);
	}
	if (v[1] < v[0])
		return samples_csv_fail(err, line, "end_ns %llu is before start_ns %llu",
					(unsigned long long)v[1], (unsigned long long)v[0]);
	*s = (struct tc_sample){
		.t_start = v[0], .t_end = v[1], .cpu = (uint32_t)v[2], .tid = (uint32_t)v[3]};
	return 0;
}

struct parser {
	struct samples_csv *out;
	size_t cap;
	size_t rows; /* data or header lines seen */
	struct samples_csv_error *err;
};

static int parse_line(struct parser *p, const char *s, size_t len, size_t line)
{
	struct field f[MAX_COLUMNS];
	struct field all = trim(s, len);
	unsigned int n;

	if (!all.len || all.p[0] == '#')
		return 0;
	n = split(all.p, all.len, f);
	if (p->rows++ == 0 && all.p[0] >= 'a' && all.p[0] <= 'z')
		return parse_header(f, n, line, &p->out->columns, p->err);
	if (n < 2 || n > MAX_COLUMNS)
		return samples_csv_fail(p->err, line,
					"%s columns, expected start_ns,end_ns[,cpu[,tid]]",
					n > MAX_COLUMNS ? "more than 4" : "fewer than 2");
	if (!p->out->columns)
		p->out->columns = n;
	else if (n != p->out->columns)
		return samples_csv_fail(p->err, line, "%u columns where the %s has %u", n,
					p->out->n ? "first row" : "header", p->out->columns);
	if (grow(&p->out->samples, &p->cap, p->out->n + 1, sizeof(*p->out->samples)))
		return -ENOMEM;
	return parse_row(f, n, line, &p->out->samples[p->out->n++], p->err);
}

int samples_csv_parse(const char *buf, size_t len, struct samples_csv *out,
		      struct samples_csv_error *err)
{
	struct parser p = {.out = out, .err = err};
	size_t line = 1, start = 0;
	int r = 0;

	memset(out, 0, sizeof(*out));
	err->line = 0;
	err->msg[0] = 0;
	for (size_t i = 0; i <= len && !r; i++) {
		if (i < len && buf[i] != '\n')
			continue;
		if (memchr(buf + start, 0, i - start))
			r = samples_csv_fail(err, line, "a NUL byte: this is not a text file");
		else
			r = parse_line(&p, buf + start, i - start, line);
		start = i + 1;
		line++;
	}
	if (!r && !out->n)
		r = samples_csv_fail(err, 0,
				     "no rows: expected lines of start_ns,end_ns[,cpu[,tid]]");
	if (r)
		samples_csv__free(out);
	return r;
}

void samples_csv__free(struct samples_csv *c)
{
	free(c->samples);
	memset(c, 0, sizeof(*c));
}

void samples_csv_trace_span(const struct tc_trace *t, uint64_t *lo, uint64_t *hi)
{
	*lo = t->mono_ns;
	*hi = t->mono_ns;
	for (size_t i = 0; i < t->n_events; i++) {
		const struct tc_event *e = &t->events[i];
		uint64_t end = sat_add(e->start_ns, e->dur_ns);

		if (e->start_ns < *lo || !*lo)
			*lo = e->start_ns;
		if (end > *hi)
			*hi = end;
	}
}

size_t samples_csv_outside(const struct tc_sample *s, size_t n, uint64_t lo, uint64_t hi)
{
	size_t out = 0;

	for (size_t i = 0; i < n; i++)
		out += s[i].t_end < lo || s[i].t_start > hi;
	return out;
}

static int has_probe_thread(const struct tc_trace *t, uint32_t tid)
{
	for (size_t i = 0; i < t->n_threads; i++)
		if (t->threads[i].tid == tid && t->threads[i].role == TC_THREAD_PROBE)
			return 1;
	return 0;
}

static int add_probe(struct tc_trace *t, uint32_t tid)
{
	if (!tid || has_probe_thread(t, tid) || trace__thread_role(t, tid) == TC_THREAD_SELF)
		return 0;
	return trace__add_thread(t, tid, TC_THREAD_PROBE, UINT32_MAX);
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/* tids[0..n) sorted, duplicates dropped: registers each once. */
static int add_probes(struct tc_trace *t, uint32_t *tids, size_t n)
{
	int err = 0;

	qsort(tids, n, sizeof(*tids), cmp_u32);
	for (size_t i = 0; i < n && !err; i++)
		if (!i || tids[i] != tids[i - 1])
			err = add_probe(t, tids[i]);
	return err;
}

/* Every thread of the traced command: its off-CPU intervals' tids and TARGET threads. */
static int adopt_command_threads(struct tc_trace *t)
{
	size_t n = 0, cap = 0;
	uint32_t *tids = NULL;
	int err = 0;

	for (size_t i = 0; i < t->n_events + t->n_threads && !err; i++) {
		uint32_t tid;

		if (i < t->n_events && t->events[i].kind != TC_EV_OFFCPU)
			continue;
		if (i >= t->n_events && t->threads[i - t->n_events].role != TC_THREAD_TARGET)
			continue;
		tid = i < t->n_events ? t->events[i].tid : t->threads[i - t->n_events].tid;
		if (n && tids[n - 1] == tid)
			continue; /* runs of the same thread: keep the list short */
		err = grow(&tids, &cap, n + 1, sizeof(*tids));
		if (!err)
			tids[n++] = tid;
	}
	err = err ?: add_probes(t, tids, n);
	free(tids);
	return err;
}

int samples_csv_adopt(struct tc_trace *t, const struct tc_sample *s, size_t n)
{
	uint32_t *tids;
	size_t n_tids = 0;
	int err;

	t->n_samples = 0;
	err = trace__add_samples(t, s, n);
	if (err)
		return err;
	tids = malloc((n ? n : 1) * sizeof(*tids));
	if (!tids)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (s[i].tid && (!n_tids || tids[n_tids - 1] != s[i].tid))
			tids[n_tids++] = s[i].tid;
	err = n_tids ? add_probes(t, tids, n_tids) : adopt_command_threads(t);
	free(tids);
	return err;
}
