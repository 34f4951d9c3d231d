// SPDX-License-Identifier: BSD-2-Clause
/*
 * faults.c - page faults of two kinds, for the system tests:
 *   tc-faults ROUNDS
 * each round write-faults a fresh page (a page is mapped: the RSS changes
 * inside the fault), then read-faults another fresh page (the shared zero
 * page is mapped: no RSS change) and at once unmaps the first (the RSS
 * changes again, in a system call after that fault returned). Prints its
 * thread id ("tid N") and the addresses: "written 0x..." and "read 0x..." for
 * every round.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;

	printf("tid %d\n", (int)gettid());
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
