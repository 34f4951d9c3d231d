/* SPDX-License-Identifier: BSD-2-Clause */
/* infile.h - a small input file (a CSV, a JSON report) read whole into memory. */
#ifndef TAILCAUSE_LIB_INFILE_H
#define TAILCAUSE_LIB_INFILE_H

#include <stddef.h>

/*
 * Reads path into a new buffer *buf of *len bytes (not NUL-terminated; one spare
 * byte at the end): to its end, or a little past its first NUL byte, which no text
 * holds (what is read is not bounded by a file size where there is none: a pipe, a
 * device). 0, or a negative errno (-ENOENT, -EIO, -ENOMEM); prints nothing.
 */
int infile_read(const char *path, char **buf, size_t *len);

#endif /* TAILCAUSE_LIB_INFILE_H */
