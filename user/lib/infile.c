// SPDX-License-Identifier: BSD-2-Clause
/* infile.c - a small input file read whole. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infile.h"

int infile_read(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1 << 16, n = 0, got;
	char *b = NULL, *nb;
	int err = 0;

	if (!f)
		return -errno;
	for (;;) {
		if (!b || n == cap) {
			cap = b ? cap * 2 : cap;
			nb = realloc(b, cap);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			b = nb;
		}
		got = fread(b + n, 1, cap - n, f);
		n += got;
		if (ferror(f)) {
			err = -EIO;
			break;
		}
		/* no text holds a NUL: the parser says so, and /dev/zero is not read forever */
		if (feof(f) || memchr(b + n - got, 0, got))
			break;
	}
	fclose(f);
	if (err) {
		free(b);
		return err;
	}
	*buf = b;
	*len = n;
	return 0;
}
