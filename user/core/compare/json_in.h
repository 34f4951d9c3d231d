/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * json_in.h - a JSON reader for the reports tailcause reads back (diff, rank):
 * the whole text into a tree of values. Strict RFC 8259 (no comments, no
 * trailing commas), nesting at most JSON_IN_MAX_DEPTH, never trusting the input.
 * Pure: no I/O.
 */
#ifndef TAILCAUSE_CORE_JSON_IN_H
#define TAILCAUSE_CORE_JSON_IN_H

#include <stddef.h>

#define JSON_IN_MAX_DEPTH 64

enum jv_type { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv_member;

struct jv {
	enum jv_type type;
	int b;			   /* JV_BOOL */
	double num;		   /* JV_NUM */
	char *str;		   /* JV_STR: UTF-8, NUL-terminated (a \u0000 ends it early) */
	struct jv *items;	   /* JV_ARR */
	struct jv_member *members; /* JV_OBJ, in the order written */
	size_t n;		   /* items or members */
};

struct jv_member {
	char *key;
	struct jv val;
};

struct jv_error {
	size_t offset;	 /* where the text went wrong */
	const char *msg; /* "expected ',' or '}'", ... */
};

/*
 * Parses text[0..len) into a new tree in *out. 0; -EINVAL (bad JSON: err says where
 * and why); -ENOMEM.
 */
int jv_parse(const char *text, size_t len, struct jv **out, struct jv_error *err);
void jv__free(struct jv *v);

/* The member key of object v (the first of that name), or NULL (absent, or v not an object). */
const struct jv *jv_get(const struct jv *v, const char *key);
/* A member reached by keys separated by dots ("latency.stats.p99_9"), or NULL. */
const struct jv *jv_path(const struct jv *v, const char *path);
/* v's number, or dflt when v is NULL or not a number. */
double jv_num_or(const struct jv *v, double dflt);
/* v's string, or dflt when v is NULL or not a string. */
const char *jv_str_or(const struct jv *v, const char *dflt);

#endif /* TAILCAUSE_CORE_JSON_IN_H */
