// SPDX-License-Identifier: BSD-2-Clause
/*
 * verbs.c - the RDMA latency probe: ib_write_lat's ping-pong behind probe_ops.
 *
 * Each side RDMA-WRITEs its sequence number into the last byte of the peer's
 * receive buffer (inline when it fits), waits for the send completion, then
 * busy-polls the last byte of its own receive buffer for the peer's answer:
 * perftest's run_iter_lat_write, step for step. One timestamp per iteration,
 * taken right after the answer arrived, ends one round trip and starts the
 * next, as perftest's tposted[] does.
 *
 * Loopback: two QPs on one port, two pinned threads (ping records, pong
 * answers). Two hosts: one QP and one pinned thread per process; the client
 * starts each round trip, the server answers, and both record (the server
 * has one round trip fewer, between its consecutive answers).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/stop.h"
#include "link.h"
#include "pair.h"
#include "verbs.h"

#define STALL_S 10 /* no answer for this long: the peer is gone */

struct verbs {
	struct probe_opts o;
	struct verbs_dev dev;
	struct verbs_ep ep[2]; /* loopback: ping, pong; two hosts: ep[0] only */
	int sides;
	struct link link; /* two hosts: the link to the peer */
	struct verbs_clock clock;

	struct pair pair; /* the side threads */

	struct tc_sample *samples;
	size_t n;
	_Atomic int abort; /* loopback: one side failed, the other stops */
	_Atomic size_t done;
	char detail[256];
	char run_id[17]; /* two hosts: the run's id, shared with the peer */
};

static int initiates(const struct verbs *p, int side)
{
	return p->o.mode == PROBE_CLIENT || (p->o.mode == PROBE_LOOPBACK && side == 0);
}

/*
 * Spins until the last byte of the receive area is seq. Between spins it
 * watches, rarely enough to cost nothing in the common case, for the peer's
 * stop word, a local stop request and a stall. 0; -ECANCELED when the run
 * ends early; -EIO when the peer stopped answering (reported).
 */
static int wait_for(struct verbs *p, struct verbs_ep *ep, uint8_t seq, size_t i)
{
	volatile uint8_t *last = ep->recv + ep->size - 1;
	uint64_t deadline = 0;
	uint32_t spins = 0;

	while (*last != seq) {
		if (++spins & 0xff)
			continue;
		if (*ep->ctl || atomic_load_explicit(&p->abort, memory_order_relaxed))
			return -ECANCELED;
		if (spins & 0xffff)
			continue;
		if (stop_requested())
			return -ECANCELED;
		if (!deadline) {
			deadline = probe_now_ns() + STALL_S * 1000000000ull;
		} else if (probe_now_ns() > deadline) {
			log_err("the peer stopped answering: no reply to round trip %zu in %d s",
				i + 1, STALL_S);
			return -EIO;
		}
	}
	return 0;
}

static void mark_done(struct verbs *p, size_t k)
{
	atomic_store_explicit(&p->done, k, memory_order_relaxed);
}

/* Starts every round trip; records s[i] = [before the write, answer seen]. */
static int initiator_loop(struct verbs *p, struct verbs_ep *ep, size_t *done)
{
	struct tc_sample *s = p->samples;
	uint32_t cpu = (uint32_t)p->o.cpu[0], tid = pair__tid(&p->pair, 0);
	uint64_t t = verbs_clock__read(&p->clock);
	size_t i;
	int err = 0;

	for (i = 0; i < p->n; i++) {
		uint8_t seq = (uint8_t)(i + 1);

		err = verbs_ep__write(ep, seq) ?: wait_for(p, ep, seq, i);
		if (err)
			break;
		s[i] = (struct tc_sample){t, 0, cpu, tid};
		t = verbs_clock__read(&p->clock);
		s[i].t_end = t;
		if (((i + 1) & 1023) == 0) {
			mark_done(p, i + 1);
			if (stop_requested()) {
				i++;
				break;
			}
		}
	}
	*done = i;
	return err;
}

