/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * trace_codec.h - the tailcause trace format (.tct), encoded to and decoded
 * from memory. File I/O lives in user/tracefile/trace_file.c.
 *
 * Layout (all integers little-endian):
 *   header  32 bytes: magic "\x89TCT\r\n\x1a\n", u16 version, u16 header_len,
 *           u32 flags (0), u64 mono_ns, u64 realtime_ns
 *   blocks  16-byte block header {u32 type, u32 raw_len, u32 comp_len,
 *           u32 crc32 of the compressed payload}, then comp_len bytes: one
 *           zstd frame (RFC 8878) with its content size, exactly raw_len bytes
 * Versions 1 and 2 differ only in the payload: version 2 a raw deflate stream
 * (RFC 1951), version 1 a zlib stream (RFC 1950), whose adler32 the block's
 * CRC32 already made redundant. Writers write version 3; the reader reads all
 * three (deflate with libdeflate). zstd at level 1 against deflate at level 1
 * on recorded-like blocks: files ~13 % smaller, decompressed 1.3-2x and
 * compressed 2.6-4x as fast (bench/history/overhead-and-analyzer.md).
 * Block payloads are varint/delta encoded records (see codec_internal.h); the
 * encoder is trace_encode.c, the decoder trace_decode.c. A file without an END
 * block, or ending inside a block, is truncated: it decodes up to its last
 * whole block with tc_trace.truncated set. Anything else that does not check
 * out (magic, version, lengths, CRC, the payload's stream, record bounds) is rejected. Block
 * types above the reader's are skipped and event kinds above TC_EV_KIND_MAX
 * kept, so an older reader still reads a newer writer's files.
 */
#ifndef TAILCAUSE_CORE_TRACE_CODEC_H
#define TAILCAUSE_CORE_TRACE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

struct hist;

#define TC_TRACE_MAGIC		 "\x89TCT\r\n\x1a\n"
#define TC_TRACE_VERSION	 3 /* what writers write: zstd payloads */
#define TC_TRACE_VERSION_DEFLATE 2 /* raw deflate payloads (read, no longer written) */
#define TC_TRACE_VERSION_ZLIB	 1 /* oldest the reader reads: zlib-wrapped payloads */
#define TC_TRACE_HEADER_LEN	 32
#define TC_BLOCK_HEADER_LEN	 16
/* Largest raw payload a reader accepts; writers stay well below it. */
#define TC_BLOCK_MAX_RAW (64u << 20)
/*
 * The most a block's payload may expand: raw_len above comp_len times this is refused.
 * A reader sizes what it decodes into from raw_len, so this bounds what a file can make
 * it allocate to a multiple of the file's own size. Recorded and synthetic traces
 * compress several times less; a writer stores the rare block that would compress more
 * (a run of identical records) in a zstd frame of uncompressed blocks.
 */
#define TC_BLOCK_MAX_RATIO 64u
/* Records per SAMPLES/EVENTS/table block a writer emits (bounds what a truncation loses). */
#define TC_BLOCK_RECORDS 65536

enum tc_block_type {
	TC_BLOCK_META = 1,    /* key\0value\0 pairs */
	TC_BLOCK_THREADS = 2, /* struct tc_thread records */
	TC_BLOCK_SAMPLES = 3,
	TC_BLOCK_EVENTS = 4, /* comm string table for the block, then records */
	TC_BLOCK_IRQ_NAMES = 5,
	TC_BLOCK_DROPS = 6,	   /* per-CPU ring-buffer drop counters */
	TC_BLOCK_END = 7,	   /* record totals: its absence marks a truncated file */
	TC_BLOCK_COUNTERS = 8,	   /* struct tc_counter records (IRQ placement, ...) */
	TC_BLOCK_INDEX = 9,	   /* where each SAMPLES and EVENTS block is, and its time span:
				    * read by a streamed report (codec_decode_index()); a whole
				    * read skips it, as readers before it do */
	TC_BLOCK_RTT_HIST = 10,	   /* every round trip's time counted in a histogram, and
				    * summed: a streamed report of the whole run learns its
				    * percentiles' buckets without reading the samples for them
				    * (codec_decode_rtt_hist()); a whole read skips it */
	TC_BLOCK_RTT_SUMMARY = 11, /* the round trips' exact statistics (struct
				    * tc_rtt_summary): a streamed report of the whole run
				    * starts from them and checks them against the samples as
				    * its analysis reads them (codec_decode_rtt_summary()); a
				    * whole read skips it */
};

/* What a RTT_HIST block holds: the round trips' times (tc_sample_rtt()), counted in
 * a histogram (histogram.h) and summed. */
struct tc_rtt_hist {
	struct hist *h;
	uint64_t sum;
	int wrapped; /* the sum passed UINT64_MAX: no block is written */
};

/*
 * What a RTT_SUMMARY block holds, of every round trip (tc_sample_rtt()) of the file: the
 * count, the extremes, the exact percentiles p50, p99, p99.9, p99.99 and p99.999 (the
 * value of rank stats_rank(n, p), core/stats/stats.h), the exact sum and sum of squares (struct
 * moments), the first and last round trip's start, and the CPUs they were timed on,
 * ascending. Writers add one where the sums fit and no percentile is binned.
 */
#define TC_RTT_SUMMARY_PCTS 5
#define TC_RTT_SUMMARY_CPUS 64
struct tc_rtt_summary {
	uint64_t n, min, max;
	uint64_t pct[TC_RTT_SUMMARY_PCTS];
	uint64_t sum;
	unsigned __int128 sumsq;
	uint64_t first_start, last_start;
	uint32_t cpus[TC_RTT_SUMMARY_CPUS];
	size_t n_cpus;
};
/* The percentiles a RTT_SUMMARY block holds, in its order. */
extern const double tc_rtt_summary_pcts[TC_RTT_SUMMARY_PCTS];

/* One SAMPLES or EVENTS block, as the INDEX block lists it. */
struct tc_block_ref {
	uint32_t type;
	uint64_t off;	    /* of its header in the file */
	uint64_t n;	    /* records */
	uint64_t min_start; /* the earliest start among them */
	uint64_t max_end;   /* the latest end (start + duration) */
};

/* A growable byte buffer. */
struct tc_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	struct ZSTD_CCtx_s *zstd; /* the blocks' compressor, made at the first block */
};

