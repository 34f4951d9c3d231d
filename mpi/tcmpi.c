// SPDX-License-Identifier: BSD-2-Clause
/*
 * tcmpi.c - libtailcause-mpi: the MPI profiling interface's wrappers that stamp each
 * collective call's entry and exit on CLOCK_MONOTONIC (the tracers' clock) for
 * `tailcause record --iter mpi`, which preloads it into the ranks.
 *
 * A uprobe traps on every hit (~10 us on a VM, more than a small collective takes);
 * these wrappers cost two vDSO clock reads and a store into a file mapped shared
 * (mpi/coll.h). Nothing is sent between ranks: each communicator's key is made from
 * what every member knows alike, the world ranks of its members in order, and how
 * many communicators with those members this process had used before (a duplicate
 * first used in a different order on different ranks gets a different key on each:
 * its calls are then reported as communicators seen by some ranks only).
 *
 * Recorded: the blocking Allreduce, Reduce, Bcast, Barrier, Allgather, Alltoall,
 * Reduce_scatter and Reduce_scatter_block on intra-communicators. Not recorded: the
 * nonblocking and persistent collectives, the v and w variants, Gather, Scatter, Scan,
 * neighbourhood collectives and inter-communicators. Without TAILCAUSE_COLL_DIR, or
 * where the file cannot be made, the wrappers only pass the calls on.
 */
#include <fcntl.h>
#include <sched.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "coll.h"

struct comm_state {
	uint64_t key;
	uint64_t seq; /* calls so far on this communicator (one at a time: MPI says so) */
	int rank, size;
};

static struct tc_coll_hdr *hdr; /* NULL: not recording */
static struct tc_coll_rec *recs;
static uint8_t *commit; /* a byte a block: set once the block is whole in the file */

/*
 * Each thread's block, gathered in its own memory. The threads that have one are
 * listed, so that MPI_Finalize copies the blocks of all (no MPI call runs then).
 */
struct block {
	struct tc_coll_rec rec[TC_COLL_BLOCK];
	unsigned int n;
};
#define MAX_THREADS 256
static struct block *blocks[MAX_THREADS];
static unsigned int n_blocks;
static __thread struct block *mine;
static int keyval = MPI_KEYVAL_INVALID;
static pthread_mutex_t first_use = PTHREAD_MUTEX_INITIALIZER;
static __thread uint32_t my_tid; /* 0 until this thread's first record: gettid is a system call */
/*
 * The communicator this thread used last and its state: most programs call one
 * communicator's collectives over and over, and an attribute lookup takes a lock in
 * some MPI libraries. A freed communicator's handle can come back for a new one:
 * every free moves freed_gen, and a cache of an older generation is not used.
 */
static uint64_t freed_gen;
static __thread struct {
	MPI_Comm comm;
	struct comm_state *st;
	uint64_t gen;
	int valid;
} last;

/* Member sets seen so far and how often: the ordinal in a communicator's key. */
#define SEEN_MAX 256
static struct {
	uint64_t members;
	uint32_t n;
} seen[SEEN_MAX];
static size_t n_seen;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t fnv1a(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * 0x100000001b3ull;
	return h;
}

static int drop_state(MPI_Comm comm, int kv, void *attr, void *extra)
{
	(void)comm, (void)kv, (void)extra;
	__atomic_fetch_add(&freed_gen, 1, __ATOMIC_RELEASE);
	free(attr);
	return MPI_SUCCESS;
}

/* The world ranks of comm's members in order, hashed, and this set's use so far. */
static uint64_t comm_key(MPI_Comm comm, int size)
{
	MPI_Group group, world;
	int *in = malloc(2 * (size_t)size * sizeof(int));
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t ord = 0;
	size_t i;

	if (!in)
		return 0;
	for (int r = 0; r < size; r++)
		in[r] = r;
	PMPI_Comm_group(comm, &group);
	PMPI_Comm_group(MPI_COMM_WORLD, &world);
	PMPI_Group_translate_ranks(group, size, in, world, in + size);
	PMPI_Group_free(&group);
	PMPI_Group_free(&world);
	for (int r = 0; r < size; r++)
		h = fnv1a(h, (uint64_t)(int64_t)in[size + r]);
	free(in);
	for (i = 0; i < n_seen && seen[i].members != h; i++)
		;
	if (i < n_seen)
		ord = ++seen[i].n;
	else if (n_seen < SEEN_MAX)
		seen[n_seen++].members = h;
	return fnv1a(h, ord);
}