/* Answers every round trip; records s[i] = [answer i seen, answer i+1 seen] when asked. */
static int responder_loop(struct verbs *p, struct verbs_ep *ep, int record, size_t *done)
{
	struct tc_sample *s = p->samples;
	uint32_t cpu = (uint32_t)p->o.cpu[0], tid = pair__tid(&p->pair, 0);
	size_t i;
	int err = 0;

	for (i = 0; i < p->n; i++) {
		uint8_t seq = (uint8_t)(i + 1);
		uint64_t t;

		err = wait_for(p, ep, seq, i);
		if (err)
			break;
		if (record) {
			t = verbs_clock__read(&p->clock);
			if (i)
				s[i - 1].t_end = t;
			if (i + 1 < p->n)
				s[i] = (struct tc_sample){t, 0, cpu, tid};
			if ((i & 1023) == 0 && i)
				mark_done(p, i);
		}
		err = verbs_ep__write(ep, seq);
		if (err)
			break;
	}
	*done = i > 0 ? i - 1 : 0;
	return err;
}

/* One side's run; side 0 times it and converts its stamps. */
static int run_side(void *arg, int side)
{
	struct verbs *p = arg;
	struct verbs_ep *ep = &p->ep[side];
	int remote = p->o.mode != PROBE_LOOPBACK;
	size_t done = 0;
	int err = 0;

	if (remote) {
		memset((void *)ep->recv, 0, ep->size);
		*ep->ctl = 0;
		err = link_barrier(p->link.fd, "start the run");
	}
	if (side == 0)
		verbs_clock__pair(&p->clock, 1);
	if (!err && initiates(p, side))
		err = initiator_loop(p, ep, &done);
	else if (!err)
		err = responder_loop(p, ep, side == 0, &done);
	if (err == -ECANCELED) {
		if (*ep->ctl)
			log_warn("the peer ended the run early");
		err = 0;
	} else if (err) {
		atomic_store(&p->abort, 1);
	}
	/* Whoever stops early tells the other side, which would wait for ever. */
	if (done + 1 < p->n || err)
		verbs_ep__send_stop(ep);
	if (remote && !err && link_barrier(p->link.fd, "end the run"))
		log_warn("the peer did not confirm the end of the run");
	if (side == 0) {
		verbs_clock__pair(&p->clock, 2);
		verbs_clock__convert(&p->clock, p->samples, done);
		mark_done(p, done);
	}
	return err;
}

/* The clock is measured and calibrated on the CPU that will read it. */
static void init_side(void *arg, int side)
{
	struct verbs *p = arg;

	if (side == 0)
		verbs_clock__init(&p->clock, p->o.clock);
}

/* Queue pairs up and connected: to each other, or through the TCP exchange. */
static int connect_sides(struct verbs *p)
{
	int err;

	err = verbs_ep__create(&p->ep[0], &p->dev, &p->o);
	if (err)
		return err;
	if (p->o.mode == PROBE_LOOPBACK) {
		err = verbs_ep__create(&p->ep[1], &p->dev, &p->o);
		if (err)
			return err;
		p->ep[0].peer = p->ep[1].self;
		p->ep[1].peer = p->ep[0].self;
		return verbs_ep__connect(&p->ep[0]) ?: verbs_ep__connect(&p->ep[1]);
	}
	err = p->o.mode == PROBE_SERVER ? link_accept(&p->o, "verbs", &p->link)
					: link_connect(&p->o, "verbs", &p->link);
	if (err)
		return err;
	err = verbs_oob__exchange(p->link.fd, &p->o, &p->ep[0].self, &p->ep[0].peer, p->run_id);
	err = err ?: verbs_ep__connect(&p->ep[0]);
	/* Neither side may write before the other's QP is ready to receive. */
	return err ?: link_barrier(p->link.fd, "connect the queue pairs");
}

