// SPDX-License-Identifier: BSD-2-Clause
/*
 * nic_checks.c - which NICs to check (--nic, else every RDMA device and its
 * network interfaces), their MTU against the recommendation for the link
 * type, and ring sizes and interrupt coalescing through the ethtool ioctl
 * (SIOCETHTOOL: ETHTOOL_GRINGPARAM, ETHTOOL_GCOALESCE).
 */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "audit_ctx.h"

#define ARPHRD_ETHER_TYPE      1
#define ARPHRD_INFINIBAND_TYPE 32
#define MTU_ROCE	       9000
#define MTU_IPOIB	       4092 /* IPoIB datagram MTU on a 4096-byte IB MTU */

int nic_checks_ethtool(const char *ifname, void *cmd)
{
	struct ifreq ifr = {0};
	int fd, err = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = cmd;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		err = -errno;
	close(fd);
	return err;
}

static struct audit_nic *add_nic(struct audit_ctx *c, const char *rdma, const char *ifname,
				 const char *dev)
{
	struct audit_nic *n;

	if (c->n_nics == sizeof(c->nics) / sizeof(c->nics[0]))
		return NULL;
	n = &c->nics[c->n_nics++];
	snprintf(n->rdma, sizeof(n->rdma), "%s", rdma);
	snprintf(n->ifname, sizeof(n->ifname), "%s", ifname);
	snprintf(n->dev, sizeof(n->dev), "%s", dev);
	if (rdma[0] && ifname[0])
		snprintf(n->label, sizeof(n->label), "%s (%s)", rdma, ifname);
	else
		snprintf(n->label, sizeof(n->label), "%s", rdma[0] ? rdma : ifname);
	return n;
}

/* The network interfaces of RDMA device ib: those in device/net, else the ports' RoCE netdevs. */
static void add_rdma_device(struct audit_ctx *c, const char *ib)
{
	char dev[256] = "", ndev[IF_NAMESIZE];
	size_t before = c->n_nics;
	struct dirent *de;
	DIR *d;

	if (rootfs_exists(c, "/sys/class/infiniband/%s/device", ib))
		snprintf(dev, sizeof(dev), "/sys/class/infiniband/%s/device", ib);
	d = dev[0] ? rootfs_opendir(c, "%s/net", dev) : NULL;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			add_nic(c, ib, de->d_name, dev);
	if (d)
		closedir(d);
	for (int port = 1; c->n_nics == before && port <= 8; port++)
		if (!rootfs_read(c, ndev, sizeof(ndev),
				 "/sys/class/infiniband/%s/ports/%d/gid_attrs/ndevs/0", ib, port) &&
		    ndev[0])
			add_nic(c, ib, ndev, dev);
	if (c->n_nics == before)
		add_nic(c, ib, "", dev);
}

void nic_checks_discover(struct audit_ctx *c, const struct host_audit_opts *o)
{
	struct dirent *de;
	DIR *d;

	c->nics_given = o->n_nics > 0;
	for (size_t i = 0; i < o->n_nics && i < AUDIT_MAX_NICS; i++) {
		char dev[256] = "";

		if (rootfs_exists(c, "/sys/class/infiniband/%s", o->nics[i])) {
			add_rdma_device(c, o->nics[i]);
			continue;
		}
		if (rootfs_exists(c, "/sys/class/net/%s/device", o->nics[i]))
			snprintf(dev, sizeof(dev), "/sys/class/net/%s/device", o->nics[i]);
		add_nic(c, "", o->nics[i], dev);
	}
	if (c->nics_given)
		return;
	d = rootfs_opendir(c, "/sys/class/infiniband");
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			add_rdma_device(c, de->d_name);
	if (d)
		closedir(d);
	if (!c->n_nics)
		snprintf(c->no_nic, sizeof(c->no_nic),
			 "no RDMA device (/sys/class/infiniband %s) and no --nic given",
			 d ? "is empty" : "is missing");
}

