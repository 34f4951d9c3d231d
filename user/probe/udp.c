// SPDX-License-Identifier: BSD-2-Clause
/*
 * udp.c - ping-pong over kernel UDP sockets: what the kernel's network path
 * costs next to RDMA, sockperf ping-pong's measurement.
 *
 * Each side sends a datagram carrying its sequence number and receives the
 * peer's answer: in a blocking recv() by default (the thread sleeps and is
 * woken by the NET_RX softirq, so wake-ups and the scheduler are in every
 * round trip), or spinning on non-blocking receives with --busy-poll. One
 * timestamp per iteration, taken when the answer arrived, ends one round trip
 * and starts the next, as the verbs probe's do.
 *
 * Loopback: two sockets on 127.0.0.1, two pinned threads (ping records, pong
 * answers). Two hosts: one pinned thread per process, the TCP link of link.h
 * for the parameters, the run id and the barriers; the datagrams go between
 * the link's own addresses, to the server's --port. The server records too:
 * s[i] = [request i arrived, request i + 1 arrived], which the two-host
 * report pairs with the client's round trips.
 *
 * A datagram can be lost: the initiator sends its request again after
 * RESEND_MS without an answer (the round trip keeps the wait: a real spike) and
 * the responder answers every request it receives, new or repeated.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/stop.h"
#include "link.h"
#include "pair.h"
#include "probe.h"

#define MAGIC	       "tailcause-udp"
#define UDP_PROTO      1
#define SLICE_MS       100  /* a blocking receive wakes this often to look around */
#define RESEND_MS      1000 /* no answer for this long: send the request again */
#define STALL_S	       10   /* no datagram for this long: the peer is gone */
#define STOP_SEQ       UINT64_MAX
#define STR_(x)	       #x
#define STR(x)	       STR_(x)
#define MAX_DGRAM      65507
#define LINK_LINE_SIZE 200
#define RESENDS_KEPT   4096 /* when the requests were sent again, for the trace */

struct udp {
	struct probe_opts o;
	struct pair pair;
	int fd[2]; /* loopback: ping, pong; two hosts: fd[0] */
	int link_fd;
	size_t size; /* datagram size */
	uint8_t *buf[2];

	struct tc_sample *samples;
	size_t n;
	_Atomic int abort; /* loopback: one side failed, the other stops */
	_Atomic size_t done;
	_Atomic uint64_t resent;	  /* since open: every run's, for the trace */
	uint64_t resent_at[RESENDS_KEPT]; /* the initiator's, in order */
	char detail[256];
	char run_id[17];
};

static int initiates(const struct udp *p, int side)
{
	return p->o.mode == PROBE_CLIENT || (p->o.mode == PROBE_LOOPBACK && side == 0);
}

static int send_seq(struct udp *p, int side, uint64_t seq)
{
	memcpy(p->buf[side], &seq, sizeof(seq));
	if (send(p->fd[side], p->buf[side], p->size, 0) == (ssize_t)p->size)
		return 0;
	if (errno == ECONNREFUSED || errno == ENOBUFS || errno == EAGAIN || errno == EPERM)
		return 0; /* the peer not there yet, a full queue, a firewall: a loss, resent later
			   */
	log_err("udp probe: send a datagram: %s", strerror(errno));
	return -EIO;
}

/*
 * Receives one datagram into *seq. 0; -EAGAIN when nothing came for one
 * slice; -ECANCELED when the run is being stopped (here or by the peer's
 * stop datagram, which is *seq); -EIO on a socket error (reported).
 */