/* comm's state, made at its first collective (under first_use). */
static struct comm_state *new_state(MPI_Comm comm)
{
	struct comm_state *st;
	int found = 0, inter = 0;

	if (PMPI_Comm_get_attr(comm, keyval, &st, &found) == MPI_SUCCESS && found)
		return st; /* another thread made it meanwhile */
	if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter ||
	    !(st = calloc(1, sizeof(*st))))
		return NULL;
	PMPI_Comm_rank(comm, &st->rank);
	PMPI_Comm_size(comm, &st->size);
	st->key = comm_key(comm, st->size);
	if (PMPI_Comm_set_attr(comm, keyval, st) != MPI_SUCCESS) {
		free(st);
		return NULL;
	}
	return st;
}

/* comm's state; NULL when it is not recorded (an inter-communicator, no memory). */
static struct comm_state *state_of(MPI_Comm comm)
{
	uint64_t gen = __atomic_load_n(&freed_gen, __ATOMIC_ACQUIRE);
	struct comm_state *st;
	int found = 0;

	if (last.valid && last.comm == comm && last.gen == gen)
		return last.st;
	if (PMPI_Comm_get_attr(comm, keyval, &st, &found) != MPI_SUCCESS || !found) {
		pthread_mutex_lock(&first_use);
		st = new_state(comm);
		pthread_mutex_unlock(&first_use);
	}
	if (st) {
		last.comm = comm;
		last.st = st;
		last.gen = gen;
		last.valid = 1;
	}
	return st;
}

/* A store that bypasses the cache (x86-64's movnti): nothing reads the file here. */
static inline void stream64(void *p, uint64_t v)
{
#if defined(__x86_64__)
	__builtin_ia32_movnti64((long long *)p, (long long)v);
#else
	*(uint64_t *)p = v;
#endif
}

static inline void store_fence(void)
{
#if defined(__x86_64__)
	__builtin_ia32_sfence();
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* Copies b into the file at a block's place of its own, then commits it. */
static void flush(struct block *b)
{
	uint64_t at;

	if (!b->n || !hdr)
		return;
	at = __atomic_fetch_add(&hdr->count, TC_COLL_BLOCK, __ATOMIC_RELAXED);
	if (at + TC_COLL_BLOCK > hdr->capacity) {
		__atomic_fetch_add(&hdr->lost, b->n, __ATOMIC_RELAXED);
		b->n = 0;
		return;
	}
	for (unsigned int i = 0; i < b->n; i++) {
		const uint64_t *src = (const uint64_t *)&b->rec[i];
		uint64_t *dst = (uint64_t *)&recs[at + i];

		for (size_t w = 0; w < sizeof(b->rec[i]) / 8; w++)
			stream64(&dst[w], src[w]);
	}
	store_fence(); /* the records are in the file before the commit says so */
	__atomic_store_n(&commit[at / TC_COLL_BLOCK], 1, __ATOMIC_RELEASE);
	b->n = 0;
}

/* This thread's block, made and listed at its first record; NULL past MAX_THREADS. */
static struct block *my_block(void)
{
	unsigned int i;

	if (mine)
		return mine;
	i = __atomic_fetch_add(&n_blocks, 1, __ATOMIC_RELAXED);
	if (i >= MAX_THREADS || !(mine = calloc(1, sizeof(*mine))))
		return NULL;
	__atomic_store_n(&blocks[i], mine, __ATOMIC_RELEASE);
	return mine;
}

static void record(enum tc_coll_op op, MPI_Comm comm, uint64_t bytes, uint64_t t_in, uint32_t cpu)
{
	uint64_t t_out = now_ns();
	struct comm_state *st;
	struct tc_coll_rec *r;
	struct block *b;

	if (!hdr || !(st = state_of(comm)) || !(b = my_block())) {
		if (hdr)
			__atomic_fetch_add(&hdr->lost, 1, __ATOMIC_RELAXED);
		return;
	}
	if (!my_tid)
		my_tid = (uint32_t)syscall(SYS_gettid);
	r = &b->rec[b->n++];
	r->t_in = t_in;
	r->t_out = t_out;
	r->comm = st->key;
	r->seq = st->seq++; /* MPI: one collective at a time on a communicator */
	r->bytes = bytes;
	r->tid = my_tid;
	r->op = (uint16_t)op;
	r->pad = 0;
	r->comm_rank = st->rank;
	r->comm_size = st->size;
	r->cpu = cpu;
	r->pad2 = 0;
	if (b->n == TC_COLL_BLOCK || t_out - b->rec[0].t_in > TC_COLL_FLUSH_NS)
		flush(b);
}

static uint64_t bytes_of(int count, MPI_Datatype type)
{
	int size = 0;

	if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS)
		return 0;
	return (uint64_t)count * (uint64_t)(size > 0 ? size : 0);
}

