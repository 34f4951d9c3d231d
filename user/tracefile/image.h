/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * image.h - private to user/tracefile: a trace file's bytes in memory, mapped
 * where it is a regular file, for the whole-trace reader (trace_file.c) and the
 * streamed one (trace_stream.c).
 */
#ifndef TAILCAUSE_TRACEFILE_IMAGE_H
#define TAILCAUSE_TRACEFILE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

struct image {
	uint8_t *data;
	size_t len;
	int mapped;
	size_t released;    /* mapped pages before this offset are dropped */
	uint64_t file_size; /* a regular file's size (0: a pipe or device, read into memory) */
};

/* Maps path (or reads it, when it is not a regular file); 0 or -errno. */
int image_open(const char *path, struct image *img);
/* The caller is done with data[0, off): its mapped pages are dropped. */
void image_consumed(void *arg, size_t off);
/* Drops the mapped pages of data[from, to) (a block read out of order), and those the
 * kernel mapped around them on a fault (IMAGE_FAULT_AROUND either side: a fault maps
 * the pages around it, and the whole of a large page-cache folio, up to 2 MiB). */
#define IMAGE_FAULT_AROUND ((size_t)2 << 20)
void image_drop(struct image *img, size_t from, size_t to);
void image_close(struct image *img);

/*
 * Decodes img whole into a new trace in *out, dropping its pages as they are read
 * (trace_file.c): 0, or -errno / -EBADMSG (reported, naming path).
 */
int image_read_trace(struct image *img, const char *path, struct tc_trace **out);

#endif /* TAILCAUSE_TRACEFILE_IMAGE_H */
