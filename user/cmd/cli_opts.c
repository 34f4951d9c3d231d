// SPDX-License-Identifier: BSD-2-Clause
/* cli_opts.c - one table per command: getopt's entries, the --help lines, the listing. */
#include <errno.h>
#include <string.h>

#include "cli_opts.h"

int cli_opts_has(const struct cli_opts *c, const struct cli_opt *o)
{
	return !o->mask || (o->mask & c->mask);
}

/* Whether longopts[0..n) has name: two commands' tables may each hold their own line of it. */
static int seen(const struct option *longopts, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(longopts[i].name, name))
			return 1;
	return 0;
}

int cli_opts_getopt(const struct cli_opts *c, struct option *longopts, size_t n_long,
		    char *shortopts, size_t n_short)
{
	size_t n = 0, l = 0;

	for (const struct cli_opt *o = c->opts; o->opt.name; o++) {
		if (!cli_opts_has(c, o) || seen(longopts, n, o->opt.name))
			continue;
		if (n + 1 >= n_long || l + 3 >= n_short)
			return -E2BIG;
		longopts[n++] = o->opt;
		if (o->opt.val > 0 && o->opt.val < 0x100) {
			shortopts[l++] = (char)o->opt.val;
			if (o->opt.has_arg != no_argument)
				shortopts[l++] = ':';
			if (o->opt.has_arg == optional_argument)
				shortopts[l++] = ':';
		}
	}
	memset(&longopts[n], 0, sizeof(longopts[n]));
	shortopts[l] = 0;
	return 0;
}

/* "-p, --probe NAME", "    --stream[=N]": the help's first column, without its indent. */
static void synopsis(const struct cli_opt *o, char *buf, size_t len)
{
	int has_short = o->opt.val > 0 && o->opt.val < 0x100;

	snprintf(buf, len, "%c%c%c --%s%s%s%s", has_short ? '-' : ' ', has_short ? o->opt.val : ' ',
		 has_short ? ',' : ' ', o->opt.name,
		 !o->arg			       ? ""
		 : o->opt.has_arg == optional_argument ? "[="
						       : " ",
		 o->arg ? o->arg : "", o->arg && o->opt.has_arg == optional_argument ? "]" : "");
}

void cli_opts_help(const struct cli_opts *c, FILE *f)
{
	char syn[64];

	for (const struct cli_opt *o = c->opts; o->opt.name; o++) {
		const char *line = o->help;

		if (!cli_opts_has(c, o))
			continue;
		synopsis(o, syn, sizeof(syn));
		fprintf(f, "  %-*s ", c->width - 3, syn);
		for (int first = 1; first || *line; first = 0) {
			size_t n = strcspn(line, "\n");

			fprintf(f, "%*s%.*s\n", first ? 0 : c->width, "", (int)n, line);
			line += n + (line[n] == '\n');
		}
	}
}

void cli_opts_list(const struct cli_opts *c, FILE *f)
{
	static const char *const has_arg[] = {"none", "required", "optional"};

	for (const struct cli_opt *o = c->opts; o->opt.name; o++) {
		const char *line = o->help;
		char s[3] = "";

		if (!cli_opts_has(c, o))
			continue;
		if (o->opt.val > 0 && o->opt.val < 0x100)
			snprintf(s, sizeof(s), "-%c", o->opt.val);
		fprintf(f, "option\t%s\t--%s\t%s\t%s\n", s, o->opt.name,
			has_arg[o->opt.has_arg == optional_argument ? 2 : o->opt.has_arg != 0],
			o->arg ? o->arg : "");
		while (*line) {
			size_t n = strcspn(line, "\n");

			fprintf(f, "text\t%.*s\n", (int)n, line);
			line += n + (line[n] == '\n');
		}
	}
}
