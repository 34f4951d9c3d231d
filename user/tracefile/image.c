// SPDX-License-Identifier: BSD-2-Clause
/* image.c - a trace file's bytes in memory (image.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/trace/trace_codec.h"
#include "image.h"

static int read_whole(int fd, struct image *img)
{
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = NULL;
	int err = 0;

	for (;;) {
		if (n == cap || !buf) {
			uint8_t *nb = realloc(buf, cap *= 2);

			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
		}
		ssize_t r = read(fd, buf + n, cap - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		/* not a trace (the decoder says so): a device or pipe is not read to its end */
		if (n >= TC_TRACE_HEADER_LEN && memcmp(buf, TC_TRACE_MAGIC, 8))
			break;
	}
	if (err) {
		free(buf);
		return err;
	}
	img->data = buf;
	img->len = n;
	return 0;
}

/*
 * Maps a regular file read-only: the decoder reads the page cache in place, so a
 * large trace costs no copy and no freshly zeroed memory for its image. Pipes and
 * the like are read into memory. A recorder only ever appends to a file, and
 * writes a new one to replace it, so the mapped length stays valid.
 */
int image_open(const char *path, struct image *img)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *p;
	int err;

	memset(img, 0, sizeof(*img));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		img->file_size = (uint64_t)st.st_size;
	if (img->file_size && img->file_size <= SIZE_MAX) {
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
			img->data = p;
			img->len = (size_t)st.st_size;
			img->mapped = 1;
			close(fd);
			return 0;
		}
	}
	err = read_whole(fd, img);
	close(fd);
	return err;
}

/*
 * Drops the mapped pages the decoder is done with, so the file's image does
 * not add to the peak memory of a large report (they stay in the page cache).
 */
void image_consumed(void *arg, size_t off)
{
	struct image *img = arg;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), end = off / page * page;

	if (!img->mapped || end <= img->released)
		return;
	madvise(img->data + img->released, end - img->released, MADV_DONTNEED);
	img->released = end;
}

void image_drop(struct image *img, size_t from, size_t to)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), lo, hi;

	from = from > IMAGE_FAULT_AROUND ? from - IMAGE_FAULT_AROUND : 0;
	to = to + IMAGE_FAULT_AROUND < to ? SIZE_MAX : to + IMAGE_FAULT_AROUND;
	lo = from / page * page;
	hi = to > img->len ? img->len : (to + page - 1) / page * page;

	if (!img->mapped || hi <= lo)
		return;
	madvise(img->data + lo, hi - lo, MADV_DONTNEED);
}

void image_close(struct image *img)
{
	if (img->mapped)
		munmap(img->data, img->len);
	else
		free(img->data);
}