/* An interface to check, or a verdict on why not; 1 when there is one. */
static int usable(struct audit_ctx *c, struct tc_audit_result *r, const struct audit_nic *n)
{
	if (!n->ifname[0]) {
		res_note(r, "%s: no network interface", n->label);
		res_verdict(r, TC_AUDIT_UNKNOWN, "", "%s has no network interface", n->label);
		return 0;
	}
	if (!rootfs_exists(c, "/sys/class/net/%s", n->ifname)) {
		res_note(r, "/sys/class/net/%s: missing", n->ifname);
		res_verdict(r, TC_AUDIT_UNKNOWN, "", "no interface %s", n->ifname);
		return 0;
	}
	return 1;
}

static int no_nics(struct audit_ctx *c, struct tc_audit_result *r)
{
	if (c->n_nics)
		return 0;
	res_note(r, "%s", c->no_nic);
	res_verdict(r, TC_AUDIT_UNKNOWN, "", "no NIC to check: %s", c->no_nic);
	return 1;
}

static void check_mtu(struct audit_ctx *c)
{
	struct tc_audit_result *r = audit_res(c, TC_AUDIT_MTU);
	char buf[32], fix[TC_AUDIT_FIX_LEN];

	if (no_nics(c, r))
		return;
	for (size_t i = 0; i < c->n_nics; i++) {
		const struct audit_nic *n = &c->nics[i];
		long mtu, type;

		if (!usable(c, r, n))
			continue;
		if (rootfs_read(c, buf, sizeof(buf), "/sys/class/net/%s/mtu", n->ifname)) {
			res_note(r, "/sys/class/net/%s/mtu: unreadable", n->ifname);
			res_verdict(r, TC_AUDIT_UNKNOWN, "", "%s: MTU unreadable", n->ifname);
			continue;
		}
		mtu = atol(buf);
		type = rootfs_read(c, buf, sizeof(buf), "/sys/class/net/%s/type", n->ifname)
			       ? -1
			       : atol(buf);
		if (type == ARPHRD_INFINIBAND_TYPE) {
			res_note(r, "%s: IPoIB, mtu %ld (/sys/class/net/%s/mtu)", n->label, mtu,
				 n->ifname);
			snprintf(fix, sizeof(fix),
				 "set the IB MTU to 4096 in the subnet manager (OpenSM "
				 "partitions.conf "
				 "mtu=5) so %s runs at %d",
				 n->ifname, MTU_IPOIB);
			if (mtu >= MTU_IPOIB)
				res_verdict(r, TC_AUDIT_OK, "", "%s: IPoIB MTU %ld (IB MTU 4096)",
					    n->ifname, mtu);
			else
				res_verdict(r, TC_AUDIT_WARN, fix,
					    "%s: IPoIB MTU %ld: the IB MTU is below 4096",
					    n->ifname, mtu);
			continue;
		}
		res_note(r, "%s: %s, mtu %ld (/sys/class/net/%s/mtu)", n->label,
			 type == ARPHRD_ETHER_TYPE ? "Ethernet" : "link type", mtu, n->ifname);
		snprintf(fix, sizeof(fix),
			 "ip link set dev %s mtu %d, and the same on every switch port of the path",
			 n->ifname, MTU_ROCE);
		if (mtu >= MTU_ROCE)
			res_verdict(r, TC_AUDIT_OK, "", "%s: MTU %ld", n->ifname, mtu);
		else
			res_verdict(r, TC_AUDIT_WARN, fix, "%s: MTU %ld, %d recommended for RoCE",
				    n->ifname, mtu, MTU_ROCE);
	}
}

/* Runs an ethtool get command on n; 0, or a verdict explaining why not and -errno. */
static int ethtool_get(struct audit_ctx *c, struct tc_audit_result *r, const struct audit_nic *n,
		       void *cmd, const char *what)
{
	int err;

	if (!c->ops->ethtool) {
		res_note(r, "%s: ethtool ioctl not available under --root", n->ifname);
		res_verdict(r, TC_AUDIT_UNKNOWN, "", "not available under --root");
		return -EOPNOTSUPP;
	}
	err = c->ops->ethtool(n->ifname, cmd);
	if (err) {
		res_note(r, "%s: SIOCETHTOOL %s: %s", n->ifname, what, strerror(-err));
		res_verdict(r, TC_AUDIT_UNKNOWN, "", "%s: %s", n->ifname,
			    err == -EOPNOTSUPP ? "the driver does not report it" : strerror(-err));
	}
	return err;
}

