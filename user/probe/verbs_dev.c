// SPDX-License-Identifier: BSD-2-Clause
/*
 * verbs_dev.c - the verbs probe's device side: which device, port, GID and MTU
 * (perftest's -d/-i/-x, with RoCE v2 found automatically), and the RC queue
 * pairs of the ping-pong with their buffers and state walk.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "lib/log.h"
#include "verbs.h"

#define ALIGN_UP(x, a) (((x) + (a)-1) / (a) * (a))
#define CQ_DEPTH       16
#define SEND_DEPTH     16
#define HOP_LIMIT      64
#define RNR_TIMER      12 /* 0.64 ms */
#define ACK_TIMEOUT    14 /* 4.096 us * 2^14 = 67 ms per try */
#define RETRY_CNT      7

const char *verbs_gid_str(const union ibv_gid *gid, char *buf, size_t len)
{
	if (!inet_ntop(AF_INET6, gid->raw, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

static int gid_is_zero(const union ibv_gid *gid)
{
	static const union ibv_gid zero;

	return !memcmp(gid, &zero, sizeof(zero));
}

/* ::ffff:a.b.c.d, the form a RoCE v2 GID takes for an IPv4 address. */
static int gid_is_v4_mapped(const union ibv_gid *gid)
{
	static const uint8_t prefix[12] = {[10] = 0xff, [11] = 0xff};

	return !memcmp(gid->raw, prefix, sizeof(prefix));
}

/* The GID type from sysfs, for kernels without the ioctl behind ibv_query_gid_ex. */
static int sysfs_gid_type(const struct verbs_dev *d, int index)
{
	char path[512], type[32] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/ports/%u/gid_attrs/types/%d", d->ctx->device->ibdev_path,
		 d->port, index);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, type, sizeof(type) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	type[n] = 0;
	if (strstr(type, "RoCE v2"))
		return IBV_GID_TYPE_ROCE_V2;
	if (strstr(type, "v1"))
		return IBV_GID_TYPE_ROCE_V1;
	return IBV_GID_TYPE_IB;
}

/* Reads GID index into gid and type; 0, or -1 for an empty or unreadable entry. */
static int read_gid(const struct verbs_dev *d, int index, union ibv_gid *gid, int *type)
{
	struct ibv_gid_entry e;

	if (ibv_query_gid_ex(d->ctx, d->port, (uint32_t)index, &e, 0) == 0) {
		*gid = e.gid;
		*type = (int)e.gid_type;
		return gid_is_zero(gid) ? -1 : 0;
	}
	if (errno != EOPNOTSUPP && errno != ENOSYS && errno != EPROTONOSUPPORT)
		return -1; /* ENODATA: an empty slot */
	if (ibv_query_gid(d->ctx, d->port, index, gid) || gid_is_zero(gid))
		return -1;
	*type = sysfs_gid_type(d, index);
	return 0;
}

static const char *gid_type_name(int type)
{
	switch (type) {
	case IBV_GID_TYPE_IB:
		return "IB";
	case IBV_GID_TYPE_ROCE_V1:
		return "RoCE v1";
	case IBV_GID_TYPE_ROCE_V2:
		return "RoCE v2";
	}
	return "?";
}

/*
 * -x as given, or on Ethernet the best GID: RoCE v2 with an IPv4-mapped
 * address (routable, what perftest and NCCL pick), then any RoCE v2, then
 * anything. InfiniBand without -x goes by LID, without a GRH.
 */
static int pick_gid(struct verbs_dev *d, const struct probe_opts *o, int tbl_len)
{
	int best = -1, best_score = 0;

	if (o->gid_index >= 0) {
		if (o->gid_index >= tbl_len || read_gid(d, o->gid_index, &d->gid, &d->gid_type)) {
			log_err("-x %d: port %u of %s has no GID at index %d "
				"(see %s/ports/%u/gids)",
				o->gid_index, d->port, d->name, o->gid_index,
				d->ctx->device->ibdev_path, d->port);
			return -ENXIO;
		}
		d->gid_index = o->gid_index;
		return 0;
	}
	d->gid_index = -1;
	d->gid_type = -1;
	if (d->link_layer != IBV_LINK_LAYER_ETHERNET)
		return 0;
	for (int i = 0; i < tbl_len; i++) {
		union ibv_gid gid;
		int type, score;

		if (read_gid(d, i, &gid, &type))
			continue;
		score = type == IBV_GID_TYPE_ROCE_V2 ? 2 + gid_is_v4_mapped(&gid) : 1;
		if (score > best_score) {
			best = i;
			best_score = score;
			d->gid = gid;
			d->gid_type = type;
		}
	}
	if (best < 0) {
		log_err("%s port %u has no GID: give its network interface an IP address", d->name,
			d->port);
		return -ENXIO;
	}
	d->gid_index = best;
	log_dbg("%s port %u: GID index %d (%s)", d->name, d->port, best,
		gid_type_name(d->gid_type));
	return 0;
}

static struct ibv_device *find_device(struct ibv_device **list, int n, const char *want)
{
	char names[256] = "";
	size_t len = 0;

	for (int i = 0; i < n; i++) {
		const char *name = ibv_get_device_name(list[i]);

		if (!want || !strcmp(name, want))
			return list[i];
		len += (size_t)snprintf(names + len, len < sizeof(names) ? sizeof(names) - len : 0,
					"%s%s", i ? ", " : "", name);
	}
	log_err("RDMA device '%s' not found (ibv_devinfo lists: %s)", want, names);
	return NULL;
}

/* The state as ibv_devinfo spells it: PORT_DOWN, PORT_INIT, ... */
static const char *port_state_name(enum ibv_port_state st, char *buf, size_t len)
{
	const char *s = ibv_port_state_str(st);
	size_t i = 0;

	i += (size_t)snprintf(buf, len, "PORT_");
	for (; *s && i + 1 < len; s++, i++)
		buf[i] = *s == ' ' ? '_' : (char)toupper((unsigned char)*s);
	buf[i] = 0;
	return buf;
}

static int open_port(struct verbs_dev *d, const struct probe_opts *o)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	char state[32];
	int err;

	err = ibv_query_device(d->ctx, &da);
	if (err) {
		log_err("query RDMA device %s: %s", d->name, strerror(err));
		return -err;
	}
	if (o->ib_port < 1 || o->ib_port > da.phys_port_cnt) {
		log_err("-i %d: %s has ports 1..%u", o->ib_port, d->name, da.phys_port_cnt);
		return -ENXIO;
	}
	d->port = (uint8_t)o->ib_port;
	err = ibv_query_port(d->ctx, d->port, &pa);
	if (err) {
		log_err("query %s port %u: %s", d->name, d->port, strerror(err));
		return -err;
	}
	if (pa.state != IBV_PORT_ACTIVE) {
		log_err("%s port %u is %s, not PORT_ACTIVE "
			"(see ibv_devinfo -d %s; is the link up?)",
			d->name, d->port, port_state_name(pa.state, state, sizeof(state)), d->name);
		return -ENETDOWN;
	}
	d->link_layer = pa.link_layer;
	d->lid = pa.lid;
	d->mtu = pa.active_mtu;
	return pick_gid(d, o, pa.gid_tbl_len);
}

int verbs_dev__open(struct verbs_dev *d, const struct probe_opts *o)
{
	struct ibv_device **list;
	struct ibv_device *dev;
	int n = 0, err;

	memset(d, 0, sizeof(*d));
	list = ibv_get_device_list(&n);
	if (!list || n == 0) {
		log_err("no RDMA device: ibv_devinfo lists none (load the NIC's driver, or add "
			"soft-RoCE: rdma link add rxe0 type rxe netdev IFACE)");
		if (list)
			ibv_free_device_list(list);
		return -ENODEV;
	}
	dev = find_device(list, n, o->ib_dev);
	if (!dev) {
		ibv_free_device_list(list);
		return -ENODEV;
	}
	snprintf(d->name, sizeof(d->name), "%s", ibv_get_device_name(dev));
	d->ctx = ibv_open_device(dev);
	ibv_free_device_list(list);
	if (!d->ctx) {
		err = errno ? -errno : -ENODEV;
		log_err("open RDMA device %s: %s", d->name, strerror(-err));
		return err;
	}
	err = open_port(d, o);
	if (err)
		goto out_close;
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd) {
		err = errno ? -errno : -ENOMEM;
		log_err("allocate a protection domain on %s: %s", d->name, strerror(-err));
		goto out_close;
	}
	return 0;
out_close:
	ibv_close_device(d->ctx);
	d->ctx = NULL;
	return err;
}

