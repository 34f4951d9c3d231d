// SPDX-License-Identifier: BSD-2-Clause
/* path_counters.c - the NICs' and fabric's counters, sampled during the run (path_counters.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "path_counters.h"
#include "probe/probe.h"

#define MAX_COUNTERS 512
#define MAX_EVENTS   (1u << 16) /* between two takes (a drain apart); more are counted, said */

/* One counter: a sysfs file, or one statistic of a network interface. */
struct counter {
	int fd;		 /* sysfs: the open file; -1 for ethtool */
	int nic;	 /* ethtool: index into nics; -1 for sysfs */
	uint32_t stat;	 /* ethtool: index into the interface's statistics */
	uint16_t what;	 /* TC_PATH_* */
	uint64_t last;	 /* the previous reading */
	uint64_t last_t; /* and when */
	int seen;
};

struct nic {
	char ifname[IFNAMSIZ];
	uint32_t n_stats;
	struct ethtool_stats *st; /* room for n_stats */
};

struct path_counters {
	struct counter c[MAX_COUNTERS];
	size_t n;
	struct nic *nics;
	size_t n_nics;
	int sock; /* for SIOCETHTOOL; -1 without ethtool counters */
	uint32_t first;

	pthread_t thr;
	int started;
	_Atomic int stop;
	unsigned int period_ms;
	int cpu;
	_Atomic uint32_t tid;

	pthread_mutex_t lock;
	struct tc_event *ev;
	size_t n_ev;
	uint64_t n_dropped; /* rises not kept: MAX_EVENTS between two takes */
};

/* clang-format off */
static const struct { const char *name; uint16_t what; } known[] = {
	/* RDMA port and hardware counters (mlx5, rxe, irdma, bnxt_re, InfiniBand) */
	{ "local_ack_timeout_err", TC_PATH_RETRANSMIT },
	{ "packet_seq_err", TC_PATH_RETRANSMIT },
	{ "out_of_sequence", TC_PATH_RETRANSMIT },
	{ "implied_nak_seq_err", TC_PATH_RETRANSMIT },
	{ "duplicate_request", TC_PATH_RETRANSMIT },
	{ "out_of_seq_request", TC_PATH_RETRANSMIT },
	{ "rcvd_seq_err", TC_PATH_RETRANSMIT },
	{ "completer_retry_err", TC_PATH_RETRANSMIT },
	{ "retry_exceeded_err", TC_PATH_RETRANSMIT },
	{ "req_transport_retries_exceeded", TC_PATH_RETRANSMIT },
	{ "roce_adp_retrans", TC_PATH_RETRANSMIT },
	{ "roce_slow_restart", TC_PATH_RETRANSMIT },
	{ "rnr_nak_retry_err", TC_PATH_RNR },
	{ "rcvd_rnr_err", TC_PATH_RNR },
	{ "send_rnr_err", TC_PATH_RNR },
	{ "retry_rnr_exceeded_err", TC_PATH_RNR },
	{ "req_rnr_retries_exceeded", TC_PATH_RNR },
	{ "np_ecn_marked_roce_packets", TC_PATH_ECN },
	{ "np_cnp_sent", TC_PATH_ECN },
	{ "rp_cnp_handled", TC_PATH_ECN },
	{ "rp_cnp_ignored", TC_PATH_ECN },
	{ "port_xmit_wait", TC_PATH_PFC_PAUSE },
};
/* clang-format on */

uint16_t path_counters_classify(const char *name)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(name, known[i].name))
			return known[i].what;
	/* the Ethernet side: pause frames per priority or global (not their durations) */
	if (strstr(name, "pause") && !strstr(name, "duration") && !strstr(name, "transition") &&
	    !strstr(name, "storm"))
		return TC_PATH_PFC_PAUSE;
	return 0;
}

static int read_sysfs(int fd, uint64_t *v)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = 0;
	*v = strtoull(buf, NULL, 10);
	return 0;
}

static struct counter *add(struct path_counters *pc, struct tc_trace *t, const char *name,
			   uint16_t what)
{
	char key[32];
	struct counter *c;

	if (pc->n == MAX_COUNTERS)
		return NULL;
	snprintf(key, sizeof(key), "counter.%u", pc->first + (uint32_t)pc->n);
	if (trace__set_meta(t, key, name))
		return NULL;
	c = &pc->c[pc->n++];
	*c = (struct counter){.fd = -1, .nic = -1, .what = what};
	return c;
}

