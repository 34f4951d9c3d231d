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
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/stop.h"
#include "probe.h"

#define STOP UINT64_MAX

struct shm_line {
	_Atomic uint64_t ping;
	_Atomic uint64_t pong;
} __attribute__((aligned(64)));

struct shm {
	struct shm_line line;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int generation; /* bumped by run() and close(); threads wake on change */
	int quit;
	int running; /* ping thread is inside a run */
	int cpu[2];
	uint32_t tid[2];
	int pin_err[2];
	int started;
	struct tc_sample *samples;
	size_t n;
	_Atomic size_t done;
	pthread_t thr[2];
};

static pthread_mutex_t *lk(struct shm *p)
{
	return &p->lock;
}

/* Blocks until run() or close() bumps the generation past *seen; returns quit. */
static int park(struct shm *p, unsigned int *seen)
{
	int quit;

	pthread_mutex_lock(lk(p));
	while (p->generation == *seen && !p->quit)
		pthread_cond_wait(&p->cond, lk(p));
	*seen = p->generation;
	quit = p->quit;
	pthread_mutex_unlock(lk(p));
	return quit;
}

static void ping_loop(struct shm *p)
{
	struct shm_line *l = &p->line;
	uint32_t tid = p->tid[0], cpu = p->cpu[0];

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

struct side_arg {
	struct shm *p;
	int side;
};

static void *side_main(void *arg)
{
	struct shm *p = ((struct side_arg *)arg)->p;
	int side = ((struct side_arg *)arg)->side;
	unsigned int seen = 0;

	free(arg);
	pthread_mutex_lock(lk(p));
	p->tid[side] = (uint32_t)syscall(SYS_gettid);
	p->pin_err[side] = probe_pin_self(p->cpu[side]);
	p->started++;
	seen = p->generation;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(lk(p));

	while (!park(p, &seen)) {
		if (side == 0) {
			ping_loop(p);
			pthread_mutex_lock(lk(p));
			p->running = 0;
			pthread_cond_broadcast(&p->cond);
			pthread_mutex_unlock(lk(p));
		} else {
			pong_loop(p);
		}
	}
	return NULL;
}

static void shm_close(void *state);

static int shm_open(const struct probe_opts *o, void **state)
{
	struct shm *p;
	int err = 0;

	if (posix_memalign((void **)&p, 64, sizeof(*p)))
		return -ENOMEM;
	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->cpu[0] = o->cpu[0];
	p->cpu[1] = o->cpu[1];
	for (int side = 0; side < 2; side++) {
		struct side_arg *a = malloc(sizeof(*a));

		if (!a) {
			err = -ENOMEM;
			break;
		}
		*a = (struct side_arg){p, side};
		err = -pthread_create(&p->thr[side], NULL, side_main, a);
		if (err) {
			free(a);
			log_err("start shm probe thread: %s", strerror(-err));
			break;
		}
	}
	pthread_mutex_lock(lk(p));
	while (!err && p->started < 2)
		pthread_cond_wait(&p->cond, lk(p));
	pthread_mutex_unlock(lk(p));
	for (int side = 0; !err && side < 2; side++) {
		if (p->pin_err[side]) {
			err = p->pin_err[side];
			log_err("pin shm probe thread to cpu %d: %s", p->cpu[side], strerror(-err));
		}
	}
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
		out[i] = (struct probe_thread){p->tid[i], (uint32_t)p->cpu[i], roles[i]};
	return n;
}

static int shm_run(void *state, struct tc_sample *s, size_t n, size_t *done)
{
	struct shm *p = state;

	atomic_store(&p->line.ping, 0);
	atomic_store(&p->line.pong, 0);
	atomic_store(&p->done, 0);
	pthread_mutex_lock(lk(p));
	p->samples = s;
	p->n = n;
	p->running = 1;
	p->generation++;
	pthread_cond_broadcast(&p->cond);
	while (p->running)
		pthread_cond_wait(&p->cond, lk(p));
	pthread_mutex_unlock(lk(p));
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

	pthread_mutex_lock(lk(p));
	p->quit = 1;
	p->generation++;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(lk(p));
	for (int side = 0; side < 2; side++)
		if (p->thr[side])
			pthread_join(p->thr[side], NULL);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
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
