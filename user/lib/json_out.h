/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * json_out.h - a small streaming JSON writer: objects, arrays, escaped strings
 * (control characters, C1 and DEL included, as \u00XX; what is not valid UTF-8
 * becomes U+FFFD), numbers (non-finite ones become null).
 * Indented by two spaces per level; compact objects fit on one line.
 */
#ifndef TAILCAUSE_LIB_JSON_OUT_H
#define TAILCAUSE_LIB_JSON_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *f;
	int depth;
	int compact_from;	   /* depth at which output stays on one line; 0: never */
	int n[JSON_MAX_DEPTH];	   /* values written at each depth */
	char open[JSON_MAX_DEPTH]; /* '{' or '[' opened at each depth */
};

void json_init(struct json *j, FILE *f);
/* key is NULL inside arrays (and for the top-level value). */
void json_obj(struct json *j, const char *key);
/* An object written on one line, with everything inside it. */
void json_obj_compact(struct json *j, const char *key);
void json_arr(struct json *j, const char *key);
void json_arr_compact(struct json *j, const char *key);
void json_end(struct json *j); /* closes the innermost object or array */

void json_str(struct json *j, const char *key, const char *v);		  /* NULL: null */
void json_strn(struct json *j, const char *key, const char *v, size_t n); /* v[0..n) */
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_num(struct json *j, const char *key, double v, int decimals);
void json_bool(struct json *j, const char *key, int v);
void json_null(struct json *j, const char *key);

/* Writes s (or s[0..n)) as a JSON string literal, quotes included. */
void json_write_string(FILE *f, const char *s);
void json_write_stringn(FILE *f, const char *s, size_t n);

#endif /* TAILCAUSE_LIB_JSON_OUT_H */