void verbs_dev__close(struct verbs_dev *d)
{
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->ctx)
		ibv_close_device(d->ctx);
	d->pd = NULL;
	d->ctx = NULL;
}

/* Registration fails with ENOMEM/EPERM when RLIMIT_MEMLOCK is too small: say so. */
static int reg_failed(const struct verbs_dev *d, size_t len)
{
	int err = errno ? errno : ENOMEM;
	struct rlimit rl;
	char lim[32] = "?";

	if (!getrlimit(RLIMIT_MEMLOCK, &rl)) {
		if (rl.rlim_cur == RLIM_INFINITY)
			snprintf(lim, sizeof(lim), "unlimited");
		else
			snprintf(lim, sizeof(lim), "%llu KiB",
				 (unsigned long long)rl.rlim_cur >> 10);
	}
	log_err("register %zu bytes of memory with %s: %s (RLIMIT_MEMLOCK is %s: raise it with "
		"`ulimit -l unlimited` or /etc/security/limits.conf, or run as root)",
		len, d->name, strerror(err), lim);
	/* ENOLCK marks "could not lock memory": an environment failure (lib/exitcode.c). */
	return -ENOLCK;
}

static int create_qp(struct verbs_ep *ep, const struct probe_opts *o)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = ep->cq,
		.recv_cq = ep->cq,
		.qp_type = IBV_QPT_RC,
		.cap = {.max_send_wr = SEND_DEPTH,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1},
	};
	int inl = o->inline_size;

	/* A device that cannot inline that much refuses the QP: halve until it accepts. */
	for (;;) {
		ia.cap.max_inline_data = (uint32_t)inl;
		ep->qp = ibv_create_qp(ep->dev->pd, &ia);
		if (ep->qp || inl == 0)
			break;
		inl /= 2;
	}
	if (!ep->qp) {
		int err = errno ? -errno : -ENOMEM;

		log_err("create an RC queue pair on %s: %s", ep->dev->name, strerror(-err));
		return err;
	}
	ep->inlined = ep->size <= (size_t)o->inline_size && ep->size <= ia.cap.max_inline_data;
	return 0;
}