/* The path counters of one port: <dir>/{counters,hw_counters}/<name>, dir = .../ports/<p>. */
static void find_port(struct path_counters *pc, struct tc_trace *t, const char *dir,
		      const char *dev, const char *port)
{
	static const char *const sub[] = {"counters", "hw_counters"};
	char path[PATH_MAX], file[PATH_MAX], name[256];
	struct dirent *f;

	for (int k = 0; k < 2; k++) {
		DIR *d;

		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, sub[k]) >= sizeof(path) ||
		    !(d = opendir(path)))
			continue;
		while ((f = readdir(d))) {
			uint16_t what = path_counters_classify(f->d_name);
			struct counter *c;
			int fd;

			if (!what ||
			    (size_t)snprintf(file, sizeof(file), "%s/%s", path, f->d_name) >=
				    sizeof(file) ||
			    (fd = open(file, O_RDONLY | O_CLOEXEC)) < 0)
				continue;
			snprintf(name, sizeof(name), "%.64s port %.8s %s/%.96s", dev, port, sub[k],
				 f->d_name);
			c = add(pc, t, name, what);
			if (!c) {
				close(fd);
				continue;
			}
			c->fd = fd;
		}
		closedir(d);
	}
}

/* Every RDMA port: <root>/sys/class/infiniband/<dev>/ports/<p>. */
static void find_rdma(struct path_counters *pc, const char *root, struct tc_trace *t)
{
	char path[PATH_MAX], port[PATH_MAX];
	struct dirent *d, *p;
	DIR *dd, *pd;

	snprintf(path, sizeof(path), "%s/sys/class/infiniband", root);
	dd = opendir(path);
	while (dd && (d = readdir(dd))) {
		if (d->d_name[0] == '.' ||
		    (size_t)snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/ports", root,
				     d->d_name) >= sizeof(path) ||
		    !(pd = opendir(path)))
			continue;
		while ((p = readdir(pd)))
			if (p->d_name[0] != '.' && (size_t)snprintf(port, sizeof(port), "%s/%s",
								    path, p->d_name) < sizeof(port))
				find_port(pc, t, port, d->d_name, p->d_name);
		closedir(pd);
	}
	if (dd)
		closedir(dd);
}

static int ethtool(int sock, const char *ifname, void *cmd)
{
	struct ifreq ifr = {0};

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = cmd;
	return ioctl(sock, SIOCETHTOOL, &ifr) ? -errno : 0;
}

/* The pause statistics of one interface, if it has any. */
static void find_nic(struct path_counters *pc, struct tc_trace *t, const char *ifname)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t len;
	} ss = {.hdr = {.cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ull << ETH_SS_STATS}};
	struct ethtool_gstrings *gs;
	struct nic *nics, *nic;
	uint32_t n;
	size_t before = pc->n;

	if (ethtool(pc->sock, ifname, &ss) || !ss.hdr.sset_mask || !(n = ss.len))
		return;
	gs = calloc(1, sizeof(*gs) + (size_t)n * ETH_GSTRING_LEN);
	if (!gs)
		return;
	*gs = (struct ethtool_gstrings){
		.cmd = ETHTOOL_GSTRINGS, .string_set = ETH_SS_STATS, .len = n};
	nics = realloc(pc->nics, (pc->n_nics + 1) * sizeof(*pc->nics));
	if (!nics || ethtool(pc->sock, ifname, gs)) {
		if (nics)
			pc->nics = nics;
		free(gs);
		return;
	}
	pc->nics = nics;
	nic = &pc->nics[pc->n_nics];
	for (uint32_t i = 0; i < gs->len && i < n; i++) {
		char stat[ETH_GSTRING_LEN + 1], name[IFNAMSIZ + ETH_GSTRING_LEN + 16];
		uint16_t what;
		struct counter *c;

		memcpy(stat, gs->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		stat[ETH_GSTRING_LEN] = 0;
		what = path_counters_classify(stat);
		if (!what)
			continue;
		snprintf(name, sizeof(name), "%s ethtool %s", ifname, stat);
		c = add(pc, t, name, what);
		if (!c)
			break;
		c->nic = (int)pc->n_nics;
		c->stat = i;
	}
	free(gs);
	if (pc->n == before)
		return;
	snprintf(nic->ifname, sizeof(nic->ifname), "%s", ifname);
	nic->n_stats = n;
	nic->st = calloc(1, sizeof(*nic->st) + (size_t)n * sizeof(uint64_t));
	if (!nic->st) {
		pc->n = before; /* its counters cannot be read */
		return;
	}
	pc->n_nics++;
}

static void find_nics(struct path_counters *pc, struct tc_trace *t)
{
	struct if_nameindex *ifs = if_nameindex(), *i;

	pc->sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (!ifs || pc->sock < 0) {
		if (ifs)
			if_freenameindex(ifs);
		return;
	}
	for (i = ifs; i->if_index; i++)
		if (strcmp(i->if_name, "lo"))
			find_nic(pc, t, i->if_name);
	if_freenameindex(ifs);
}

