// SPDX-License-Identifier: BSD-2-Clause
/*
 * ipi.c - causes IPIs on purpose, for the system tests:
 *   tc-ipi CPU_A CPU_B COUNT
 * a thread spins on CPU_B while the main thread, on CPU_A, issues COUNT
 * expedited private membarriers: each one interrupts CPU_B with an IPI
 * (smp_call_function_many -> call_function, or call_function_single).
 */
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_int stop;

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *spin(void *arg)
{
	pin(*(int *)arg);
	while (!atomic_load(&stop))
		;
	return NULL;
}

int main(int argc, char **argv)
{
	int a, b;
	long n;
	pthread_t thr;

	if (argc != 4) {
		fprintf(stderr, "usage: tc-ipi CPU_A CPU_B COUNT\n");
		return 1;
	}
	a = atoi(argv[1]);
	b = atoi(argv[2]);
	n = atol(argv[3]);
	pin(a);
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0)) {
		perror("tc-ipi: membarrier register");
		return 1;
	}
	pthread_create(&thr, NULL, spin, &b);
	usleep(20000);
	for (long i = 0; i < n; i++)
		if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0)) {
			perror("tc-ipi: membarrier");
			return 1;
		}
	atomic_store(&stop, 1);
	pthread_join(thr, NULL);
	return 0;
}
