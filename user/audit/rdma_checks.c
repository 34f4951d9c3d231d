// SPDX-License-Identifier: BSD-2-Clause
/*
 * rdma_checks.c - RDMA ports as libibverbs reports them (state, link layer,
 * active MTU, speed: what ibv_devinfo prints) and RLIMIT_MEMLOCK, which
 * bounds how much memory the verbs probe and other RDMA programs may register.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "audit_ctx.h"

#define PORT_ACTIVE	 4
#define MTU_BEST	 4096
#define MEMLOCK_MIN	 (64u << 10) /* below this the verbs probe cannot register its buffers */
#define CAP_IPC_LOCK_BIT 14

/* IBV_WIDTH_* and IBV_SPEED_* (verbs.h) as lanes and Gb/s per lane. */
static unsigned int lanes(uint8_t w)
{
	switch (w) {
	case 1:
		return 1;
	case 2:
		return 4;
	case 4:
		return 8;
	case 8:
		return 12;
	case 16:
		return 2;
	default:
		return 0;
	}
}

static double lane_gbps(uint8_t s)
{
	switch (s) {
	case 1:
		return 2.5; /* SDR */
	case 2:
		return 5.0; /* DDR */
	case 4:
		return 10.0; /* QDR, and 10GbE on RoCE */
	case 8:
		return 10.3125; /* FDR10 */
	case 16:
		return 14.0625; /* FDR */
	case 32:
		return 25.78125; /* EDR */
	case 64:
		return 50.0; /* HDR */
	case 128:
		return 100.0; /* NDR */
	default:
		return 0;
	}
}

static void fill_port(struct audit_port *p, const char *dev, unsigned int port,
		      const struct ibv_port_attr *a)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->dev, sizeof(p->dev), "%s", dev);
	p->port = port;
	p->state = a->state;
	p->link_layer = a->link_layer;
	p->active_mtu = a->active_mtu >= IBV_MTU_256 && a->active_mtu <= IBV_MTU_4096
				? 128u << a->active_mtu
				: 0;
	p->max_mtu =
		a->max_mtu >= IBV_MTU_256 && a->max_mtu <= IBV_MTU_4096 ? 128u << a->max_mtu : 0;
	p->width = lanes(a->active_width);
	p->lane_gbps = lane_gbps(a->active_speed);
}

/* Every port of one device into out; the device as one entry with err when it fails. */
static size_t device_ports(struct ibv_device *d, struct audit_port *out, size_t max)
{
	const char *name = ibv_get_device_name(d);
	struct ibv_context *ctx = ibv_open_device(d);
	struct ibv_device_attr da;
	size_t n = 0;
	int err;

	if (!ctx) {
		err = -errno;
		goto fail;
	}
	err = -ibv_query_device(ctx, &da);
	if (err)
		goto fail_close;
	for (unsigned int port = 1; port <= da.phys_port_cnt && n < max; port++) {
		struct ibv_port_attr pa;

		err = -ibv_query_port(ctx, (uint8_t)port, &pa);
		if (err) {
			memset(&out[n], 0, sizeof(out[n]));
			snprintf(out[n].dev, sizeof(out[n].dev), "%s", name);
			out[n].port = port;
			out[n++].err = err;
			continue;
		}
		fill_port(&out[n++], name, port, &pa);
	}
	ibv_close_device(ctx);
	return n;
fail_close:
	ibv_close_device(ctx);
fail:
	memset(&out[0], 0, sizeof(out[0]));
	snprintf(out[0].dev, sizeof(out[0].dev), "%s", name ? name : "?");
	out[0].err = err ? err : -EIO;
	return 1;
}

int rdma_checks_ports(struct audit_port *out, size_t max, size_t *n, char *why, size_t len)
{
	struct ibv_device **list;
	int num = 0;

	*n = 0;
	errno = 0;
	list = ibv_get_device_list(&num);
	if (!list && errno && errno != ENOSYS) {
		int err = -errno;

		snprintf(why, len, "ibv_get_device_list: %s", strerror(-err));
		return err;
	}
	if (!list || !num) {
		snprintf(why, len, "no RDMA device (ibv_devinfo lists none)");
		if (list)
			ibv_free_device_list(list);
		return 0;
	}
	for (int i = 0; i < num && *n < max; i++)
		*n += device_ports(list[i], out + *n, max - *n);
	ibv_free_device_list(list);
	return 0;
}

static const char *state_name(int s)
{
	static const char *const names[] = {"PORT_NOP",	  "PORT_DOWN",	 "PORT_INIT",
					    "PORT_ARMED", "PORT_ACTIVE", "PORT_ACTIVE_DEFER"};

	return s >= 0 && s < 6 ? names[s] : "PORT_?";
}

