/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * varint.h - LEB128 varints and zigzag, as the trace codec stores integers.
 *
 * A varint is 7 bits per byte, least significant group first, the high bit
 * set on every byte but the last; a uint64_t takes 1 to 10 bytes.
 */
#ifndef TAILCAUSE_CORE_VARINT_H
#define TAILCAUSE_CORE_VARINT_H

#include <stddef.h>
#include <stdint.h>

/* Longest encoding of a uint64_t. */
#define VARINT_MAX_LEN 10

/* Writes v at p (room for VARINT_MAX_LEN bytes); returns the bytes written. */
static inline size_t varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* varint_get() past its fast path: any length, every byte bounds-checked. */
static inline int varint_get_slow(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t r = 0;
	unsigned int shift;

	for (shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (q >= end)
			return -1;
		b = *q++;
		/* the 10th byte carries bit 63 only; a last byte of 0 pads an overlong form */
		if ((shift == 63 && b > 1) || (!b && shift))
			return -1;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			*p = q;
			return 0;
		}
	}
	return -1;
}

/*
 * varint_get()'s fast path, unrolled: values of up to 3 bytes (21 bits: deltas,
 * durations, CPUs, tids, flags), read where at least 3 bytes are. 0 (read, *p
 * advanced), -1 (a last byte of 0: an overlong form), or 1 (a longer value: the
 * slow path reads it).
 */
static inline int varint_get3(const uint8_t **p, uint64_t *v)
{
	const uint8_t *q = *p;

	if (q[0] < 0x80) {
		*v = q[0];
		*p = q + 1;
		return 0;
	}
	if (q[1] < 0x80) {
		if (!q[1])
			return -1;
		*v = (uint64_t)(q[0] & 0x7f) | (uint64_t)q[1] << 7;
		*p = q + 2;
		return 0;
	}
	if (q[2] < 0x80) {
		if (!q[2])
			return -1;
		*v = (uint64_t)(q[0] & 0x7f) | (uint64_t)(q[1] & 0x7f) << 7 | (uint64_t)q[2] << 14;
		*p = q + 3;
		return 0;
	}
	return 1;
}

/*
 * Reads a varint from *p, never past end, and advances *p. Returns 0, or -1
 * when the data ends inside the varint, the value does not fit 64 bits or the
 * encoding is not the shortest one (so each value has exactly one form).
 */
static inline int varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	int r = end - *p >= 3 ? varint_get3(p, v) : 1;

	return r <= 0 ? r : varint_get_slow(p, end, v);
}

/*
 * varint_get() where the caller knows VARINT_MAX_LEN bytes are left at *p (a
 * varint never reads more, even a malformed one): no bound is compared on the fast
 * path. A decoder checks once for a record's worth of bytes, not once per field.
 */
static inline int varint_get_room(const uint8_t **p, uint64_t *v)
{
	int r = varint_get3(p, v);

	return r <= 0 ? r : varint_get_slow(p, *p + VARINT_MAX_LEN, v);
}

/* Maps a signed value to unsigned so small magnitudes stay short: 0,-1,1,-2 -> 0,1,2,3. */
static inline uint64_t varint_zigzag(int64_t v)
{
	uint64_t u = (uint64_t)v;

	return (u << 1) ^ (0 - (u >> 63));
}

/* Inverse of varint_zigzag(). */
static inline int64_t varint_unzigzag(uint64_t u)
{
	return (int64_t)((u >> 1) ^ (0 - (u & 1)));
}

#endif /* TAILCAUSE_CORE_VARINT_H */