/* Frees the buffer's storage and zeroes it. */
void tc_buf_free(struct tc_buf *b);

/* Appends the 32-byte file header; 0 or -ENOMEM. */
int codec_encode_header(struct tc_buf *out, uint64_t mono_ns, uint64_t realtime_ns);
/* Append the blocks of one kind, none when there is nothing to write (META is
 * one block, the others start a new one every TC_BLOCK_RECORDS records);
 * 0 or a negative errno, -E2BIG past a limit the reader enforces (such as
 * 1 << 22 counters in a file). */
int codec_encode_meta(struct tc_buf *out, const struct tc_trace *t);
int codec_encode_threads(struct tc_buf *out, const struct tc_trace *t);
int codec_encode_samples(struct tc_buf *out, const struct tc_sample *s, size_t n);
int codec_encode_events(struct tc_buf *out, const struct tc_event *e, size_t n);
int codec_encode_irq_names(struct tc_buf *out, const struct tc_trace *t);
int codec_encode_drops(struct tc_buf *out, const struct tc_trace *t);
int codec_encode_counters(struct tc_buf *out, const struct tc_trace *t);
/* Appends an INDEX block of the n refs (none: nothing); 0, -ENOMEM or -E2BIG. */
int codec_encode_index(struct tc_buf *out, const struct tc_block_ref *refs, size_t n);
/* An empty one; 0 or -ENOMEM. */
int tc_rtt_hist__init(struct tc_rtt_hist *r);
void tc_rtt_hist__free(struct tc_rtt_hist *r);
/* Counts the round trips s[0..n). */
void tc_rtt_hist_add(struct tc_rtt_hist *r, const struct tc_sample *s, size_t n);
/* Appends a RTT_HIST block of r (none when it is empty or its sum wrapped); 0 or -ENOMEM. */
int codec_encode_rtt_hist(struct tc_buf *out, const struct tc_rtt_hist *r);
/* Appends a RTT_SUMMARY block of s; 0 or -ENOMEM. */
int codec_encode_rtt_summary(struct tc_buf *out, const struct tc_rtt_summary *s);
/* Appends the END block; n_samples/n_events are the totals written before it. */
int codec_encode_end(struct tc_buf *out, uint64_t n_samples, uint64_t n_events);
/* Header, every block of t, END; 0 or a negative errno. */
int codec_encode_trace(struct tc_buf *out, const struct tc_trace *t);

/* Why a decode failed: a human-readable reason with the byte offset. */
struct tc_codec_error {
	size_t offset;
	char msg[160];
};

/*
 * Decodes a whole file image into out (an empty trace from trace__new()).
 * Returns 0 (out->truncated says whether the file was cut short) or
 * -EBADMSG with err filled when the data is not a valid trace, -ENOMEM.
 */
