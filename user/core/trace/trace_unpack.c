// SPDX-License-Identifier: BSD-2-Clause
/*
 * trace_unpack.c - a block's payload decompressed for the decoder (decode_internal.h):
 * zstd for version 3 files, raw deflate for version 2, zlib for version 1 (libdeflate),
 * to exactly the length its header says.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <libdeflate.h>
#include <zlib.h> /* compressBound: what a deflate writer can produce */
#include <zstd.h>
#include <zstd_errors.h>

#include "decode_internal.h"

/* Room for raw_len bytes in d->raw: 0 or -ENOMEM. */
static int raw_room(struct dec *d, uint32_t raw_len)
{
	uint8_t *p;

	if (raw_len <= d->raw_cap && d->raw)
		return 0;
	p = realloc(d->raw, raw_len ? raw_len : 1);
	if (!p)
		return -ENOMEM;
	d->raw = p;
	d->raw_cap = raw_len;
	return 0;
}

/* Inflates a version 1 or 2 payload into d->raw: it must come to exactly raw_len bytes. */
static int inflate_block(struct dec *d, const uint8_t *src, uint32_t comp_len, uint32_t raw_len)
{
	int zlib = d->version == TC_TRACE_VERSION_ZLIB;
	size_t in_used;
	int res;

	if (!d->inflater && !(d->inflater = libdeflate_alloc_decompressor()))
		return -ENOMEM;
	if (zlib)
		res = libdeflate_zlib_decompress_ex(d->inflater, src, comp_len, d->raw, raw_len,
						    &in_used, &d->out_len);
	else
		res = libdeflate_deflate_decompress_ex(d->inflater, src, comp_len, d->raw, raw_len,
						       &in_used, &d->out_len);
	if (res == LIBDEFLATE_INSUFFICIENT_SPACE)
		return codec_bfail(d, "payload inflates to more than raw_len %" PRIu32, raw_len);
	if (res != LIBDEFLATE_SUCCESS)
		return codec_bfail(d, "%s stream corrupt or cut short", zlib ? "zlib" : "deflate");
	if (in_used != comp_len)
		return codec_bfail(d, "bytes after the deflate stream");
	return 0;
}

/* Decompresses a version 3 payload, one zstd frame, into d->raw: exactly raw_len bytes. */
static int unzstd_block(struct dec *d, const uint8_t *src, uint32_t comp_len, uint32_t raw_len)
{
	unsigned long long size = ZSTD_getFrameContentSize(src, comp_len);
	size_t frame = ZSTD_findFrameCompressedSize(src, comp_len);

	if (size == ZSTD_CONTENTSIZE_ERROR || ZSTD_isError(frame))
		return codec_bfail(d, "zstd frame corrupt or cut short");
	if (size == ZSTD_CONTENTSIZE_UNKNOWN)
		return codec_bfail(d, "zstd frame without its content size");
	if (size > raw_len)
		return codec_bfail(d, "payload inflates to more than raw_len %" PRIu32, raw_len);
	if (frame != comp_len)
		return codec_bfail(d, "bytes after the zstd frame");
	if (!d->zstd && !(d->zstd = ZSTD_createDCtx()))
		return -ENOMEM;
	d->out_len = ZSTD_decompressDCtx(d->zstd, d->raw, raw_len, src, comp_len);
	if (ZSTD_isError(d->out_len))
		return ZSTD_getErrorCode(d->out_len) == ZSTD_error_memory_allocation
			       ? -ENOMEM
			       : codec_bfail(d, "zstd frame corrupt: %s",
					     ZSTD_getErrorName(d->out_len));
	return 0;
}

/* decode_internal.h */
int dec_unpack(struct dec *d, const uint8_t *src, uint32_t comp_len, uint32_t raw_len)
{
	int err = raw_room(d, raw_len);

	if (!err)
		err = d->version >= TC_TRACE_VERSION ? unzstd_block(d, src, comp_len, raw_len)
						     : inflate_block(d, src, comp_len, raw_len);
	if (err)
		return err;
	if (d->out_len != raw_len)
		return codec_bfail(d, "payload inflates to %zu bytes, raw_len says %" PRIu32,
				   d->out_len, raw_len);
	return 0;
}

/* decode_internal.h */
size_t dec_comp_bound(const struct dec *d, uint32_t raw_len)
{
	return d->version >= TC_TRACE_VERSION ? ZSTD_compressBound(raw_len)
					      : compressBound(raw_len);
}