static int qp_to_init(struct verbs_ep *ep)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = ep->dev->port,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	int err;

	err = ibv_modify_qp(ep->qp, &a,
			    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (err) {
		log_err("move queue pair to INIT on %s: %s", ep->dev->name, strerror(err));
		return -err;
	}
	return 0;
}

int verbs_ep__create(struct verbs_ep *ep, struct verbs_dev *d, const struct probe_opts *o)
{
	/* Each area: the message, then a 64-byte control slot (the stop word). */
	size_t area = ALIGN_UP(o->size, 64) + 64;
	long page = sysconf(_SC_PAGESIZE);
	int err;

	memset(ep, 0, sizeof(*ep));
	ep->dev = d;
	ep->size = o->size;
	ep->buf_len = ALIGN_UP(2 * area, (size_t)(page > 0 ? page : 4096));
	if (posix_memalign((void **)&ep->buf, (size_t)(page > 0 ? page : 4096), ep->buf_len))
		return -ENOMEM;
	memset(ep->buf, 0, ep->buf_len);
	ep->send = ep->buf;
	ep->recv = ep->buf + area;
	ep->ctl = (volatile uint64_t *)(ep->buf + area + ALIGN_UP(o->size, 64));
	ep->stop_src = (uint64_t *)(ep->send + ALIGN_UP(o->size, 64));
	*ep->stop_src = 1;
	ep->mr = ibv_reg_mr(d->pd, ep->buf, ep->buf_len,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!ep->mr) {
		err = reg_failed(d, ep->buf_len);
		goto out;
	}
	ep->cq = ibv_create_cq(d->ctx, CQ_DEPTH, NULL, NULL, 0);
	if (!ep->cq) {
		err = errno ? -errno : -ENOMEM;
		log_err("create a completion queue on %s: %s", d->name, strerror(-err));
		goto out;
	}
	err = create_qp(ep, o);
	err = err ?: qp_to_init(ep);
	if (err)
		goto out;
	ep->self = (struct verbs_dest){
		.qpn = ep->qp->qp_num,
		.psn = (uint32_t)lrand48() & 0xffffff,
		.rkey = ep->mr->rkey,
		.lid = d->lid,
		.addr = (uintptr_t)ep->recv,
		.gid = d->gid,
		.gid_index = d->gid_index,
		.mtu = d->mtu,
	};
	return 0;
out:
	verbs_ep__destroy(ep);
	return err;
}

