// SPDX-License-Identifier: BSD-2-Clause
/* pair.c - the side threads of a probe: pinned, parked, released per run (pair.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/log.h"
#include "pair.h"
#include "probe.h"

struct side_arg {
	struct pair *p;
	int side;
};

static void *side_main(void *arg)
{
	struct pair *p = ((struct side_arg *)arg)->p;
	int side = ((struct side_arg *)arg)->side;
	unsigned int seen;
	int pin_err, quit, err;

	free(arg);
	pin_err = probe_pin_self(p->cpu[side]);
	if (!pin_err && p->init)
		p->init(p->arg, side);
	pthread_mutex_lock(&p->lock);
	p->tid[side] = (uint32_t)syscall(SYS_gettid);
	p->pin_err[side] = pin_err;
	p->started++;
	seen = p->generation;
	pthread_cond_broadcast(&p->cond);
	for (;;) {
		while (p->generation == seen && !p->quit)
			pthread_cond_wait(&p->cond, &p->lock);
		seen = p->generation;
		quit = p->quit;
		pthread_mutex_unlock(&p->lock);
		if (quit)
			return NULL;
		err = p->run_side(p->arg, side);
		pthread_mutex_lock(&p->lock);
		if (err && !p->run_err)
			p->run_err = err;
		p->running--;
		pthread_cond_broadcast(&p->cond);
	}
}

int pair__start(struct pair *p, const char *what)
{
	int err = 0;

	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	for (int side = 0; side < p->sides; side++) {
		struct side_arg *a = malloc(sizeof(*a));

		if (!a)
			return -ENOMEM;
		*a = (struct side_arg){p, side};
		err = -pthread_create(&p->thr[side], NULL, side_main, a);
		if (err) {
			free(a);
			log_err("start %s probe thread: %s", what, strerror(-err));
			return err;
		}
		p->made[side] = 1;
	}
	pthread_mutex_lock(&p->lock);
	while (p->started < p->sides)
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
	for (int side = 0; side < p->sides; side++) {
		if (p->pin_err[side]) {
			log_err("pin %s probe thread to cpu %d: %s", what, p->cpu[side],
				strerror(-p->pin_err[side]));
			return p->pin_err[side];
		}
	}
	return 0;
}

int pair__run(struct pair *p)
{
	int err;

	pthread_mutex_lock(&p->lock);
	p->run_err = 0;
	p->running = p->sides;
	p->generation++;
	pthread_cond_broadcast(&p->cond);
	while (p->running)
		pthread_cond_wait(&p->cond, &p->lock);
	err = p->run_err;
	pthread_mutex_unlock(&p->lock);
	return err;
}

uint32_t pair__tid(const struct pair *p, int side)
{
	return p->tid[side];
}

void pair__stop(struct pair *p)
{
	if (!p->made[0])
		return;
	pthread_mutex_lock(&p->lock);
	p->quit = 1;
	p->generation++;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	for (int side = 0; side < 2; side++)
		if (p->made[side])
			pthread_join(p->thr[side], NULL);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	p->made[0] = p->made[1] = 0;
}
