/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * outfile.h - a file that appears whole or not at all: written to a temporary
 * file in the same directory, created with its final mode, renamed over the
 * target when done.
 */
#ifndef TAILCAUSE_LIB_OUTFILE_H
#define TAILCAUSE_LIB_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

struct outfile {
	FILE *f; /* write here */
	char *path;
	char *tmp;
};

/*
 * Creates the temporary file for path with its final mode (0600 but for OpenMetrics: a
 * report names the host's tasks), never through a link, open for reading too (a check
 * before the commit); 0 or a negative errno, reported.
 */
int outfile_open(struct outfile *o, const char *path, mode_t mode);
/* Flushes, syncs and renames it to its path; 0 or a negative errno, reported. Frees o. */
int outfile_commit(struct outfile *o);
/* Removes the temporary file; frees o. */
void outfile_abort(struct outfile *o);

/* Whether path's directory exists and is writable; reports why not and returns -errno. */
int outfile_check_dir(const char *opt, const char *path);

#endif /* TAILCAUSE_LIB_OUTFILE_H */
