/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cli_opts.h - a command's options as one table: what getopt_long() parses, the lines of its
 * --help, and the listing ('tailcause help-options CMD') its man page and shell completion are
 * generated from (scripts/gen-man.py), so that none of them can name an option the others lack.
 */
#ifndef TAILCAUSE_CMD_CLI_OPTS_H
#define TAILCAUSE_CMD_CLI_OPTS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* One option. A table of them ends with an entry whose opt.name is NULL. */
struct cli_opt {
	struct option opt; /* getopt_long()'s entry: val is the short option, or >= 0x100 */
	unsigned int mask; /* the groups (commands) that take it; 0: every one */
	const char *arg;   /* the value's name in the help (NAME, FILE); NULL: takes none */
	const char *help;  /* what it does: the lines of the help's second column */
};

/* The options of one command: those of opts whose mask meets mask (or is 0). */
struct cli_opts {
	const struct cli_opt *opts;
	unsigned int mask;
	int width; /* the column the help text starts in */
};

/* Whether o is one of c's options. */
int cli_opts_has(const struct cli_opts *c, const struct cli_opt *o);

/*
 * getopt_long()'s arguments for c: longopts (room for n_long, the zero entry included) and
 * shortopts (room for n_short). 0, or -E2BIG where the room is short.
 */
int cli_opts_getopt(const struct cli_opts *c, struct option *longopts, size_t n_long,
		    char *shortopts, size_t n_short);

/* The option lines of c's --help ("  -o, --output FILE    write ..."), to f. */
void cli_opts_help(const struct cli_opts *c, FILE *f);

/*
 * c's options for scripts, one record a line, fields split by tabs:
 *   option SHORT LONG HAS_ARG ARG   (SHORT "-x" or "", HAS_ARG none/required/optional)
 *   text LINE                       (a line of the option's help, as --help prints it)
 */
void cli_opts_list(const struct cli_opts *c, FILE *f);

#endif /* TAILCAUSE_CMD_CLI_OPTS_H */
