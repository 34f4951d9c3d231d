// SPDX-License-Identifier: BSD-2-Clause
/* trace_follow.c - a trace file read as it grows (trace_follow.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/trace/trace_codec.h"
#include "lib/log.h"
#include "trace_follow.h"

/*
 * Read about this much a call (more only where one block is larger): a long recording
 * is caught up with over many calls, each small enough for its reader to show it.
 */
#define FOLLOW_CHUNK ((size_t)1 << 20)

struct trace_follow {
	char *path, *partial;
	uint8_t header[256]; /* the file's header, put before each tail */
	size_t header_len;   /* 0: not read yet */
	uint64_t off;	     /* the first byte not yet read as a whole block */
	uint64_t size;	     /* the file's size at the last read */
	int live;	     /* the last read was of the partial file */
	uint8_t *buf;
	size_t cap;
	size_t end; /* of the last whole block of the current read, in buf */
	int done;
};

int trace_follow_open(const char *path, struct trace_follow **out)
{
	struct trace_follow *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->path = strdup(path);
	if (f->path && asprintf(&f->partial, "%s.partial", path) < 0)
		f->partial = NULL;
	if (!f->path || !f->partial) {
		trace_follow_close(f);
		return -ENOMEM;
	}
	*out = f;
	return 0;
}

/* The file as it is now: the partial one while it is there. */
static int open_current(struct trace_follow *f)
{
	int fd = open(f->partial, O_RDONLY | O_CLOEXEC);

	f->live = fd >= 0;
	if (fd < 0 && errno == ENOENT)
		fd = open(f->path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int read_at(int fd, uint8_t *p, size_t n, uint64_t off, size_t *got)
{
	*got = 0;
	while (*got < n) {
		ssize_t r = pread(fd, p + *got, n - *got, (off_t)(off + *got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			break;
		*got += (size_t)r;
	}
	return 0;
}

static int after_block(void *arg, struct tc_trace *t, uint32_t type, size_t off, size_t end)
{
	struct trace_follow *f = arg;

	(void)t;
	(void)off;
	f->end = end;
	if (type == TC_BLOCK_END)
		f->done = 1;
	return 0;
}

/* The header, once: its length is in it. 1 while it is not all written yet. */
static int read_header(struct trace_follow *f, int fd)
{
	size_t got, len;
	int err = read_at(fd, f->header, TC_TRACE_HEADER_LEN, 0, &got);

	if (err || got < TC_TRACE_HEADER_LEN)
		return err ?: 1;
	len = (size_t)f->header[10] | (size_t)f->header[11] << 8;
	if (len < TC_TRACE_HEADER_LEN || len > sizeof(f->header))
		len = TC_TRACE_HEADER_LEN; /* the decoder says what is wrong with it */
	err = read_at(fd, f->header, len, 0, &got);
	if (err || got < len)
		return err ?: 1;
	f->header_len = len;
	f->off = len;
	return 0;
}

/*
 * Reads want bytes after f->off into f->buf behind the header and decodes the whole blocks
 * in them into t; f->end is then the end of the last whole one. 0 or -errno.
 */
static int read_chunk(struct trace_follow *f, int fd, struct tc_trace *t, size_t want, size_t *got)
{
	struct codec_walk walk = {after_block, f, 1};
	struct tc_codec_error cerr = {0};
	int err;

	if (f->cap < f->header_len + want) {
		uint8_t *p = realloc(f->buf, f->header_len + want);

		if (!p)
			return -ENOMEM;
		f->buf = p;
		f->cap = f->header_len + want;
	}
	memcpy(f->buf, f->header, f->header_len);
	err = read_at(fd, f->buf + f->header_len, want, f->off, got);
	if (err)
		return err;
	f->end = f->header_len;
	err = codec_walk(f->buf, f->header_len + *got, t, &cerr, &walk);
	t->truncated = 0; /* a block still being written: read it next time */
	if (err == -EBADMSG)
		log_err("read %s: not a valid tailcause trace: %s", f->path, cerr.msg);
	return err;
}

int trace_follow_read(struct trace_follow *f, struct tc_trace *t, int *done)
{
	uint64_t avail;
	size_t want, got;
	struct stat st;
	int fd, err;

	*done = f->done;
	if (f->done)
		return 0;
	fd = open_current(f);
	if (fd < 0)
		return fd;
	err = f->header_len ? 0 : read_header(f, fd);
	if (err) {
		close(fd);
		return err > 0 ? 0 : err;
	}
	if (fstat(fd, &st) || (uint64_t)st.st_size <= f->off) {
		close(fd);
		return 0;
	}
	f->size = (uint64_t)st.st_size;
	avail = f->size - f->off;
	want = avail > FOLLOW_CHUNK ? FOLLOW_CHUNK : (size_t)avail;
	/* a chunk holding no whole block, cut inside one larger than it: read more of it */
	while (!(err = read_chunk(f, fd, t, want, &got)) && f->end == f->header_len && !f->done &&
	       got == want && want < avail)
		want = avail - want > want ? 2 * want : (size_t)avail;
	close(fd);
	if (err)
		return err;
	f->off += f->end - f->header_len;
	*done = f->done;
	return 0;
}

uint64_t trace_follow_bytes(const struct trace_follow *f)
{
	return f->off;
}

uint64_t trace_follow_unread(const struct trace_follow *f)
{
	return f->done || f->size <= f->off ? 0 : f->size - f->off;
}

int trace_follow_live(const struct trace_follow *f)
{
	return f->live && !f->done;
}

void trace_follow_close(struct trace_follow *f)
{
	if (!f)
		return;
	free(f->path);
	free(f->partial);
	free(f->buf);
	free(f);
}