static void check_rings(struct audit_ctx *c)
{
	struct tc_audit_result *r = audit_res(c, TC_AUDIT_RINGS);
	char fix[TC_AUDIT_FIX_LEN];

	if (no_nics(c, r))
		return;
	for (size_t i = 0; i < c->n_nics; i++) {
		struct ethtool_ringparam rp = {.cmd = ETHTOOL_GRINGPARAM};
		const struct audit_nic *n = &c->nics[i];

		if (!usable(c, r, n) || ethtool_get(c, r, n, &rp, "ETHTOOL_GRINGPARAM"))
			continue;
		res_note(r, "%s: rx %u of max %u, tx %u of max %u (ETHTOOL_GRINGPARAM)", n->ifname,
			 rp.rx_pending, rp.rx_max_pending, rp.tx_pending, rp.tx_max_pending);
		snprintf(fix, sizeof(fix), "ethtool -G %s rx %u tx %u", n->ifname,
			 rp.rx_max_pending, rp.tx_max_pending);
		if (!rp.rx_max_pending && !rp.tx_max_pending)
			res_verdict(r, TC_AUDIT_UNKNOWN, "", "%s reports no ring maximum",
				    n->ifname);
		else if (rp.rx_pending < rp.rx_max_pending || rp.tx_pending < rp.tx_max_pending)
			res_verdict(r, TC_AUDIT_WARN, fix,
				    "%s rings below maximum (rx %u/%u, tx %u/%u)", n->ifname,
				    rp.rx_pending, rp.rx_max_pending, rp.tx_pending,
				    rp.tx_max_pending);
		else
			res_verdict(r, TC_AUDIT_OK, "", "%s rings at maximum", n->ifname);
	}
}

static void check_coalesce(struct audit_ctx *c)
{
	struct tc_audit_result *r = audit_res(c, TC_AUDIT_COALESCE);
	char fix[TC_AUDIT_FIX_LEN];

	if (no_nics(c, r))
		return;
	for (size_t i = 0; i < c->n_nics; i++) {
		struct ethtool_coalesce ec = {.cmd = ETHTOOL_GCOALESCE};
		const struct audit_nic *n = &c->nics[i];

		if (!usable(c, r, n) || ethtool_get(c, r, n, &ec, "ETHTOOL_GCOALESCE"))
			continue;
		res_note(r,
			 "%s: rx-usecs %u, rx-frames %u, adaptive-rx %s, tx-usecs %u, "
			 "adaptive-tx %s (ETHTOOL_GCOALESCE)",
			 n->ifname, ec.rx_coalesce_usecs, ec.rx_max_coalesced_frames,
			 ec.use_adaptive_rx_coalesce ? "on" : "off", ec.tx_coalesce_usecs,
			 ec.use_adaptive_tx_coalesce ? "on" : "off");
		snprintf(fix, sizeof(fix),
			 "ethtool -C %s adaptive-rx on (the training default), or adaptive-rx off "
			 "rx-usecs 0 for the lowest latency",
			 n->ifname);
		if (ec.use_adaptive_rx_coalesce)
			res_verdict(r, TC_AUDIT_OK, "", "%s: adaptive RX coalescing", n->ifname);
		else if (!ec.rx_coalesce_usecs)
			res_verdict(r, TC_AUDIT_OK, "", "%s: RX coalescing off", n->ifname);
		else
			res_verdict(r, TC_AUDIT_WARN, fix,
				    "%s holds RX interrupts up to %u us (fixed rx-usecs)",
				    n->ifname, ec.rx_coalesce_usecs);
	}
}

void nic_checks_run(struct audit_ctx *c)
{
	check_mtu(c);
	check_rings(c);
	check_coalesce(c);
}
