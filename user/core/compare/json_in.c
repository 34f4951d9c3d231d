// SPDX-License-Identifier: BSD-2-Clause
/*
 * json_in.c - a recursive-descent JSON reader. Numbers follow RFC 8259's grammar
 * exactly and are converted with strtod() (tailcause never sets a locale, so the
 * decimal point is '.'); strings are unescaped, \u escapes (surrogate pairs
 * included) written as UTF-8.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json_in.h"

struct parser {
	const char *s;
	size_t len, pos;
	int depth;
	struct jv_error *err;
};

static int fail(struct parser *p, const char *msg)
{
	if (p->err) {
		p->err->offset = p->pos;
		p->err->msg = msg;
	}
	return -EINVAL;
}

static void skip_ws(struct parser *p)
{
	while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
				   p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
		p->pos++;
}

static int peek(const struct parser *p)
{
	return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static int literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n))
		return fail(p, "unknown literal");
	p->pos += n;
	return 0;
}

static int digits(struct parser *p)
{
	size_t start = p->pos;

	while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
		p->pos++;
	return p->pos > start;
}

static int number(struct parser *p, struct jv *v)
{
	size_t start = p->pos;
	char buf[64];

	if (peek(p) == '-')
		p->pos++;
	if (peek(p) == '0')
		p->pos++;
	else if (!digits(p))
		return fail(p, "bad number");
	if (peek(p) == '.') {
		p->pos++;
		if (!digits(p))
			return fail(p, "bad number: no digit after '.'");
	}
	if (peek(p) == 'e' || peek(p) == 'E') {
		p->pos++;
		if (peek(p) == '+' || peek(p) == '-')
			p->pos++;
		if (!digits(p))
			return fail(p, "bad number: no digit in the exponent");
	}
	if (p->pos - start >= sizeof(buf))
		return fail(p, "number too long");
	memcpy(buf, p->s + start, p->pos - start);
	buf[p->pos - start] = 0;
	v->type = JV_NUM;
	v->num = strtod(buf, NULL);
	return 0;
}

static int hex4(struct parser *p, uint32_t *out)
{
	uint32_t v = 0;

	if (p->len - p->pos < 4)
		return fail(p, "short \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = p->s[p->pos++];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return fail(p, "bad \\u escape");
	}
	*out = v;
	return 0;
}

/* Appends code point cp as UTF-8 (at most 4 bytes) to out at *n. */
static void put_utf8(char *out, size_t *n, uint32_t cp)
{
	if (cp < 0x80) {
		out[(*n)++] = (char)cp;
	} else if (cp < 0x800) {
		out[(*n)++] = (char)(0xc0 | cp >> 6);
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		out[(*n)++] = (char)(0xe0 | cp >> 12);
		out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		out[(*n)++] = (char)(0xf0 | cp >> 18);
		out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
		out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	}
}

