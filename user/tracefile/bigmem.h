/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bigmem.h - how the large arrays a trace is read into (its samples and
 * events: hundreds of MB to GB) get their memory. trace_file_read() hands
 * bigmem_prefault() to core (trace__set_prefault()).
 *
 * Touching fresh anonymous memory a 4 KiB page at a time costs a page fault,
 * a charge and an LRU insertion per page: on a 50 M-event trace that was
 * more time than decoding it. A large array is instead backed by transparent
 * huge pages where the host allows them (THP "madvise" or "always"), and each
 * block's records are faulted in by one call, just before the decoder writes
 * them: never the room reserved ahead, which a damaged or hostile file's
 * lengths could make far larger than what it holds.
 */
#ifndef TAILCAUSE_TRACEFILE_BIGMEM_H
#define TAILCAUSE_TRACEFILE_BIGMEM_H

#include <stddef.h>

/* Arrays smaller than this are left to the first touch. */
#define TC_BIGMEM_MIN ((size_t)64 << 20)

/*
 * Advises the array arr of cap bytes that [arr + from, arr + from + bytes) is written
 * next: huge pages for the array, then the room's pages populated for writing. A hint:
 * without THP or on kernels before 5.14 (no MADV_POPULATE_WRITE) nothing changes but
 * the speed. Arrays under TC_BIGMEM_MIN are ignored.
 */
void bigmem_prefault(void *arr, size_t cap, size_t from, size_t bytes);

#endif /* TAILCAUSE_TRACEFILE_BIGMEM_H */
