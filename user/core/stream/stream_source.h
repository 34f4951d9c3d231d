/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stream_source.h - where a streamed analysis reads a trace's records from: its SAMPLES
 * and EVENTS blocks, each read on demand (the file's, user/tracefile/trace_stream.c;
 * memory's, in the tests).
 */
#ifndef TAILCAUSE_CORE_STREAM_SOURCE_H
#define TAILCAUSE_CORE_STREAM_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

/* One SAMPLES or EVENTS block of the trace. */
struct stream_block {
	uint32_t type;	    /* TC_BLOCK_SAMPLES or TC_BLOCK_EVENTS (core/trace/trace_codec.h) */
	size_t where;	    /* the source's handle (the block's file offset) */
	size_t len;	    /* its bytes in the source (0: not known) */
	uint64_t n;	    /* records */
	uint64_t min_start; /* the earliest start among them */
};

/* Where the blocks come from. */
struct stream_source {
	const struct stream_block *blocks; /* in any order */
	size_t n_blocks;
	/* Appends block b's records to t's samples or events: 1 when they came in start
	 * order, 0 when they may not have, or a negative errno. */
	int (*read)(void *arg, const struct stream_block *b, struct tc_trace *t);
	void *arg;
};

#endif /* TAILCAUSE_CORE_STREAM_SOURCE_H */
