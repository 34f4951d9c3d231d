// SPDX-License-Identifier: BSD-2-Clause
/*
 * shm.c - ping-pong over one shared cache line between two pinned threads.
 *
 * No NIC: a pure host-jitter probe with the ib_write_lat method. The ping
 * thread stamps t_start, writes sequence k into the line, spins until the pong
 * thread echoes k, stamps t_end. Both threads busy-poll, so any time one of
 * them loses its CPU shows up as a slow round trip.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "lib/stop.h"
#include "pair.h"
#include "probe.h"

#define STOP UINT64_MAX

struct shm_line {
	_Atomic uint64_t ping;
	_Atomic uint64_t pong;
} __attribute__((aligned(64)));

struct shm {
	struct shm_line line;
	struct pair pair; /* ping (side 0) and pong (side 1) */
	struct tc_sample *samples;
	size_t n;
	_Atomic size_t done;
};

static void ping_loop(struct shm *p)
{
	struct shm_line *l = &p->line;
	uint32_t tid = pair__tid(&p->pair, 0), cpu = (uint32_t)p->pair.cpu[0];

	size_t i;

	for (i = 0; i < p->n; i++) {
		uint64_t k = i + 1;
		uint64_t t0 = probe_now_ns();

		atomic_store_explicit(&l->ping, k, memory_order_release);
		while (atomic_load_explicit(&l->pong, memory_order_acquire) != k)
			__builtin_ia32_pause();
		p->samples[i] = (struct tc_sample){t0, probe_now_ns(), cpu, tid};
		if ((k & 1023) == 0) {
			atomic_store_explicit(&p->done, k, memory_order_relaxed);
			if (stop_requested())
				break;
		}
	}
	atomic_store_explicit(&p->done, i < p->n ? i + 1 : p->n, memory_order_relaxed);
	atomic_store_explicit(&l->ping, STOP, memory_order_release);
}

static void pong_loop(struct shm *p)
{
	struct shm_line *l = &p->line;

	for (;;) {
		uint64_t k = atomic_load_explicit(&l->ping, memory_order_acquire);

		if (k == STOP)
			return;
		if (k != atomic_load_explicit(&l->pong, memory_order_relaxed))
			atomic_store_explicit(&l->pong, k, memory_order_release);
		else
			__builtin_ia32_pause();
	}
}

static int run_side(void *arg, int side)
{
	if (side == 0)
		ping_loop(arg);
	else
		pong_loop(arg);
	return 0;
}

static void shm_close(void *state);

static int shm_open(const struct probe_opts *o, void **state)
{
	struct shm *p;
	int err;

	if (posix_memalign((void **)&p, 64, sizeof(*p)))
		return -ENOMEM;
	memset(p, 0, sizeof(*p));
	p->pair = (struct pair){
		.sides = 2, .cpu = {o->cpu[0], o->cpu[1]}, .arg = p, .run_side = run_side};
	err = pair__start(&p->pair, "shm");
	if (err) {
		shm_close(p);
		return err;
	}
	*state = p;
	return 0;
}

static size_t shm_threads(void *state, struct probe_thread *out, size_t max)
{
	struct shm *p = state;
	static const char *const roles[2] = {"ping", "pong"};
	size_t n = max < 2 ? max : 2;

	for (size_t i = 0; i < n; i++)
		out[i] = (struct probe_thread){pair__tid(&p->pair, (int)i),
					       (uint32_t)p->pair.cpu[i], roles[i]};
	return n;
}

static int shm_run(void *state, struct tc_sample *s, size_t n, size_t *done)
{
	struct shm *p = state;

	atomic_store(&p->line.ping, 0);
	atomic_store(&p->line.pong, 0);
	atomic_store(&p->done, 0);
	p->samples = s;
	p->n = n;
	pair__run(&p->pair);
	*done = atomic_load(&p->done);
	return 0;
}

static size_t shm_progress(void *state)
{
	struct shm *p = state;

	return atomic_load_explicit(&p->done, memory_order_relaxed);
}

static void shm_close(void *state)
{
	struct shm *p = state;

	pair__stop(&p->pair);
	free(p);
}

const struct probe_ops shm_probe = {
	.name = "shm",
	.summary = "ping-pong over a shared cache line between two pinned threads (no NIC)",
	.open = shm_open,
	.threads = shm_threads,
	.run = shm_run,
	.progress = shm_progress,
	.close = shm_close,
};
