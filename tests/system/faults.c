// SPDX-License-Identifier: BSD-2-Clause
/*
 * faults.c - page faults of two kinds, for the system tests:
 *   tc-faults ROUNDS
 * each round write-faults a fresh page (a page is mapped: the RSS changes
 * inside the fault), then read-faults another fresh page (the shared zero
 * page is mapped: no RSS change) and at once unmaps the first (the RSS
 * changes again, in a system call after that fault returned). Prints its
 * thread id ("tid N"), whether this kernel maps the zero page on a read fault
 * ("zero_page 1": 64 read faults changed the RSS by less than 32 pages; some
 * kernels map a fresh page instead), and the addresses: "written 0x..." and
 * "read 0x..." for every round.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Resident pages of this process. */
static long rss_pages(void)
{
	long size = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f || fscanf(f, "%ld %ld", &size, &rss) != 2)
		rss = -1;
	if (f)
		fclose(f);
	return rss;
}

/* Whether read faults of fresh anonymous pages map the shared zero page here. */
static int maps_zero_page(void)
{
	volatile char *p =
		mmap(NULL, 64 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long before = rss_pages(), after;

	if (p == MAP_FAILED)
		return 0;
	for (int i = 0; i < 64; i++)
		(void)p[i * 4096];
	after = rss_pages();
	munmap((void *)p, 64 * 4096);
	return before >= 0 && after >= 0 && after - before < 32;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;

	printf("tid %d\nzero_page %d\n", (int)gettid(), maps_zero_page());
	for (int i = 0; i < rounds; i++) {
		char *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			       0);
		volatile char *r = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (w == MAP_FAILED || r == MAP_FAILED)
			return 1;
		w[0] = 1;
		(void)r[0];
		munmap(w, 4096);
		printf("written %p\nread %p\n", (void *)w, (void *)r);
		munmap((void *)r, 4096);
	}
	return 0;
}