struct path_counters *path_counters__open(const char *root, struct tc_trace *t, uint32_t first)
{
	struct path_counters *pc = calloc(1, sizeof(*pc));

	if (!pc)
		return NULL;
	pc->first = first;
	pc->sock = -1;
	pthread_mutex_init(&pc->lock, NULL);
	pc->ev = malloc(MAX_EVENTS * sizeof(*pc->ev));
	if (!pc->ev) {
		path_counters__free(pc);
		errno = ENOMEM;
		return NULL;
	}
	find_rdma(pc, root ? root : "", t);
	if (!root || !*root)
		find_nics(pc, t);
	return pc;
}

size_t path_counters__n(const struct path_counters *pc)
{
	return pc->n;
}

/* One reading of every counter; a rise becomes an event. */
static void sample(struct path_counters *pc)
{
	uint64_t now = probe_now_ns();

	for (size_t k = 0; k < pc->n_nics; k++) {
		struct nic *nic = &pc->nics[k];

		nic->st->cmd = ETHTOOL_GSTATS;
		nic->st->n_stats = nic->n_stats;
		if (ethtool(pc->sock, nic->ifname, nic->st))
			nic->st->n_stats = 0;
	}
	for (size_t i = 0; i < pc->n; i++) {
		struct counter *c = &pc->c[i];
		uint64_t v;

		if (c->fd >= 0) {
			if (read_sysfs(c->fd, &v))
				continue;
		} else {
			const struct nic *nic = &pc->nics[c->nic];

			if (c->stat >= nic->st->n_stats)
				continue;
			v = nic->st->data[c->stat];
		}
		if (c->seen && v > c->last) {
			pthread_mutex_lock(&pc->lock);
			if (pc->n_ev == MAX_EVENTS)
				pc->n_dropped++;
			else
				pc->ev[pc->n_ev++] = (struct tc_event){
					.start_ns = c->last_t,
					.dur_ns = now - c->last_t,
					.delta = v - c->last,
					.arg = pc->first + (uint32_t)i,
					.kind = TC_EV_COUNTER,
					.flags = c->what,
				};
			pthread_mutex_unlock(&pc->lock);
		}
		c->last = v;
		c->last_t = now;
		c->seen = 1;
	}
}

static void *sampler_main(void *arg)
{
	struct path_counters *pc = arg;
	struct timespec next;

	atomic_store(&pc->tid, (uint32_t)syscall(SYS_gettid));
	if (pc->cpu >= 0)
		probe_pin_self(pc->cpu);
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!atomic_load(&pc->stop)) {
		sample(pc);
		next.tv_nsec += (long)pc->period_ms * 1000000L;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	sample(pc);
	return NULL;
}

int path_counters__start(struct path_counters *pc, unsigned int period_ms, int cpu)
{
	int err;

	if (!pc->n)
		return 0;
	pc->period_ms = period_ms;
	pc->cpu = cpu;
	err = -pthread_create(&pc->thr, NULL, sampler_main, pc);
	if (err) {
		log_err("start the path counters' sampler: %s", strerror(-err));
		return err;
	}
	pc->started = 1;
	while (!atomic_load(&pc->tid))
		usleep(100);
	return 0;
}

uint32_t path_counters__tid(const struct path_counters *pc)
{
	return atomic_load(&((struct path_counters *)pc)->tid);
}

void path_counters__take(struct path_counters *pc,
			 void (*emit)(void *ctx, const struct tc_event *e), void *ctx)
{
	pthread_mutex_lock(&pc->lock);
	for (size_t i = 0; i < pc->n_ev; i++)
		emit(ctx, &pc->ev[i]);
	pc->n_ev = 0;
	pthread_mutex_unlock(&pc->lock);
}

void path_counters__stop(struct path_counters *pc)
{
	if (!pc->started)
		return;
	atomic_store(&pc->stop, 1);
	pthread_join(pc->thr, NULL);
	pc->started = 0;
	if (pc->n_dropped)
		log_warn("path counters: %llu rises not kept (more than %u between two drains)",
			 (unsigned long long)pc->n_dropped, MAX_EVENTS);
}

void path_counters__free(struct path_counters *pc)
{
	if (!pc)
		return;
	path_counters__stop(pc);
	for (size_t i = 0; i < pc->n; i++)
		if (pc->c[i].fd >= 0)
			close(pc->c[i].fd);
	for (size_t k = 0; k < pc->n_nics; k++)
		free(pc->nics[k].st);
	free(pc->nics);
	if (pc->sock >= 0)
		close(pc->sock);
	free(pc->ev);
	pthread_mutex_destroy(&pc->lock);
	free(pc);
}
