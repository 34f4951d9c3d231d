// SPDX-License-Identifier: BSD-2-Clause
/*
 * mpiloop.c - tc-mpiloop: a rank loop like a training step's, for the MPI tests and
 * the collective records' benchmark: N times, compute (spin) for WORK usec, then an
 * Allreduce of BYTES on MPI_COMM_WORLD; every 10th step also a Barrier on a
 * communicator of the even or the odd ranks (MPI_Comm_split).
 *
 *   tc-mpiloop N WORK BYTES
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, work = argc > 2 ? atol(argv[2]) : 50;
	long bytes = argc > 3 ? atol(argv[3]) : 8;
	int rank, size, count = (int)(bytes / 8 > 0 ? bytes / 8 : 1);
	double *in, *out;
	uint64_t t0, t;
	MPI_Comm half;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	in = calloc((size_t)count, sizeof(double));
	out = calloc((size_t)count, sizeof(double));
	if (!in || !out)
		MPI_Abort(MPI_COMM_WORLD, 1);
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		for (t = now_ns(); now_ns() - t < (uint64_t)work * 1000;)
			;
		in[0] = (double)i;
		MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		if (i % 10 == 9)
			MPI_Barrier(half);
	}
	if (rank == 0)
		printf("tc-mpiloop: %d ranks, %ld steps of %ld usec work and a %ld-byte Allreduce in "
		       "%.3f s\n",
		       size, n, work, bytes, (double)(now_ns() - t0) / 1e9);
	free(in);
	free(out);
	MPI_Comm_free(&half);
	MPI_Finalize();
	return 0;
}