static int recv_seq(struct udp *p, int side, uint64_t *seq)
{
	int busy = p->o.busy_poll;
	uint64_t until = 0;
	uint32_t spins = 0;
	ssize_t r;

	for (;;) {
		r = recv(p->fd[side], p->buf[side], p->size, busy ? MSG_DONTWAIT : 0);
		if (r >= (ssize_t)sizeof(*seq))
			break;
		if (r >= 0 || errno == ECONNREFUSED)
			continue; /* a runt, or an ICMP error for an earlier send */
		if (errno != EAGAIN && errno != EINTR) {
			log_err("udp probe: receive a datagram: %s", strerror(errno));
			return -EIO;
		}
		if (busy && ++spins & 0xfff)
			continue;
		if (stop_requested() || atomic_load_explicit(&p->abort, memory_order_relaxed))
			return -ECANCELED;
		if (!busy)
			return -EAGAIN;
		if (!until)
			until = probe_now_ns() + SLICE_MS * 1000000ull;
		else if (probe_now_ns() > until)
			return -EAGAIN;
	}
	memcpy(seq, p->buf[side], sizeof(*seq));
	return *seq == STOP_SEQ ? -ECANCELED : 0;
}

static void mark_done(struct udp *p, size_t k)
{
	atomic_store_explicit(&p->done, k, memory_order_relaxed);
}

/* Sends request seq until its answer comes; the slices waited go in *quiet. */
static int round_trip(struct udp *p, int side, uint64_t seq)
{
	unsigned int quiet = 0;
	uint64_t got;
	int err;

	err = send_seq(p, side, seq);
	while (!err) {
		err = recv_seq(p, side, &got);
		if (!err && got == seq)
			return 0;
		if (!err)
			continue; /* the answer to a request sent twice */
		if (err != -EAGAIN)
			return err;
		err = 0;
		if (++quiet * SLICE_MS >= STALL_S * 1000) {
			log_err("the peer stopped answering: no reply to round trip %llu in %d s",
				(unsigned long long)seq, STALL_S);
			return -EIO;
		}
		if (quiet * SLICE_MS % RESEND_MS == 0) {
			uint64_t k = atomic_fetch_add_explicit(&p->resent, 1, memory_order_relaxed);

			if (k < RESENDS_KEPT)
				p->resent_at[k] = probe_now_ns();
			err = send_seq(p, side, seq);
		}
	}
	return err;
}