static void describe(struct verbs *p)
{
	static const char *const modes[] = {"loopback", "server", "client of "};
	const struct verbs_dev *d = &p->dev;
	char gid[64] = "";
	char where[64];

	if (d->gid_index >= 0)
		snprintf(gid, sizeof(gid), ", GID %d %s", d->gid_index,
			 verbs_gid_str(&d->gid, where, sizeof(where)));
	snprintf(p->detail, sizeof(p->detail),
		 "%s port %u (%s, LID %u%s), MTU %u, %zu-byte RDMA WRITE%s, %s%s", d->name, d->port,
		 d->link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCE" : "InfiniBand", d->lid, gid,
		 128u << d->mtu, p->o.size, p->ep[0].inlined ? " inline" : "", modes[p->o.mode],
		 p->o.mode == PROBE_CLIENT ? p->o.host : "");
}

static void verbs_close(void *state);

static int verbs_open(const struct probe_opts *o, void **state)
{
	struct verbs *p;
	int err;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->o = *o;
	p->link.fd = -1;
	p->sides = o->mode == PROBE_LOOPBACK ? 2 : 1;
	p->pair = (struct pair){.sides = p->sides,
				.cpu = {o->cpu[0], o->cpu[1]},
				.arg = p,
				.init = init_side,
				.run_side = run_side};
	srand48((long)getpid() ^ (long)time(NULL));
	err = verbs_dev__open(&p->dev, o);
	err = err ?: connect_sides(p);
	err = err ?: pair__start(&p->pair, "verbs");
	if (err) {
		verbs_close(p);
		return err;
	}
	describe(p);
	*state = p;
	return 0;
}

static size_t verbs_threads(void *state, struct probe_thread *out, size_t max)
{
	static const char *const roles[3][2] = {
		{"ping", "pong"},
		{"server", ""},
		{"client", ""},
	};
	struct verbs *p = state;
	size_t n = max < (size_t)p->sides ? max : (size_t)p->sides;

	for (size_t i = 0; i < n; i++)
		out[i] = (struct probe_thread){pair__tid(&p->pair, (int)i), (uint32_t)p->o.cpu[i],
					       roles[p->o.mode][i]};
	return n;
}

static int verbs_run(void *state, struct tc_sample *s, size_t n, size_t *done)
{
	struct verbs *p = state;
	int err;

	if (n != p->o.iterations && p->o.mode != PROBE_LOOPBACK) {
		log_err("verbs probe: run of %zu round trips, the peer agreed to %zu", n,
			p->o.iterations);
		return -EINVAL;
	}
	for (int side = 0; side < p->sides; side++) {
		memset((void *)p->ep[side].recv, 0, p->ep[side].size);
		*p->ep[side].ctl = 0;
	}
	atomic_store(&p->done, 0);
	atomic_store(&p->abort, 0);
	p->samples = s;
	p->n = n;
	err = pair__run(&p->pair);
	*done = atomic_load(&p->done);
	return err;
}

static size_t verbs_progress(void *state)
{
	struct verbs *p = state;

	return atomic_load_explicit(&p->done, memory_order_relaxed);
}

static void verbs_close(void *state)
{
	struct verbs *p = state;

	pair__stop(&p->pair);
	for (int side = 0; side < 2; side++)
		if (p->ep[side].dev)
			verbs_ep__destroy(&p->ep[side]);
	verbs_dev__close(&p->dev);
	link_close(&p->link);
	free(p);
}

static const char *verbs_clock_desc(void *state)
{
	return ((struct verbs *)state)->clock.desc;
}

static const char *verbs_detail(void *state)
{
	return ((struct verbs *)state)->detail;
}

static const struct link *verbs_link(void *state)
{
	struct verbs *p = state;

	return p->link.fd >= 0 ? &p->link : NULL;
}

static const char *verbs_run_id(void *state)
{
	struct verbs *p = state;

	return p->run_id[0] ? p->run_id : NULL;
}

const struct probe_ops verbs_probe = {
	.name = "verbs",
	.summary = "RDMA WRITE ping-pong over an RC queue pair, ib_write_lat's method",
	.open = verbs_open,
	.threads = verbs_threads,
	.run = verbs_run,
	.progress = verbs_progress,
	.close = verbs_close,
	.clock = verbs_clock_desc,
	.detail = verbs_detail,
	.run_id = verbs_run_id,
	.link = verbs_link,
};
