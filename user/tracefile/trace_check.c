// SPDX-License-Identifier: BSD-2-Clause
/* trace_check.c - a received trace file checked whole before it is kept (trace_file.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/grow.h"
#include "core/trace/trace_codec.h"
#include "lib/log.h"
#include "trace_file.h"

/* The walk's state: the records' blocks as read, and the tables a whole read skips, found
 * for their own decoders. */
struct seen {
	const uint8_t *data;
	size_t released; /* pages before it dropped */
	struct tc_block_ref *blocks;
	size_t n_blocks, cap_blocks;
	size_t index, rtt_hist, rtt_summary;
};

/* A SAMPLES or EVENTS block of t's records noted as its INDEX entry would say. */
static int note_block(struct seen *s, const struct tc_trace *t, uint32_t type, size_t off)
{
	uint64_t lo = UINT64_MAX;

	if (grow(&s->blocks, &s->cap_blocks, s->n_blocks + 1, sizeof(*s->blocks)))
		return -ENOMEM;
	for (size_t i = 0; i < t->n_samples; i++)
		lo = t->samples[i].t_start < lo ? t->samples[i].t_start : lo;
	for (size_t i = 0; i < t->n_events; i++)
		lo = t->events[i].start_ns < lo ? t->events[i].start_ns : lo;
	s->blocks[s->n_blocks++] =
		(struct tc_block_ref){type, off, t->n_samples + t->n_events, lo, 0};
	return 0;
}

/* After each block: its records checked and dropped, its pages too (the page cache
 * keeps them). */
static int drop_block(void *arg, struct tc_trace *t, uint32_t type, size_t off, size_t end)
{
	struct seen *s = arg;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), upto = end / page * page;
	int err = 0;

	if (type == TC_BLOCK_SAMPLES || type == TC_BLOCK_EVENTS)
		err = note_block(s, t, type, off);
	t->n_samples = t->n_events = 0;
	if (type == TC_BLOCK_INDEX)
		s->index = off;
	else if (type == TC_BLOCK_RTT_HIST)
		s->rtt_hist = off;
	else if (type == TC_BLOCK_RTT_SUMMARY)
		s->rtt_summary = off;
	if (upto > s->released) {
		madvise((void *)(s->data + s->released), upto - s->released, MADV_DONTNEED);
		s->released = upto;
	}
	return err;
}

/*
 * The INDEX block: where it lists the blocks the walk found (a streamed read then places
 * them by it), each entry holds its block's records and first start. 0 or -EBADMSG.
 */
static int check_index(const struct seen *s, const struct tc_block_ref *refs, size_t n,
		       struct tc_codec_error *ce)
{
	if (n != s->n_blocks)
		return 0; /* not these blocks: a streamed read does not use it */
	for (size_t i = 0; i < n; i++)
		if (refs[i].type != s->blocks[i].type || refs[i].off != s->blocks[i].off)
			return 0;
	for (size_t i = 0; i < n; i++) {
		const struct tc_block_ref *b = &s->blocks[i];

		if (refs[i].n != b->n || (b->n && refs[i].min_start != b->min_start)) {
			snprintf(ce->msg, sizeof(ce->msg),
				 "the block at offset %" PRIu64 " holds %" PRIu64
				 " records from %" PRIu64 " ns, its index entry says %" PRIu64
				 " from %" PRIu64 " ns",
				 b->off, b->n, b->min_start, refs[i].n, refs[i].min_start);
			return -EBADMSG;
		}
	}
	return 0;
}

/* The INDEX, RTT_HIST and RTT_SUMMARY blocks, decoded as a streamed read decodes them. */
static int check_tables(const uint8_t *data, size_t len, const struct seen *s,
			struct tc_codec_error *ce)
{
	struct tc_block_ref *refs = NULL;
	struct tc_rtt_summary sum;
	struct tc_rtt_hist h = {0};
	size_t n;
	int err = 0;

	if (s->index) {
		err = codec_decode_index(data, len, s->index, &refs, &n, ce);
		err = err ?: check_index(s, refs, n, ce);
		free(refs);
	}
	if (!err && s->rtt_hist) {
		err = tc_rtt_hist__init(&h)
			      ?: codec_decode_rtt_hist(data, len, s->rtt_hist, &h, ce);
		err = err == 1 ? 0 : err; /* another layout: not this reader's to check */
		tc_rtt_hist__free(&h);
	}
	if (!err && s->rtt_summary)
		err = codec_decode_rtt_summary(data, len, s->rtt_summary, &sum, ce);
	return err;
}

/* Every block of data[0, len) decoded within the reader's bounds, through END. */
static int check_image(const uint8_t *data, size_t len, struct tc_codec_error *ce)
{
	struct seen s = {.data = data};
	struct codec_walk walk = {drop_block, &s, 0};
	struct tc_trace *t = trace__new();
	int err = t ? codec_walk(data, len, t, ce, &walk) : -ENOMEM;

	if (!err && t->truncated) {
		snprintf(ce->msg, sizeof(ce->msg), "cut short: no end block");
		err = -EBADMSG;
	}
	err = err ?: check_tables(data, len, &s, ce);
	free(s.blocks);
	trace__free(t);
	return err;
}

int trace_file_check(int fd, const char *name, uint64_t max_bytes)
{
	static const uint8_t empty[1];
	struct tc_codec_error ce = {0};
	const uint8_t *data = empty;
	struct stat st;
	size_t len;
	int err;

	if (fstat(fd, &st)) {
		err = -errno;
		log_err("check %s: %s", name, strerror(-err));
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		log_err("check %s: not a regular file", name);
		return -EINVAL;
	}
	if ((uint64_t)st.st_size > max_bytes || (uint64_t)st.st_size > SIZE_MAX) {
		log_err("check %s: %" PRIu64 " bytes, more than the %" PRIu64 " accepted", name,
			(uint64_t)st.st_size, max_bytes);
		return -EFBIG;
	}
	len = (size_t)st.st_size;
	if (len) {
		void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED) {
			err = -errno;
			log_err("check %s: %s", name, strerror(-err));
			return err;
		}
		madvise(p, len, MADV_SEQUENTIAL);
		data = p;
	}
	err = check_image(data, len, &ce);
	if (len)
		munmap((void *)data, len);
	if (err == -EBADMSG)
		log_err("check %s: not a valid tailcause trace: %s", name, ce.msg);
	else if (err)
		log_err("check %s: %s", name, strerror(-err));
	return err;
}