/* Starts every round trip; records s[i] = [before the request, answer received]. */
static int initiator_loop(struct udp *p, int side, size_t *done)
{
	struct tc_sample *s = p->samples;
	uint32_t cpu = (uint32_t)p->pair.cpu[side], tid = pair__tid(&p->pair, side);
	uint64_t t = probe_now_ns();
	size_t i;
	int err = 0;

	for (i = 0; i < p->n; i++) {
		err = round_trip(p, side, i + 1);
		if (err)
			break;
		s[i] = (struct tc_sample){t, 0, cpu, tid};
		t = probe_now_ns();
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

/*
 * Answers every request; when record, s[i] = [request i arrived, request i+1
 * arrived]. Ends at the initiator's stop datagram.
 */
static int responder_loop(struct udp *p, int side, int record, size_t *done)
{
	struct tc_sample *s = p->samples;
	uint32_t cpu = (uint32_t)p->pair.cpu[side], tid = pair__tid(&p->pair, side);
	unsigned int quiet = 0;
	size_t i = 0;
	uint64_t seq;
	int err;

	for (;;) {
		err = recv_seq(p, side, &seq);
		if (err == -EAGAIN) {
			if (++quiet * SLICE_MS < STALL_S * 1000)
				continue;
			log_err("the peer stopped sending: no request after round trip %zu in %d s",
				i, STALL_S);
			err = -EIO;
		}
		if (err)
			break;
		quiet = 0;
		if (seq == i + 1 && i < p->n) {
			if (record) {
				uint64_t t = probe_now_ns();

				if (i)
					s[i - 1].t_end = t;
				if (i + 1 < p->n)
					s[i] = (struct tc_sample){t, 0, cpu, tid};
				if ((i & 1023) == 0 && i)
					mark_done(p, i);
			}
			i++;
		}
		err = send_seq(p, side, seq);
		if (err)
			break;
	}
	*done = i > 0 ? i - 1 : 0;
	return err;
}

static int run_side(void *arg, int side)
{
	struct udp *p = arg;
	int remote = p->o.mode != PROBE_LOOPBACK;
	size_t done = 0;
	int err = 0;

	if (remote)
		err = link_barrier(p->link_fd, "start the run");
	if (!err && initiates(p, side))
		err = initiator_loop(p, side, &done);
	else if (!err)
		err = responder_loop(p, side, side == 0, &done);
	if (err == -ECANCELED) {
		if (!stop_requested() && !atomic_load(&p->abort) && done + 1 < p->n)
			log_warn("the peer ended the run early");
		err = 0;
	} else if (err) {
		atomic_store(&p->abort, 1);
	}
	/* The initiator ends the run; whoever stops early tells the other side. */
	if (initiates(p, side) || done + 1 < p->n || err)
		for (int k = 0; k < 3; k++)
			send_seq(p, side, STOP_SEQ);
	if (remote && !err && link_barrier(p->link_fd, "end the run"))
		log_warn("the peer did not confirm the end of the run");
	if (side == 0)
		mark_done(p, done);
	return err;
}

/* A UDP socket of family af bound to a (port as given), connected to peer. fd or -errno. */
static int dgram_socket(const struct sockaddr_storage *a, const struct sockaddr_storage *peer,
			int busy)
{
	socklen_t len =
		a->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	struct timeval tv = {.tv_usec = SLICE_MS * 1000};
	int fd, one = 1;

	fd = socket(a->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (!busy)
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(fd, (const struct sockaddr *)a, len) ||
	    (peer && connect(fd, (const struct sockaddr *)peer, len))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static void set_port(struct sockaddr_storage *a, unsigned int port)
{
	if (a->ss_family == AF_INET6)
		((struct sockaddr_in6 *)a)->sin6_port = htons((uint16_t)port);
	else
		((struct sockaddr_in *)a)->sin_port = htons((uint16_t)port);
}

static unsigned int get_port(const struct sockaddr_storage *a)
{
	return ntohs(a->ss_family == AF_INET6 ? ((const struct sockaddr_in6 *)a)->sin6_port
					      : ((const struct sockaddr_in *)a)->sin_port);
}

/* Two sockets on 127.0.0.1, each connected to the other. */
static int open_loopback(struct udp *p)
{
	struct sockaddr_storage a[2];
	socklen_t len = sizeof(a[0]);
	int err = 0;

	for (int side = 0; side < 2 && !err; side++) {
		struct sockaddr_in *in = (struct sockaddr_in *)&a[side];

		memset(&a[side], 0, sizeof(a[side]));
		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		p->fd[side] = dgram_socket(&a[side], NULL, p->o.busy_poll);
		err = p->fd[side] < 0 ? p->fd[side] : 0;
		if (!err && getsockname(p->fd[side], (struct sockaddr *)&a[side], &len))
			err = -errno;
	}
	for (int side = 0; side < 2 && !err; side++)
		if (connect(p->fd[side], (struct sockaddr *)&a[1 - side],
			    sizeof(struct sockaddr_in)))
			err = -errno;
	if (err)
		log_err("udp probe: sockets on 127.0.0.1: %s", strerror(-err));
	return err;
}

/* Sends our line (the UDP port we receive on, the run) and checks the peer's. */
static int exchange(struct udp *p, unsigned int my_port, unsigned int *peer_port)
{
	char line[LINK_LINE_SIZE], mine[17], theirs[17] = "";
	unsigned long long n, size;
	unsigned int port;
	int ver = -1, len, err;

	link_new_run_id(mine);
	len = snprintf(line, sizeof(line), MAGIC " %d n=%zu s=%zu uport=%u run=%s\n", UDP_PROTO,
		       p->o.iterations, p->size, my_port, mine);
	err = link_send_all(p->link_fd, line, (size_t)len);
	err = err ?: link_recv_line(p->link_fd, line, sizeof(line));
	if (err) {
		log_err("exchange the run's parameters with %s: %s",
			p->o.host ? p->o.host : "the client", strerror(-err));
		return err;
	}
	if (strncmp(line, MAGIC " ", sizeof(MAGIC))) {
		log_err("the peer is not tailcause's udp probe (a verbs probe? a different program "
			"on TCP port %u): it sent '%.40s'",
			p->o.tcp_port, line);
		return -EPROTO;
	}
	if (sscanf(line + sizeof(MAGIC), "%d", &ver) != 1 || ver != UDP_PROTO) {
		log_err("version mismatch: the peer speaks udp protocol %d, this tailcause %d "
			"(run the same tailcause version on both hosts)",
			ver, UDP_PROTO);
		return -EPROTO;
	}
	if (sscanf(line + sizeof(MAGIC), "%*d n=%llu s=%llu uport=%u run=%16s", &n, &size, &port,
		   theirs) != 4 ||
	    !port || port > 65535) {
		log_err("the peer sent a malformed exchange line: '%.80s'", line);
		return -EPROTO;
	}
	if (n != p->o.iterations || size != p->size) {
		log_err("the peer runs -n %llu -s %llu, this side -n %zu -s %zu: give both sides "
			"the same",
			n, size, p->o.iterations, p->size);
		return -EPROTO;
	}
	*peer_port = port;
	memcpy(p->run_id, p->o.mode == PROBE_CLIENT ? mine : theirs, sizeof(p->run_id));
	return 0;
}

/*
 * The TCP link, then one UDP socket on the link's own local address (the
 * server's on --port), connected to the peer's link address and UDP port.
 */
static int open_remote(struct udp *p)
{
	struct sockaddr_storage self, peer;
	socklen_t len = sizeof(self), plen = sizeof(peer);
	unsigned int peer_port = 0;
	int err;

	p->link_fd =
		p->o.mode == PROBE_SERVER ? link_accept(&p->o, "udp") : link_connect(&p->o, "udp");
	if (p->link_fd < 0)
		return p->link_fd;
	if (getsockname(p->link_fd, (struct sockaddr *)&self, &len) ||
	    getpeername(p->link_fd, (struct sockaddr *)&peer, &plen)) {
		err = -errno;
		log_err("udp probe: the link's addresses: %s", strerror(-err));
		return err;
	}
	set_port(&self, p->o.mode == PROBE_SERVER ? p->o.tcp_port : 0);
	p->fd[0] = dgram_socket(&self, NULL, p->o.busy_poll);
	if (p->fd[0] < 0) {
		log_err("udp probe: bind a UDP socket%s: %s",
			p->o.mode == PROBE_SERVER ? " on --port" : "", strerror(-p->fd[0]));
		return p->fd[0];
	}
	len = sizeof(self);
	if (getsockname(p->fd[0], (struct sockaddr *)&self, &len))
		return -errno;
	err = exchange(p, get_port(&self), &peer_port);
	if (err)
		return err;
	set_port(&peer, peer_port);
	if (connect(p->fd[0], (struct sockaddr *)&peer, plen)) {
		err = -errno;
		log_err("udp probe: connect the UDP socket to the peer: %s", strerror(-err));
		return err;
	}
	return 0;
}

static void udp_close(void *state);
extern const struct probe_ops udp_probe;

static int udp_open(const struct probe_opts *o, void **state)
{
	static const char *const modes[] = {"loopback 127.0.0.1", "server", "client of "};
	struct udp *p;
	int sides = o->mode == PROBE_LOOPBACK ? 2 : 1;
	int err = 0;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->o = *o;
	p->fd[0] = p->fd[1] = p->link_fd = -1;
	p->size = probe_message_bytes(&udp_probe, o);
	if (p->size > MAX_DGRAM) {
		log_err("udp probe: -s %zu: a UDP datagram holds at most %d bytes", o->size,
			MAX_DGRAM);
		free(p);
		return -EINVAL;
	}
	for (int side = 0; side < sides && !err; side++)
		if (!(p->buf[side] = calloc(1, p->size)))
			err = -ENOMEM;
	p->pair = (struct pair){
		.sides = sides, .cpu = {o->cpu[0], o->cpu[1]}, .arg = p, .run_side = run_side};
	err = err ?: o->mode == PROBE_LOOPBACK ? open_loopback(p) : open_remote(p);
	/* Neither side may send before the other's socket is ready to receive. */
	if (!err && o->mode != PROBE_LOOPBACK)
		err = link_barrier(p->link_fd, "open the sockets");
	err = err ?: pair__start(&p->pair, "udp");
	if (err) {
		udp_close(p);
		return err;
	}
	snprintf(p->detail, sizeof(p->detail), "%zu-byte UDP datagrams, %s, %s%s", p->size,
		 o->busy_poll ? "busy-poll (non-blocking receives)" : "blocking recv()",
		 modes[o->mode], o->mode == PROBE_CLIENT ? o->host : "");
	*state = p;
	return 0;
}

static size_t udp_threads(void *state, struct probe_thread *out, size_t max)
{
	static const char *const roles[3][2] = {
		{"ping", "pong"},
		{"server", ""},
		{"client", ""},
	};
	struct udp *p = state;
	size_t n = max < (size_t)p->pair.sides ? max : (size_t)p->pair.sides;

	for (size_t i = 0; i < n; i++)
		out[i] = (struct probe_thread){pair__tid(&p->pair, (int)i),
					       (uint32_t)p->pair.cpu[i], roles[p->o.mode][i]};
	return n;
}

static int udp_run(void *state, struct tc_sample *s, size_t n, size_t *done)
{
	struct udp *p = state;
	uint64_t resent = atomic_load(&p->resent);
	int err;

	if (n != p->o.iterations && p->o.mode != PROBE_LOOPBACK) {
		log_err("udp probe: run of %zu round trips, the peer agreed to %zu", n,
			p->o.iterations);
		return -EINVAL;
	}
	atomic_store(&p->done, 0);
	atomic_store(&p->abort, 0);
	/* what a run before left queued: its stop datagrams, answers sent twice */
	for (int side = 0; side < p->pair.sides; side++)
		while (recv(p->fd[side], p->buf[side], p->size, MSG_DONTWAIT) >= 0)
			;
	p->samples = s;
	p->n = n;
	err = pair__run(&p->pair);
	*done = atomic_load(&p->done);
	resent = atomic_load(&p->resent) - resent;
	if (resent)
		log_warn("udp probe: %llu requests sent again after %d ms without an answer (lost "
			 "datagrams; those round trips keep the wait)",
			 (unsigned long long)resent, RESEND_MS);
	return err;
}

static size_t udp_progress(void *state)
{
	struct udp *p = state;

	return atomic_load_explicit(&p->done, memory_order_relaxed);
}

static void udp_close(void *state)
{
	struct udp *p = state;

	pair__stop(&p->pair);
	for (int side = 0; side < 2; side++) {
		if (p->fd[side] >= 0)
			close(p->fd[side]);
		free(p->buf[side]);
	}
	if (p->link_fd >= 0)
		close(p->link_fd);
	free(p);
}

static const char *udp_detail(void *state)
{
	return ((struct udp *)state)->detail;
}

static size_t udp_resends(void *state, uint64_t *at, size_t max, const char **what)
{
	struct udp *p = state;
	size_t n = atomic_load(&p->resent), kept = n < RESENDS_KEPT ? n : RESENDS_KEPT;

	memcpy(at, p->resent_at, (kept < max ? kept : max) * sizeof(*at));
	*what = "udp probe: a request sent again, its answer not come in " STR(RESEND_MS) " ms";
	return n;
}

static int udp_link(void *state)
{
	return ((struct udp *)state)->link_fd;
}

static const char *udp_run_id(void *state)
{
	struct udp *p = state;

	return p->run_id[0] ? p->run_id : NULL;
}

const struct probe_ops udp_probe = {
	.name = "udp",
	.summary = "ping-pong over kernel UDP sockets (blocking or busy-poll), sockperf's method",
	.open = udp_open,
	.threads = udp_threads,
	.run = udp_run,
	.progress = udp_progress,
	.close = udp_close,
	.detail = udp_detail,
	.run_id = udp_run_id,
	.link = udp_link,
	.resends = udp_resends,
};