/* The file for this rank: TAILCAUSE_COLL_DIR/coll.<pid>, mapped shared. */
static void open_file(void)
{
	const char *dir = getenv(TC_COLL_ENV_DIR), *max = getenv(TC_COLL_ENV_MAX);
	unsigned long cap = max ? strtoul(max, NULL, 10) : TC_COLL_DEFAULT_MAX;
	char path[4096], lib[MPI_MAX_LIBRARY_VERSION_STRING], host[MPI_MAX_PROCESSOR_NAME];
	size_t bytes, commit_off, recs_off;
	int fd, len;
	void *m;

	if (!dir || !*dir || cap == 0 || cap > TC_COLL_MAX_MAX)
		return;
	if (snprintf(path, sizeof(path), "%s/coll.%d", dir, (int)getpid()) >= (int)sizeof(path))
		return;
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return;
	cap = (cap + TC_COLL_BLOCK - 1) / TC_COLL_BLOCK * TC_COLL_BLOCK;
	commit_off = sizeof(*hdr);
	recs_off = (commit_off + cap / TC_COLL_BLOCK + 63) / 64 * 64;
	bytes = recs_off + cap * sizeof(struct tc_coll_rec);
	m = ftruncate(fd, (off_t)bytes)
		    ? MAP_FAILED
		    : mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		unlink(path);
		return;
	}
	hdr = m;
	commit = (uint8_t *)m + commit_off;
	recs = (struct tc_coll_rec *)((char *)m + recs_off);
	/*
	 * Every page written once now, not at a call: where the host backs the guest's
	 * memory lazily, a call's first write to a page cost ~150 ns more on the project's
	 * VM (mapping it populated made no difference).
	 */
	memset(recs, 0, cap * sizeof(*recs));
	hdr->commit_off = commit_off;
	hdr->recs_off = recs_off;
	memcpy(hdr->magic, TC_COLL_MAGIC, sizeof(hdr->magic));
	hdr->version = TC_COLL_VERSION;
	hdr->rec_size = sizeof(struct tc_coll_rec);
	hdr->capacity = cap;
	hdr->pid = (uint32_t)getpid();
	hdr->tid = (uint32_t)syscall(SYS_gettid);
	PMPI_Comm_rank(MPI_COMM_WORLD, &hdr->world_rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &hdr->world_size);
	if (PMPI_Get_library_version(lib, &len) == MPI_SUCCESS)
		snprintf(hdr->library, sizeof(hdr->library), "%.*s", (int)strcspn(lib, "\n,"), lib);
	if (PMPI_Get_processor_name(host, &len) == MPI_SUCCESS)
		snprintf(hdr->host, sizeof(hdr->host), "%.63s", host);
}

