// SPDX-License-Identifier: BSD-2-Clause
/* bigmem.c - huge-page and populate advice for the large arrays a trace is read into. */
#include "bigmem.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

void bigmem_prefault(void *p, size_t bytes)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start, end;

	if (bytes < TC_BIGMEM_MIN || page == 0 || page == (uintptr_t)-1)
		return;
	/* the whole pages inside the region; malloc's header page stays as it is */
	start = ((uintptr_t)p + page - 1) & ~(page - 1);
	end = ((uintptr_t)p + bytes) & ~(page - 1);
	if (end <= start)
		return;
	(void)madvise((void *)start, end - start, MADV_HUGEPAGE);
	(void)madvise((void *)start, end - start, MADV_POPULATE_WRITE);
}