static void judge_port(struct tc_audit_result *r, const struct audit_port *p)
{
	const char *ll = p->link_layer == IBV_LINK_LAYER_ETHERNET     ? "Ethernet (RoCE)"
			 : p->link_layer == IBV_LINK_LAYER_INFINIBAND ? "InfiniBand"
								      : "unspecified";
	char fix[TC_AUDIT_FIX_LEN];

	if (p->err) {
		res_note(r, "%s%s%.0u: %s", p->dev, p->port ? " port " : "", p->port,
			 strerror(-p->err));
		res_verdict(r, TC_AUDIT_UNKNOWN, "", "%s cannot be queried: %s", p->dev,
			    strerror(-p->err));
		return;
	}
	res_note(r, "%s port %u: state %s (%d), link_layer %s, active_mtu %u (max %u), %ux %g Gb/s",
		 p->dev, p->port, state_name(p->state), p->state, ll, p->active_mtu, p->max_mtu,
		 p->width, p->lane_gbps);
	if (p->state != PORT_ACTIVE) {
		snprintf(fix, sizeof(fix),
			 "bring %.63s port %u up: check the cable and link (ibstat), the subnet "
			 "manager "
			 "on InfiniBand (opensm), the netdev on RoCE (ip link set up)",
			 p->dev, p->port);
		res_verdict(r, TC_AUDIT_FAIL, fix, "%s port %u is %s, not PORT_ACTIVE", p->dev,
			    p->port, state_name(p->state));
	} else if (p->active_mtu && p->active_mtu < MTU_BEST) {
		snprintf(fix, sizeof(fix), "%s",
			 p->link_layer == IBV_LINK_LAYER_ETHERNET
				 ? "raise the netdev MTU to 9000 (see nic-mtu): RoCE then runs 4096"
				 : "set MTU 4096 on the subnet manager (OpenSM partitions.conf "
				   "mtu=5)");
		res_verdict(r, TC_AUDIT_WARN, fix, "%s port %u active MTU %u < %u", p->dev, p->port,
			    p->active_mtu, MTU_BEST);
	} else {
		res_verdict(r, TC_AUDIT_OK, "", "%s port %u PORT_ACTIVE, %s, MTU %u", p->dev,
			    p->port, ll, p->active_mtu);
	}
}

static void check_ports(struct audit_ctx *c)
{
	struct tc_audit_result *r = audit_res(c, TC_AUDIT_RDMA_PORT);
	struct audit_port ports[64];
	char why[160] = "";
	size_t n = 0;
	int err;

	if (!c->ops->rdma_ports) {
		res_note(r, "libibverbs is not available under --root");
		res_verdict(r, TC_AUDIT_UNKNOWN, "", "not available under --root");
		return;
	}
	err = c->ops->rdma_ports(ports, sizeof(ports) / sizeof(ports[0]), &n, why, sizeof(why));
	if (err || !n) {
		res_note(r, "%s", why[0] ? why : strerror(-err));
		res_verdict(r, TC_AUDIT_UNKNOWN, "", "%s", why[0] ? why : strerror(-err));
		return;
	}
	for (size_t i = 0; i < n; i++)
		judge_port(r, &ports[i]);
}

/* "Max locked memory  8388608  8388608  bytes": the soft and hard limit (UINT64_MAX: unlimited). */
static int read_memlock(struct audit_ctx *c, uint64_t *soft, uint64_t *hard)
{
	FILE *f = rootfs_fopen(c, "/proc/self/limits");
	char line[256], s[32], h[32];
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Max locked memory", 17) ||
		    sscanf(line + 17, "%31s %31s", s, h) != 2)
			continue;
		*soft = strcmp(s, "unlimited") ? strtoull(s, NULL, 10) : UINT64_MAX;
		*hard = strcmp(h, "unlimited") ? strtoull(h, NULL, 10) : UINT64_MAX;
		err = 0;
	}
	fclose(f);
	return err;
}

static int has_ipc_lock(struct audit_ctx *c)
{
	FILE *f = rootfs_fopen(c, "/proc/self/status");
	char line[256];
	int has = 0;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7))
			has = (strtoull(line + 7, NULL, 16) >> CAP_IPC_LOCK_BIT) & 1;
	if (f)
		fclose(f);
	return has;
}

static void format_limit(uint64_t v, char *buf, size_t len)
{
	if (v == UINT64_MAX)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%" PRIu64 " KiB", v >> 10);
}

static void check_memlock(struct audit_ctx *c)
{
	struct tc_audit_result *r = audit_res(c, TC_AUDIT_MEMLOCK);
	const char *fix = "ulimit -l unlimited before the test, or '* - memlock unlimited' in "
			  "/etc/security/limits.conf (LimitMEMLOCK=infinity for a service)";
	uint64_t soft = 0, hard = 0;
	char s[32], h[32];
	int err = read_memlock(c, &soft, &hard), cap;

	if (err) {
		res_note(r, "/proc/self/limits: %s", strerror(-err));
		res_verdict(r, TC_AUDIT_UNKNOWN, "", "RLIMIT_MEMLOCK cannot be read");
		return;
	}
	cap = has_ipc_lock(c);
	format_limit(soft, s, sizeof(s));
	format_limit(hard, h, sizeof(h));
	res_note(r, "RLIMIT_MEMLOCK soft %s, hard %s (/proc/self/limits)%s", s, h,
		 cap ? "; CAP_IPC_LOCK held: the limit does not apply to this process" : "");
	if (soft == UINT64_MAX)
		res_verdict(r, TC_AUDIT_OK, "", "RLIMIT_MEMLOCK unlimited");
	else if (cap)
		res_verdict(r, TC_AUDIT_OK, "", "CAP_IPC_LOCK held (RLIMIT_MEMLOCK %s ignored)", s);
	else if (soft < MEMLOCK_MIN)
		res_verdict(
			r, TC_AUDIT_FAIL, fix,
			"RLIMIT_MEMLOCK %s: too low for the verbs probe to register its buffers",
			s);
	else
		res_verdict(r, TC_AUDIT_WARN, fix,
			    "RLIMIT_MEMLOCK %s: enough for the verbs probe, not for MPI or NCCL",
			    s);
}

void rdma_checks_run(struct audit_ctx *c)
{
	check_ports(c);
	check_memlock(c);
}
