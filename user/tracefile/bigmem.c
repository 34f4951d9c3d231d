// SPDX-License-Identifier: BSD-2-Clause
/* bigmem.c - huge-page and populate advice for the large arrays a trace is read into. */
#include "bigmem.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

void bigmem_prefault(void *arr, size_t cap, size_t from, size_t bytes)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo, hi, start, end;

	if (cap < TC_BIGMEM_MIN || from > cap || bytes > cap - from || page == 0 ||
	    page == (uintptr_t)-1)
		return;
	/* the whole pages inside the array; malloc's header page stays as it is */
	lo = ((uintptr_t)arr + page - 1) & ~(page - 1);
	hi = ((uintptr_t)arr + cap) & ~(page - 1);
	if (hi <= lo)
		return;
	/* the pages the room lies on: those it shares with the records around it as well */
	start = ((uintptr_t)arr + from) & ~(page - 1);
	end = ((uintptr_t)arr + from + bytes + page - 1) & ~(page - 1);
	start = start < lo ? lo : start;
	end = end > hi ? hi : end;
	/* the whole array, so that the huge pages of each room line up (a flag, no memory) */
	(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
	if (end > start)
		(void)madvise((void *)start, end - start, MADV_POPULATE_WRITE);
}