int codec_decode(const uint8_t *data, size_t len, struct tc_trace *out, struct tc_codec_error *err);
/*
 * As codec_decode(), and after each block calls consumed(arg, off): the
 * decoder reads data[0, off) no more, so the caller may release that part of
 * the image (the pages of a mapped file). consumed may be NULL.
 */
int codec_decode_release(const uint8_t *data, size_t len, struct tc_trace *out,
			 struct tc_codec_error *err, void (*consumed)(void *arg, size_t off),
			 void *arg);

/*
 * A walk over the blocks of a file image too large to hold decoded
 * (core/stream/analyze_stream.h): after each block is decoded into out, block(arg, out,
 * type, off, end) is called with the block's type, the offset of its header and the
 * offset after it. It may
 * take the block's samples and events out of out (set n_samples/n_events back);
 * a non-zero return stops the walk and is returned. Nothing is sized ahead.
 */
struct codec_walk {
	int (*block)(void *arg, struct tc_trace *out, uint32_t type, size_t off, size_t end);
	void *arg;
	/* data is a file's header followed by the blocks after some earlier ones (a file
	 * read as it grows): END's totals cannot be checked */
	int tail;
};

/* As codec_decode(), calling walk->block after each block; 0, -EBADMSG, -ENOMEM, or
 * what walk->block returned. */
int codec_walk(const uint8_t *data, size_t len, struct tc_trace *out, struct tc_codec_error *err,
	       const struct codec_walk *walk);

/*
 * The blocks of a file image by their headers alone (nothing inflated, no CRC
 * checked), from the first to END or to where the image is cut: block(arg, type,
 * off, end) for each, end the offset after it; a non-zero return stops the scan and
 * is returned. 0, or -EBADMSG for a bad file header.
 */
int codec_scan(const uint8_t *data, size_t len,
	       int (*block)(void *arg, uint32_t type, size_t off, size_t end), void *arg,
	       struct tc_codec_error *err);
/* The clock pair of the file header into out (mono_ns, realtime_ns); 0 or -EBADMSG. */
/*
 * The RTT_HIST block at data[off] into r (from tc_rtt_hist__init()): 0, 1 when it is
 * of another histogram layout than this reader's (not usable: count the samples),
 * -EBADMSG with err filled (a count or bound that does not check out), -ENOMEM.
 */
int codec_decode_rtt_hist(const uint8_t *data, size_t len, size_t off, struct tc_rtt_hist *r,
			  struct tc_codec_error *err);
/* The RTT_SUMMARY block at data[off] into s: 0, -EBADMSG with err filled, -ENOMEM. */
int codec_decode_rtt_summary(const uint8_t *data, size_t len, size_t off, struct tc_rtt_summary *s,
			     struct tc_codec_error *err);
int codec_decode_header(const uint8_t *data, size_t len, struct tc_trace *out,
			struct tc_codec_error *err);

/* Decodes the INDEX block at data[off] into a new array *refs of *n; 0, -EBADMSG, -ENOMEM. */
int codec_decode_index(const uint8_t *data, size_t len, size_t off, struct tc_block_ref **refs,
		       size_t *n, struct tc_codec_error *err);

/*
 * Decodes the one block whose header is at data[off] (an offset codec_walk()
 * reported) into out, after checking the file header at data[0]: 0, -EBADMSG
 * with err filled, or -ENOMEM.
 */
int codec_decode_block(const uint8_t *data, size_t len, size_t off, struct tc_trace *out,
		       struct tc_codec_error *err);

/*
 * A decoder of one block at a time that keeps its payload buffer and decompressor from
 * one block to the next (a streamed report reads thousands): codec_decode_block() with
 * the allocations made once. NULL (ENOMEM) from __new.
 */
struct codec_blocks;
struct codec_blocks *codec_blocks__new(void);
int codec_blocks_decode(struct codec_blocks *b, const uint8_t *data, size_t len, size_t off,
			struct tc_trace *out, struct tc_codec_error *err);

/* The records (samples or events) of the block codec_blocks_decode() read last. */
struct codec_block_span {
	uint64_t n;	    /* how many */
	uint64_t min_start; /* the earliest start among them; UINT64_MAX: none */
	int in_order;	    /* they came in start order (equal starts included) */
};
void codec_blocks_span(const struct codec_blocks *b, struct codec_block_span *span);
void codec_blocks__free(struct codec_blocks *b);

#endif /* TAILCAUSE_CORE_TRACE_CODEC_H */