static int qp_to_rtr(struct verbs_ep *ep)
{
	const struct verbs_dest *p = &ep->peer;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = (enum ibv_mtu)(p->mtu < ep->self.mtu ? p->mtu : ep->self.mtu),
		.dest_qp_num = p->qpn,
		.rq_psn = p->psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = RNR_TIMER,
		.ah_attr = {.dlid = p->lid, .port_num = ep->dev->port},
	};
	int err;

	if (ep->self.gid_index >= 0) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = p->gid;
		a.ah_attr.grh.sgid_index = (uint8_t)ep->self.gid_index;
		a.ah_attr.grh.hop_limit = HOP_LIMIT;
	}
	err = ibv_modify_qp(ep->qp, &a,
			    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER);
	if (err) {
		log_err("move queue pair to RTR on %s (peer QPN 0x%06x): %s", ep->dev->name, p->qpn,
			strerror(err));
		return -err;
	}
	return 0;
}

static int qp_to_rts(struct verbs_ep *ep)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.timeout = ACK_TIMEOUT,
		.retry_cnt = RETRY_CNT,
		.rnr_retry = 7,
		.sq_psn = ep->self.psn,
		.max_rd_atomic = 1,
	};
	int err;

	err = ibv_modify_qp(ep->qp, &a,
			    IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	if (err) {
		log_err("move queue pair to RTS on %s: %s", ep->dev->name, strerror(err));
		return -err;
	}
	return 0;
}

int verbs_ep__connect(struct verbs_ep *ep)
{
	int err = qp_to_rtr(ep) ?: qp_to_rts(ep);

	if (err)
		return err;
	ep->sge = (struct ibv_sge){
		.addr = (uintptr_t)ep->send,
		.length = (uint32_t)ep->size,
		.lkey = ep->mr->lkey,
	};
	ep->wr = (struct ibv_send_wr){
		.wr_id = 1,
		.sg_list = &ep->sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED | (ep->inlined ? IBV_SEND_INLINE : 0),
		.wr.rdma = {.remote_addr = ep->peer.addr, .rkey = ep->peer.rkey},
	};
	return 0;
}

static int wait_completion(struct verbs_ep *ep, const char *what)
{
	struct ibv_wc wc;
	int n;

	do
		n = ibv_poll_cq(ep->cq, 1, &wc);
	while (n == 0);
	if (n < 0) {
		log_err("poll the completion queue on %s: %s", ep->dev->name, strerror(-n));
		return -EIO;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		log_err("%s on %s completed with '%s' (vendor error 0x%x)%s", what, ep->dev->name,
			ibv_wc_status_str(wc.status), wc.vendor_err,
			wc.status == IBV_WC_RETRY_EXC_ERR ? ": the peer stopped answering" : "");
		return -EIO;
	}
	return 0;
}

int verbs_ep__write(struct verbs_ep *ep, uint8_t seq)
{
	struct ibv_send_wr *bad;
	int err;

	ep->send[ep->size - 1] = seq;
	err = ibv_post_send(ep->qp, &ep->wr, &bad);
	if (err) {
		log_err("post an RDMA WRITE on %s: %s", ep->dev->name, strerror(err));
		return -err;
	}
	return wait_completion(ep, "RDMA WRITE");
}

void verbs_ep__send_stop(struct verbs_ep *ep)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)ep->stop_src,
		.length = sizeof(*ep->stop_src),
		.lkey = ep->mr->lkey,
	};
	uintptr_t ctl_off = (uintptr_t)ep->ctl - (uintptr_t)ep->recv;
	struct ibv_send_wr wr = {
		.wr_id = 2,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = {.remote_addr = ep->peer.addr + ctl_off, .rkey = ep->peer.rkey},
	};
	struct ibv_send_wr *bad;

	if (!ep->qp || ibv_post_send(ep->qp, &wr, &bad))
		return;
	wait_completion(ep, "stop write");
}

void verbs_ep__destroy(struct verbs_ep *ep)
{
	if (ep->qp)
		ibv_destroy_qp(ep->qp);
	if (ep->cq)
		ibv_destroy_cq(ep->cq);
	if (ep->mr)
		ibv_dereg_mr(ep->mr);
	free(ep->buf);
	memset(ep, 0, sizeof(*ep));
}

int verbs_any_active_port(void)
{
	struct ibv_device **list;
	int n = 0, found = 0;

	list = ibv_get_device_list(&n);
	for (int i = 0; list && i < n && !found; i++) {
		struct ibv_context *ctx = ibv_open_device(list[i]);
		struct ibv_device_attr da;

		if (!ctx)
			continue;
		if (!ibv_query_device(ctx, &da)) {
			for (uint8_t p = 1; p <= da.phys_port_cnt && !found; p++) {
				struct ibv_port_attr pa;

				found = !ibv_query_port(ctx, p, &pa) && pa.state == IBV_PORT_ACTIVE;
			}
		}
		ibv_close_device(ctx);
	}
	if (list)
		ibv_free_device_list(list);
	return found;
}