static int escape(struct parser *p, char *out, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	uint32_t cp, lo;
	const char *k;
	char c;

	if (p->pos >= p->len)
		return fail(p, "unterminated string");
	c = p->s[p->pos++];
	if (c != 'u') {
		k = strchr(from, c);
		if (!k || !c)
			return fail(p, "bad escape");
		out[(*n)++] = to[k - from];
		return 0;
	}
	if (hex4(p, &cp))
		return -EINVAL;
	if (cp >= 0xd800 && cp < 0xdc00) {
		if (p->len - p->pos < 6 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
			return fail(p, "lone high surrogate");
		p->pos += 2;
		if (hex4(p, &lo))
			return -EINVAL;
		if (lo < 0xdc00 || lo >= 0xe000)
			return fail(p, "bad low surrogate");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	} else if (cp >= 0xdc00 && cp < 0xe000) {
		return fail(p, "lone low surrogate");
	}
	put_utf8(out, n, cp);
	return 0;
}

/* A string at p (after its opening quote) into a new buffer. */
static int string(struct parser *p, char **out)
{
	size_t start = p->pos, n = 0;
	char *buf;

	/* Unescaped, the text is never longer than its escaped form. */
	while (p->pos < p->len && p->s[p->pos] != '"')
		p->pos += p->s[p->pos] == '\\' && p->pos + 1 < p->len ? 2 : 1;
	if (p->pos >= p->len)
		return fail(p, "unterminated string");
	buf = malloc(p->pos - start + 1);
	if (!buf)
		return -ENOMEM;
	p->pos = start;
	while (p->s[p->pos] != '"') {
		unsigned char c = (unsigned char)p->s[p->pos++];

		if (c < 0x20) {
			free(buf);
			return fail(p, "control character in a string");
		}
		if (c != '\\') {
			buf[n++] = (char)c;
			continue;
		}
		if (escape(p, buf, &n)) {
			free(buf);
			return -EINVAL;
		}
	}
	p->pos++;
	buf[n] = 0;
	*out = buf;
	return 0;
}

/*
 * Room for element n of an array or object in *pp, doubling from one: a value costs the
 * room of what it holds, not grow()'s sixteen (a list of one-member objects cost many
 * times its text). 0 or -ENOMEM.
 */
static int room(void *pp, size_t *cap, size_t n, size_t sz)
{
	void **p = pp, *q;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? 2 * *cap : 1;
	if (c > SIZE_MAX / sz)
		return -ENOMEM;
	q = realloc(*p, c * sz);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

static int value(struct parser *p, struct jv *v);

static int array(struct parser *p, struct jv *v)
{
	size_t cap = 0;
	int err;

	v->type = JV_ARR;
	skip_ws(p);
	if (peek(p) == ']') {
		p->pos++;
		return 0;
	}
	for (;;) {
		if (room(&v->items, &cap, v->n, sizeof(*v->items)))
			return -ENOMEM;
		memset(&v->items[v->n], 0, sizeof(*v->items));
		err = value(p, &v->items[v->n]);
		v->n++;
		if (err)
			return err;
		skip_ws(p);
		if (peek(p) == ']') {
			p->pos++;
			return 0;
		}
		if (peek(p) != ',')
			return fail(p, "expected ',' or ']'");
		p->pos++;
	}
}

static int object(struct parser *p, struct jv *v)
{
	size_t cap = 0;
	int err;

	v->type = JV_OBJ;
	skip_ws(p);
	if (peek(p) == '}') {
		p->pos++;
		return 0;
	}
	for (;;) {
		struct jv_member *m;

		skip_ws(p);
		if (peek(p) != '"')
			return fail(p, "expected a member name");
		p->pos++;
		if (room(&v->members, &cap, v->n, sizeof(*v->members)))
			return -ENOMEM;
		m = &v->members[v->n];
		memset(m, 0, sizeof(*m));
		err = string(p, &m->key);
		if (err)
			return err;
		v->n++;
		skip_ws(p);
		if (peek(p) != ':')
			return fail(p, "expected ':'");
		p->pos++;
		err = value(p, &m->val);
		if (err)
			return err;
		skip_ws(p);
		if (peek(p) == '}') {
			p->pos++;
			return 0;
		}
		if (peek(p) != ',')
			return fail(p, "expected ',' or '}'");
		p->pos++;
	}
}

static int value(struct parser *p, struct jv *v)
{
	int c, err;

	skip_ws(p);
	c = peek(p);
	switch (c) {
	case '{':
	case '[':
		if (++p->depth > JSON_IN_MAX_DEPTH)
			return fail(p, "nested too deep");
		p->pos++;
		err = c == '{' ? object(p, v) : array(p, v);
		p->depth--;
		return err;
	case '"':
		p->pos++;
		v->type = JV_STR;
		return string(p, &v->str);
	case 't':
		v->type = JV_BOOL;
		v->b = 1;
		return literal(p, "true");
	case 'f':
		v->type = JV_BOOL;
		return literal(p, "false");
	case 'n':
		v->type = JV_NULL;
		return literal(p, "null");
	case -1:
		return fail(p, "unexpected end of text");
	default:
		if (c == '-' || (c >= '0' && c <= '9'))
			return number(p, v);
		return fail(p, "unexpected character");
	}
}

static void free_value(struct jv *v)
{
	free(v->str);
	for (size_t i = 0; v->type == JV_ARR && i < v->n; i++)
		free_value(&v->items[i]);
	for (size_t i = 0; v->type == JV_OBJ && i < v->n; i++) {
		free(v->members[i].key);
		free_value(&v->members[i].val);
	}
	free(v->items);
	free(v->members);
}

void jv__free(struct jv *v)
{
	if (!v)
		return;
	free_value(v);
	free(v);
}

int jv_parse(const char *text, size_t len, struct jv **out, struct jv_error *err)
{
	struct parser p = {.s = text, .len = len, .err = err};
	struct jv *v = calloc(1, sizeof(*v));
	int rc;

	if (!v)
		return -ENOMEM;
	rc = value(&p, v);
	if (!rc) {
		skip_ws(&p);
		if (p.pos != p.len)
			rc = fail(&p, "text after the value");
	}
	if (rc) {
		jv__free(v);
		return rc;
	}
	*out = v;
	return 0;
}

const struct jv *jv_get(const struct jv *v, const char *key)
{
	if (!v || v->type != JV_OBJ)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->members[i].key, key))
			return &v->members[i].val;
	return NULL;
}

const struct jv *jv_path(const struct jv *v, const char *path)
{
	char key[128];

	while (v && *path) {
		size_t n = strcspn(path, ".");

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = 0;
		v = jv_get(v, key);
		path += n + (path[n] == '.');
	}
	return v;
}

double jv_num_or(const struct jv *v, double dflt)
{
	return v && v->type == JV_NUM ? v->num : dflt;
}

const char *jv_str_or(const struct jv *v, const char *dflt)
{
	return v && v->type == JV_STR ? v->str : dflt;
}
