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
#include "core/util/grow.h"
#include "core/stats/histogram.h"
#include "core/trace/rtt_summary.h"
#include "core/stats/stats_exact.h"
#include "core/trace/trace_codec.h"
#include "lib/log.h"
#include "trace_file.h"

struct trace_writer {
	int fd;
	char *path;
	char *partial;
	uint64_t n_events;
	uint64_t n_samples; /* streamed before finish (record --duration) */
	struct tc_buf buf;
	uint64_t off;		  /* bytes written before buf */
	struct tc_block_ref *idx; /* the SAMPLES and EVENTS blocks, for the INDEX block */
	size_t n_idx, cap_idx;
	struct tc_rtt_hist rtt; /* every sample's round trip, for the RTT_HIST block */
	int *keep_fd;		/* trace_writer__finish_keep(): the file's fd goes there */
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

	w->off += w->buf.len;
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
	if (tc_rtt_hist__init(&w->rtt)) {
		err = -ENOMEM;
		w->partial = NULL;
		goto out_free;
	}
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
	/* read too: the round-trip summary reads the samples back at the end */
	w->fd = open(w->partial, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
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
	tc_rtt_hist__free(&w->rtt);
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

int trace_writer__facts(struct trace_writer *w, const struct tc_trace *t)
{
	int err = codec_encode_meta(&w->buf, t);

	if (err)
		log_err("encode meta: %s", strerror(-err));
	return err ?: flush(w);
}

/* Notes where the block about to be encoded goes, and its records' span. */
static int note_block(struct trace_writer *w, uint32_t type, uint64_t n, uint64_t min_start,
		      uint64_t max_end)
{
	if (grow(&w->idx, &w->cap_idx, w->n_idx + 1, sizeof(*w->idx)))
		return -ENOMEM;
	w->idx[w->n_idx++] =
		(struct tc_block_ref){type, w->off + w->buf.len, n, min_start, max_end};
	return 0;
}

/* Encodes records a block at a time (TC_BLOCK_RECORDS), each one noted for the index. */
static int encode_events(struct trace_writer *w, const struct tc_event *e, size_t n)
{
	int err = 0;

	for (size_t i = 0; !err && i < n; i += TC_BLOCK_RECORDS) {
		size_t k = n - i < TC_BLOCK_RECORDS ? n - i : TC_BLOCK_RECORDS;
		uint64_t lo = UINT64_MAX, hi = 0;

		for (size_t j = i; j < i + k; j++) {
			lo = e[j].start_ns < lo ? e[j].start_ns : lo;
			hi = sat_add(e[j].start_ns, e[j].dur_ns) > hi
				     ? sat_add(e[j].start_ns, e[j].dur_ns)
				     : hi;
		}
		err = note_block(w, TC_BLOCK_EVENTS, k, lo, hi);
		err = err ?: codec_encode_events(&w->buf, e + i, k);
	}
	return err;
}

static int encode_samples(struct trace_writer *w, const struct tc_sample *s, size_t n)
{
	int err = 0;

	for (size_t i = 0; !err && i < n; i += TC_BLOCK_RECORDS) {
		size_t k = n - i < TC_BLOCK_RECORDS ? n - i : TC_BLOCK_RECORDS;
		uint64_t lo = UINT64_MAX, hi = 0;

		for (size_t j = i; j < i + k; j++) {
			lo = s[j].t_start < lo ? s[j].t_start : lo;
			hi = s[j].t_end > hi ? s[j].t_end : hi;
		}
		err = note_block(w, TC_BLOCK_SAMPLES, k, lo, hi);
		err = err ?: codec_encode_samples(&w->buf, s + i, k);
		tc_rtt_hist_add(&w->rtt, s + i, k);
	}
	return err;
}

int trace_writer__events(struct trace_writer *w, const struct tc_event *e, size_t n)
{
	int err;

	if (!n)
		return 0;
	err = encode_events(w, e, n);
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
	err = encode_samples(w, s, n);
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

static int read_all(int fd, uint8_t *p, size_t n, uint64_t off)
{
	while (n) {
		ssize_t r = pread(fd, p, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

/* The written SAMPLES block ref, decoded into v (a file header, then the block, in *buf). */
static int read_back(struct trace_writer *w, const struct tc_block_ref *ref, uint8_t **buf,
		     size_t *cap, struct codec_blocks *dec, struct tc_trace *v)
{
	struct tc_codec_error ce = {0};
	uint8_t *h = *buf + TC_TRACE_HEADER_LEN;
	size_t len;
	int err = read_all(w->fd, h, TC_BLOCK_HEADER_LEN, ref->off);

	if (err)
		return err;
	len = TC_TRACE_HEADER_LEN + TC_BLOCK_HEADER_LEN +
	      ((size_t)h[8] | (size_t)h[9] << 8 | (size_t)h[10] << 16 | (size_t)h[11] << 24);
	if (grow(buf, cap, len, 1))
		return -ENOMEM;
	h = *buf + TC_TRACE_HEADER_LEN;
	err = read_all(w->fd, h + TC_BLOCK_HEADER_LEN,
		       len - TC_TRACE_HEADER_LEN - TC_BLOCK_HEADER_LEN,
		       ref->off + TC_BLOCK_HEADER_LEN);
	v->n_samples = v->n_events = 0;
	err = err ?: codec_blocks_decode(dec, *buf, len, TC_TRACE_HEADER_LEN, v, &ce);
	if (err == -EBADMSG)
		log_err("read back %s: %s", w->partial, ce.msg);
	return err;
}

/*
 * The RTT_SUMMARY block of the samples written (all of them, in the file: flushed),
 * read back a block at a time: their exact statistics over the writer's histogram
 * (stats_exact.h), and what else the summary holds. None where it has nothing to say
 * (rtt_summary_make()); 0 or a negative errno (said).
 */
static int encode_summary(struct trace_writer *w, const struct tc_trace *t)
{
	struct tc_buf hdr = {0};
	struct stats_exact st;
	struct rtt_tally tally;
	struct tc_rtt_summary sum;
	struct lat_summary ls;
	struct codec_blocks *dec = NULL;
	struct tc_trace *v = NULL;
	uint8_t *buf = NULL;
	size_t cap = 0;
	uint64_t pct;
	int err;

	if (!w->rtt.h || !w->rtt.h->total || w->rtt.wrapped)
		return 0;
	rtt_tally__init(&tally, NULL); /* without a summary to check: nothing allocated */
	err = stats_exact__init(&st);
	dec = codec_blocks__new();
	v = trace__view(t);
	err = err ?: (dec && v ? 0 : -ENOMEM);
	err = err ?: codec_encode_header(&hdr, 0, 0);
	err = err ?: grow(&buf, &cap, hdr.len + TC_BLOCK_HEADER_LEN, 1);
	if (!err) {
		memcpy(buf, hdr.data, hdr.len);
		stats_exact_given(&st, w->rtt.h);
		err = stats_exact_begin(&st, tc_rtt_summary_pcts[0]);
	}
	for (size_t i = 0; !err && i < w->n_idx; i++) {
		if (w->idx[i].type != TC_BLOCK_SAMPLES)
			continue;
		err = read_back(w, &w->idx[i], &buf, &cap, dec, v);
		for (size_t j = 0; !err && j < v->n_samples; j++)
			stats_exact_select(&st, tc_sample_rtt(&v->samples[j]));
		if (!err)
			rtt_tally_add(&tally, v->samples, v->n_samples);
	}
	err = err ?: stats_exact_finish(&st, &ls, &pct);
	if (!err && !rtt_summary_make(&sum, &tally, &ls))
		err = codec_encode_rtt_summary(&w->buf, &sum);
	if (err && err != -EBADMSG) /* a block that did not decode was said */
		log_err("summarize %s: %s", w->partial, strerror(-err));
	stats_exact__free(&st);
	rtt_tally__free(&tally);
	codec_blocks__free(dec);
	trace__free_view(v);
	tc_buf_free(&hdr);
	free(buf);
	return err;
}

int trace_writer__finish(struct trace_writer *w, const struct tc_trace *t)
{
	int err = encode_samples(w, t->samples, t->n_samples);

	if (!err)
		err = codec_encode_irq_names(&w->buf, t);
	if (!err)
		err = codec_encode_drops(&w->buf, t);
	if (!err)
		err = codec_encode_counters(&w->buf, t);
	if (!err)
		err = codec_encode_meta(&w->buf, t); /* the facts only known at the end */
	if (!err)
		err = codec_encode_rtt_hist(&w->buf, &w->rtt);
	if (err) {
		log_err("encode trace: %s", strerror(-err));
		goto out_abort;
	}
	/* every sample in the file, for the summary that reads them back (each says why) */
	err = flush(w) ?: encode_summary(w, t);
	if (err)
		goto out_abort;
	err = codec_encode_index(&w->buf, w->idx, w->n_idx);
	if (!err)
		err = codec_encode_end(&w->buf, w->n_samples + t->n_samples, w->n_events);
	if (err) {
		log_err("encode trace: %s", strerror(-err));
		goto out_abort;
	}
	err = flush(w);
	if (err)
		goto out_abort;
	if (fsync(w->fd) || (!w->keep_fd && close(w->fd))) {
		err = -errno;
		if (!w->keep_fd)
			w->fd = -1;
		log_err("sync %s: %s", w->partial, strerror(-err));
		goto out_abort;
	}
	if (rename(w->partial, w->path)) {
		err = -errno;
		log_err("rename %s to %s: %s", w->partial, w->path, strerror(-err));
		goto out_abort;
	}
	if (w->keep_fd)
		*w->keep_fd = w->fd;
	tc_buf_free(&w->buf);
	tc_rtt_hist__free(&w->rtt);
	free(w->idx);
	free(w->path);
	free(w->partial);
	free(w);
	return 0;

out_abort:
	trace_writer__abort(w);
	return err;
}

int trace_writer__finish_keep(struct trace_writer *w, const struct tc_trace *t, int *fd)
{
	*fd = -1;
	w->keep_fd = fd;
	return trace_writer__finish(w, t);
}

int trace_writer__fd(const struct trace_writer *w)
{
	return w ? w->fd : -1;
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
	tc_rtt_hist__free(&w->rtt);
	free(w->idx);
	free(w->path);
	free(w->partial);
	free(w);
}

int image_read_trace(struct image *img, const char *path, struct tc_trace **out)
{
	struct tc_codec_error cerr = {0};
	struct tc_trace *t = trace__new();
	int err;

	if (!t)
		return -ENOMEM;
	trace__set_prefault(bigmem_prefault);
	err = codec_decode_release(img->data, img->len, t, &cerr, image_consumed, img);
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

/* A file's bytes: mapped when it is a regular file, else read into a buffer. */
int trace_file_read(const char *path, struct tc_trace **out)
{
	struct image img;
	int err;

	err = image_open(path, &img);
	if (err) {
		log_err("read %s: %s", path, strerror(-err));
		return err;
	}
	err = image_read_trace(&img, path, out);
	image_close(&img);
	return err;
}
