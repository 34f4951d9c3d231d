/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * verbs.h - the verbs probe's parts, shared by its files only:
 *   verbs_dev.c    device, port, GID and MTU selection; queue pairs and their
 *                  RESET -> INIT -> RTR -> RTS walk
 *   verbs_oob.c    the line exchanged over the two-host link (link.h)
 *   verbs_clock.c  the timestamp clock: clock_gettime or calibrated TSC
 *   verbs.c        the probe_ops: threads, the ping-pong loops
 *
 * The method is ib_write_lat's: each side RDMA-WRITEs size bytes (inline when
 * they fit) into the peer's receive buffer and busy-polls the last byte of its
 * own receive buffer for the peer's answer.
 */
#ifndef TAILCAUSE_PROBE_VERBS_H
#define TAILCAUSE_PROBE_VERBS_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include "probe.h"

/* Bumped whenever the out-of-band exchange or the ping-pong protocol changes. */
#define VERBS_PROTO_VERSION 2

/* One opened device port, shared by the endpoints of a run. */
struct verbs_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	char name[IBV_SYSFS_NAME_MAX];
	uint8_t port;
	uint8_t link_layer; /* IBV_LINK_LAYER_* */
	uint16_t lid;
	int gid_index; /* -1: no GRH (InfiniBand without -x) */
	int gid_type;  /* IBV_GID_TYPE_*, -1 unknown */
	union ibv_gid gid;
	enum ibv_mtu mtu; /* the port's active MTU */
};

/*
 * What the peer needs to reach one endpoint, exchanged over TCP in two-host
 * mode and copied directly in loopback mode.
 */
struct verbs_dest {
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint16_t lid;
	uint64_t addr; /* the receive area the peer writes into */
	union ibv_gid gid;
	int gid_index; /* -1: no GRH */
	uint32_t mtu;  /* enum ibv_mtu */
};

/* One side of the ping-pong: a queue pair and its buffer. */
struct verbs_ep {
	struct verbs_dev *dev;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf; /* send area, then receive area */
	size_t buf_len;
	uint8_t *send;		/* what this side writes from */
	volatile uint8_t *recv; /* what the peer writes into */
	volatile uint64_t *ctl; /* in the receive area, after the data: stop word */
	uint64_t *stop_src;	/* in the send area: what the stop write sends */
	size_t size;		/* message size */
	int inlined;		/* writes carry IBV_SEND_INLINE */
	struct verbs_dest self;
	struct verbs_dest peer;
	struct ibv_send_wr wr; /* the data write, prepared once */
	struct ibv_sge sge;
};

/* verbs_dev.c */

/*
 * Opens o->ib_dev (or the first device), checks the port is PORT_ACTIVE,
 * picks the GID (o->gid_index, or the RoCE v2 IPv4-mapped one) and reads the
 * MTU. 0, or a negative errno after one "tailcause:" line: -ENODEV no such
 * device, -ENETDOWN port not active, -ENXIO no such port or GID.
 */
int verbs_dev__open(struct verbs_dev *d, const struct probe_opts *o);
void verbs_dev__close(struct verbs_dev *d);

/* Creates the QP, CQ and registered buffer of one endpoint (QP in INIT). 0 or -errno. */
int verbs_ep__create(struct verbs_ep *ep, struct verbs_dev *d, const struct probe_opts *o);
/* Moves the QP to RTR and RTS towards ep->peer. 0 or -errno (reported). */
int verbs_ep__connect(struct verbs_ep *ep);
void verbs_ep__destroy(struct verbs_ep *ep);

/*
 * Posts the prepared data write (last byte = seq) and busy-polls its
 * completion. 0 or -EIO (reported, with the completion status).
 */
int verbs_ep__write(struct verbs_ep *ep, uint8_t seq);
/* Writes the stop word into the peer's control slot, best effort. */
void verbs_ep__send_stop(struct verbs_ep *ep);

/* Whether some device has an active port: 1, or 0 (never reports). */
int verbs_any_active_port(void);

/* "fe80::1"-style text of a GID into buf (>= 46 bytes). */
const char *verbs_gid_str(const union ibv_gid *gid, char *buf, size_t len);

/* verbs_oob.c */

/*
 * Sends self and receives the peer's destination, run parameters, protocol
 * version and run id over the link (link.h); both sides must run the same -n
 * and -s. run_id (>= 17 bytes) gets the run's id, the client's. 0 or -errno
 * (reported; -EPROTO for a version or parameter mismatch).
 */
int verbs_oob__exchange(int fd, const struct probe_opts *o, const struct verbs_dest *self,
			struct verbs_dest *peer, char *run_id);

/* verbs_clock.c */

enum verbs_clock_kind {
	VERBS_CLOCK_MONOTONIC, /* clock_gettime(CLOCK_MONOTONIC) in the loop */
	VERBS_CLOCK_TSC,       /* rdtsc in the loop, mapped afterwards */
};

struct verbs_clock {
	enum verbs_clock_kind kind;
	double gettime_ns;	  /* measured cost of one clock_gettime */
	double tsc_ns;		  /* measured cost of one rdtsc */
	uint64_t tsc[3], mono[3]; /* pairs: at open, before, after the run */
	char desc[224];		  /* for the trace's run.clock and lat's output */
};

/*
 * Measures both clocks on the calling (pinned) thread and picks one: the TSC
 * where clock_gettime costs more than VERBS_CLOCK_SLACK_NS over rdtsc (a
 * syscall fallback, an emulated HPET), else CLOCK_MONOTONIC. want overrides
 * ("tsc", "monotonic"; NULL or "auto" decides).
 */
void verbs_clock__init(struct verbs_clock *c, const char *want);
/* One raw timestamp in the loop: TSC ticks or nanoseconds. */
uint64_t verbs_clock__read(const struct verbs_clock *c);
/* Takes pair i (0 open, 1 before, 2 after the run) on the timing thread. */
void verbs_clock__pair(struct verbs_clock *c, int i);
/* Turns raw stamps in s[0..n) into CLOCK_MONOTONIC ns (a no-op for MONOTONIC); notes the rate. */
void verbs_clock__convert(struct verbs_clock *c, struct tc_sample *s, size_t n);

#define VERBS_CLOCK_SLACK_NS 25.0

#endif /* TAILCAUSE_PROBE_VERBS_H */
