// SPDX-License-Identifier: BSD-2-Clause
/* trace_file.c - trace files on disk: streaming writer and whole-file reader. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bigmem.h"
#include "image.h"
#include "core/trace_codec.h"
#include "lib/log.h"
#include "trace_file.h"

struct trace_writer {
	int fd;
	char *path;
	char *partial;
	uint64_t n_events;
	uint64_t n_samples; /* streamed before finish (record --duration) */
	struct tc_buf buf;
};

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Writes out and empties w->buf. */
static int flush(struct trace_writer *w)
{
	int err = write_all(w->fd, w->buf.data, w->buf.len);

	w->buf.len = 0;
	if (err)
		log_err("write %s: %s", w->partial, strerror(-err));
	return err;
}

struct trace_writer *trace_writer__open(const char *path, int force, uint64_t mono_ns,
					uint64_t realtime_ns)
{
	struct trace_writer *w = calloc(1, sizeof(*w));
	struct stat st;
	int err;

	if (!w)
		return NULL;
	w->fd = -1;
	w->path = strdup(path);
	if (!w->path || asprintf(&w->partial, "%s.partial", path) < 0) {
		err = -ENOMEM;
		w->partial = NULL;
		goto out_free;
	}
	if (!force && lstat(path, &st) == 0) {
		err = -EEXIST;
		log_err("write %s: file exists (use --force to overwrite)", path);
		goto out_free;
	}
	/* A stale .partial from a killed run is ours to replace, but never through a link. */
	unlink(w->partial);
	w->fd = open(w->partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (w->fd < 0) {
		err = -errno;
		log_err("create %s: %s", w->partial, strerror(-err));
		goto out_free;
	}
	err = codec_encode_header(&w->buf, mono_ns, realtime_ns);
	if (!err)
		err = flush(w);
	if (err)
		goto out_abort;
	return w;

out_abort:
	trace_writer__abort(w);
	errno = -err;
	return NULL;
out_free:
	free(w->path);
	free(w->partial);
	free(w);
	errno = -err;
	return NULL;
}

int trace_writer__meta(struct trace_writer *w, const struct tc_trace *t)
{
	int err = codec_encode_meta(&w->buf, t);

	if (!err)
		err = codec_encode_threads(&w->buf, t);
	if (!err)
		err = flush(w);
	return err;
}

int trace_writer__events(struct trace_writer *w, const struct tc_event *e, size_t n)
{
	int err;

	if (!n)
		return 0;
	err = codec_encode_events(&w->buf, e, n);
	if (err) {
		log_err("encode events: %s", strerror(-err));
		return err;
	}
	w->n_events += n;
	return flush(w);
}

int trace_writer__samples(struct trace_writer *w, const struct tc_sample *s, size_t n)
{
	int err;

	if (!n)
		return 0;
	err = codec_encode_samples(&w->buf, s, n);
	if (err) {
		log_err("encode samples: %s", strerror(-err));
		return err;
	}
	w->n_samples += n;
	return flush(w);
}

uint64_t trace_writer__n_events(const struct trace_writer *w)
{
	return w->n_events;
}

int trace_writer__finish(struct trace_writer *w, const struct tc_trace *t)
{
	int err = codec_encode_samples(&w->buf, t->samples, t->n_samples);

	if (!err)
		err = codec_encode_irq_names(&w->buf, t);
	if (!err)
		err = codec_encode_drops(&w->buf, t);
	if (!err)
		err = codec_encode_counters(&w->buf, t);
	if (!err)
		err = codec_encode_meta(&w->buf, t); /* the facts only known at the end */
	if (!err)
		err = codec_encode_end(&w->buf, w->n_samples + t->n_samples, w->n_events);
	if (err) {
		log_err("encode trace: %s", strerror(-err));
		goto out_abort;
	}
	err = flush(w);
	if (err)
		goto out_abort;
	if (fsync(w->fd) || close(w->fd)) {
		err = -errno;
		w->fd = -1;
		log_err("sync %s: %s", w->partial, strerror(-err));
		goto out_abort;
	}
	w->fd = -1;
	if (rename(w->partial, w->path)) {
		err = -errno;
		log_err("rename %s to %s: %s", w->partial, w->path, strerror(-err));
		goto out_abort;
	}
	tc_buf_free(&w->buf);
	free(w->path);
	free(w->partial);
	free(w);
	return 0;

out_abort:
	trace_writer__abort(w);
	return err;
}

void trace_writer__abort(struct trace_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (w->partial)
		unlink(w->partial);
	tc_buf_free(&w->buf);
	free(w->path);
	free(w->partial);
	free(w);
}

/* A file's bytes: mapped when it is a regular file, else read into a buffer. */
int trace_file_read(const char *path, struct tc_trace **out)
{
	struct tc_codec_error cerr = {0};
	struct tc_trace *t;
	struct image img;
	int err;

	err = image_open(path, &img);
	if (err) {
		log_err("read %s: %s", path, strerror(-err));
		return err;
	}
	t = trace__new();
	if (!t) {
		image_close(&img);
		return -ENOMEM;
	}
	trace__set_prefault(bigmem_prefault);
	err = codec_decode_release(img.data, img.len, t, &cerr, image_consumed, &img);
	image_close(&img);
	if (err) {
		if (err == -EBADMSG)
			log_err("read %s: not a valid tailcause trace: %s", path, cerr.msg);
		else
			log_err("read %s: %s", path, strerror(-err));
		trace__free(t);
		return err;
	}
	*out = t;
	return 0;
}
