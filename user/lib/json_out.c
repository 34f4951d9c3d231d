// SPDX-License-Identifier: BSD-2-Clause
/* json_out.c - streaming JSON: separators, indentation and escaping in one place. */
#include <math.h>
#include <string.h>

#include "json_out.h"
#include "str.h"

void json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

static int compact(const struct json *j)
{
	return j->compact_from && j->depth >= j->compact_from;
}

/* The separator and indentation before a value, then its key. */
static void lead(struct json *j, const char *key)
{
	if (j->depth > 0 && j->n[j->depth - 1]++)
		fputc(',', j->f);
	if (j->depth > 0) {
		if (compact(j))
			fputc(' ', j->f);
		else
			fprintf(j->f, "\n%*s", 2 * j->depth, "");
	}
	if (key) {
		json_write_string(j->f, key);
		fputs(": ", j->f);
	}
}

static void open_(struct json *j, const char *key, char c, int one_line)
{
	lead(j, key);
	fputc(c, j->f);
	if (one_line && !j->compact_from)
		j->compact_from = j->depth + 1;
	j->open[j->depth] = c;
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->n[j->depth - 1] = 0;
}

void json_obj(struct json *j, const char *key)
{
	open_(j, key, '{', 0);
}

void json_obj_compact(struct json *j, const char *key)
{
	open_(j, key, '{', 1);
}

void json_arr(struct json *j, const char *key)
{
	open_(j, key, '[', 0);
}

void json_arr_compact(struct json *j, const char *key)
{
	open_(j, key, '[', 1);
}

void json_end(struct json *j)
{
	int had = j->depth > 0 && j->n[j->depth - 1];
	int was_compact = compact(j);
	char c;

	if (j->depth > 0)
		j->depth--;
	if (j->compact_from > j->depth)
		j->compact_from = 0;
	if (had && !was_compact)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	else if (had)
		fputc(' ', j->f);
	c = j->open[j->depth] == '[' ? ']' : '}';
	fputc(c, j->f);
	if (!j->depth)
		fputc('\n', j->f);
}

void json_str(struct json *j, const char *key, const char *v)
{
	lead(j, key);
	if (v)
		json_write_string(j->f, v);
	else
		fputs("null", j->f);
}

void json_strn(struct json *j, const char *key, const char *v, size_t n)
{
	lead(j, key);
	json_write_stringn(j->f, v, n);
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	lead(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	lead(j, key);
	fprintf(j->f, "%lld", (long long)v);
}

void json_num(struct json *j, const char *key, double v, int decimals)
{
	lead(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.*f", decimals, v == 0 ? 0.0 : v);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, const char *key, int v)
{
	lead(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	lead(j, key);
	fputs("null", j->f);
}

void json_write_string(FILE *f, const char *s)
{
	json_write_stringn(f, s, strlen(s));
}

/*
 * Control characters (C0, DEL, and C1 as UTF-8) as \u00XX, so that a JSON file shown on a
 * terminal cannot steer it; a byte that is not valid UTF-8 (lib/str.h's rule: no overlong
 * form, no surrogate, nothing above U+10FFFF) as U+FFFD, so that the file stays UTF-8.
 */
void json_write_stringn(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	fputc('"', f);
	while (p < end) {
		size_t n = str_char_len((const char *)p, (size_t)(end - p));

		if (*p == '"' || *p == '\\') {
			fputc('\\', f);
			fputc(*p++, f);
		} else if (n) {
			fwrite(p, 1, n, f);
			p += n;
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p++);
		} else if (*p == 0xc2 && end - p >= 2 && p[1] >= 0x80 && p[1] < 0xa0) {
			fprintf(f, "\\u%04x", p[1]);
			p += 2;
		} else {
			fputs("\\ufffd", f);
			p++;
		}
	}
	fputc('"', f);
}