static void start(void)
{
	if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, drop_state, &keyval, NULL) ==
	    MPI_SUCCESS)
		open_file();
}

int MPI_Init(int *argc, char ***argv)
{
	int err = PMPI_Init(argc, argv);

	if (err == MPI_SUCCESS)
		start();
	return err;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int err = PMPI_Init_thread(argc, argv, required, provided);

	if (err == MPI_SUCCESS)
		start();
	return err;
}

int MPI_Finalize(void)
{
	unsigned int n = __atomic_load_n(&n_blocks, __ATOMIC_ACQUIRE);

	for (unsigned int i = 0; i < n && i < MAX_THREADS; i++)
		if (__atomic_load_n(&blocks[i], __ATOMIC_ACQUIRE))
			flush(blocks[i]);
	if (hdr)
		__atomic_store_n(&hdr->finalized, 1, __ATOMIC_RELEASE);
	hdr = NULL;
	return PMPI_Finalize();
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
		  MPI_Comm comm)
{
	uint32_t cpu = (uint32_t)sched_getcpu();
	uint64_t t = now_ns();
	int err = PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);

	record(TC_COLL_ALLREDUCE, comm, bytes_of(count, type), t, cpu);
	return err;
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
	       MPI_Comm comm)
{
	uint32_t cpu = (uint32_t)sched_getcpu();
	uint64_t t = now_ns();
	int err = PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);

	record(TC_COLL_REDUCE, comm, bytes_of(count, type), t, cpu);
	return err;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
	uint32_t cpu = (uint32_t)sched_getcpu();
	uint64_t t = now_ns();
	int err = PMPI_Bcast(buf, count, type, root, comm);

	record(TC_COLL_BCAST, comm, bytes_of(count, type), t, cpu);
	return err;
}

int MPI_Barrier(MPI_Comm comm)
{
	uint32_t cpu = (uint32_t)sched_getcpu();
	uint64_t t = now_ns();
	int err = PMPI_Barrier(comm);

	record(TC_COLL_BARRIER, comm, 0, t, cpu);
	return err;
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
		  MPI_Datatype rtype, MPI_Comm comm)
{
	uint32_t cpu = (uint32_t)sched_getcpu();
	uint64_t t = now_ns();
	int err = PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);

	record(TC_COLL_ALLGATHER, comm,
	       sbuf == MPI_IN_PLACE ? bytes_of(rcount, rtype) : bytes_of(scount, stype), t, cpu);
	return err;
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
		 MPI_Datatype rtype, MPI_Comm comm)
{
	uint32_t cpu = (uint32_t)sched_getcpu();
	uint64_t t = now_ns();
	int err = PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);

	record(TC_COLL_ALLTOALL, comm,
	       sbuf == MPI_IN_PLACE ? bytes_of(rcount, rtype) : bytes_of(scount, stype), t, cpu);
	return err;
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type,
		       MPI_Op op, MPI_Comm comm)
{
	uint32_t cpu = (uint32_t)sched_getcpu();
	uint64_t t = now_ns();
	int err = PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm), size = 0;
	uint64_t n = 0;

	/* what this rank contributes: every block of the vector */
	if (PMPI_Comm_size(comm, &size) == MPI_SUCCESS)
		for (int i = 0; i < size; i++)
			n += bytes_of(rcounts[i], type);
	record(TC_COLL_REDUCE_SCATTER, comm, n, t, cpu);
	return err;
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type, MPI_Op op,
			     MPI_Comm comm)
{
	uint32_t cpu = (uint32_t)sched_getcpu();
	uint64_t t = now_ns();
	int err = PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, type, op, comm), size = 0;

	PMPI_Comm_size(comm, &size);
	record(TC_COLL_REDUCE_SCATTER_BLOCK, comm, bytes_of(rcount, type) * (uint64_t)size, t, cpu);
	return err;
}
