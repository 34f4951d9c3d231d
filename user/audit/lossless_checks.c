// SPDX-License-Identifier: BSD-2-Clause
/*
 * lossless_checks.c - the lossless-network checks of a RoCE device (docs/domain.md's
 * "Lossless RoCE"): PFC on the RoCE traffic priority and no other, the trust mode
 * (DSCP, for routed RoCE v2), ECN on for both the notification and the reaction
 * point of that priority, and where the CNPs go.
 *
 * Read where the NIC driver exposes them: mlx5's /sys/class/net/<if>/ecn/
 * (roce_np and roce_rp enable/<prio>, cnp_802p_prio, cnp_dscp), and with NVIDIA's
 * MLNX_OFED its /sys/class/net/<if>/qos/ (pfc, trust); global pause with the
 * ethtool ioctl (ETHTOOL_GPAUSEPARAM). The RoCE priority is the one PFC is
 * enabled on when exactly one is, else 3 (the common mapping: DSCP 26).
 */
#include <errno.h>
#include <linux/ethtool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_ctx.h"

#define PRIOS	     8
#define DEFAULT_PRIO 3

/* What was read of one RoCE interface. */
struct lossless {
	const struct audit_nic *nic;
	int pfc_known;	 /* qos/pfc read */
	int pfc[PRIOS];	 /* 1: PFC on for that priority */
	int n_pfc;	 /* how many are on */
	int prio;	 /* the RoCE traffic priority */
	int pause_known; /* ETHTOOL_GPAUSEPARAM answered */
	int rx_pause, tx_pause;
	char trust[16]; /* "dscp", "pcp", "" unknown */
};

static int is_roce(struct audit_ctx *c, const struct audit_nic *n)
{
	char ll[32];

	return n->rdma[0] && n->ifname[0] &&
	       !rootfs_read(c, ll, sizeof(ll), "/sys/class/infiniband/%s/ports/1/link_layer",
			    n->rdma) &&
	       !strcmp(ll, "Ethernet");
}

/* qos/pfc: eight 0/1 flags, priority 0 first, separated by spaces or commas. */
static void read_pfc(struct audit_ctx *c, struct lossless *l)
{
	char buf[64], *p = buf, *end;
	int k = 0;

	if (rootfs_read(c, buf, sizeof(buf), "/sys/class/net/%s/qos/pfc", l->nic->ifname))
		return;
	for (; k < PRIOS; k++) {
		long v = strtol(p, &end, 10);

		if (end == p || (v != 0 && v != 1))
			return;
		l->pfc[k] = (int)v;
		l->n_pfc += (int)v;
		p = end + strspn(end, " ,\t");
	}
	l->pfc_known = 1;
}

static void read_one(struct audit_ctx *c, struct lossless *l)
{
	struct ethtool_pauseparam pp = {.cmd = ETHTOOL_GPAUSEPARAM};

	read_pfc(c, l);
	l->prio = DEFAULT_PRIO;
	for (int k = 0; l->pfc_known && l->n_pfc == 1 && k < PRIOS; k++)
		if (l->pfc[k])
			l->prio = k;
	if (c->ops->ethtool && !c->ops->ethtool(l->nic->ifname, &pp)) {
		l->pause_known = 1;
		l->rx_pause = (int)pp.rx_pause;
		l->tx_pause = (int)pp.tx_pause;
	}
	if (rootfs_read(c, l->trust, sizeof(l->trust), "/sys/class/net/%s/qos/trust",
			l->nic->ifname))
		l->trust[0] = 0;
}

static void judge_pfc(struct tc_audit_result *r, const struct lossless *l)
{
	const char *ifn = l->nic->ifname;
	char fix[TC_AUDIT_FIX_LEN], list[32] = "";
	size_t off = 0;

	snprintf(fix, sizeof(fix),
		 "PFC on the RoCE priority only, on the host and every switch port: mlnx_qos -i "
		 "%s --pfc 0,0,0,1,0,0,0,0 (priority 3), or dcb pfc set dev %s prio-pfc 3:on",
		 ifn, ifn);
	if (l->pause_known)
		res_note(r, "%s: global pause rx %s, tx %s (ETHTOOL_GPAUSEPARAM)", ifn,
			 l->rx_pause ? "on" : "off", l->tx_pause ? "on" : "off");
	if (!l->pfc_known) {
		res_note(r, "%s: /sys/class/net/%s/qos/pfc not readable", ifn, ifn);
		res_verdict(r, TC_AUDIT_UNKNOWN, "",
			    "%s: PFC not exposed in sysfs (read it with 'mlnx_qos -i %s' or "
			    "'dcb pfc show dev %s')",
			    ifn, ifn, ifn);
		return;
	}
	for (int k = 0; k < PRIOS; k++)
		if (l->pfc[k] && off < sizeof(list))
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%d",
						off ? "," : "", k);
	res_note(r, "%s: PFC on priorities %s (qos/pfc)", ifn, off ? list : "none");
	if (!l->n_pfc && l->pause_known && (l->rx_pause || l->tx_pause))
		res_verdict(r, TC_AUDIT_WARN, fix,
			    "%s: global pause instead of PFC: a congested queue stops all traffic, "
			    "not just RoCE's",
			    ifn);
	else if (!l->n_pfc)
		res_verdict(r, TC_AUDIT_FAIL, fix,
			    "%s: no PFC: the network is not lossless, a dropped RoCE packet is a "
			    "retransmission after the ACK timeout",
			    ifn);
	else if (l->n_pfc > 1)
		res_verdict(r, TC_AUDIT_WARN, fix,
			    "%s: PFC on %d priorities (%s): pauses spread beyond RoCE's traffic",
			    ifn, l->n_pfc, list);
	else
		res_verdict(r, TC_AUDIT_OK, "", "%s: PFC on priority %d only", ifn, l->prio);
}

static void judge_trust(struct tc_audit_result *r, const struct lossless *l)
{
	const char *ifn = l->nic->ifname;
	char fix[TC_AUDIT_FIX_LEN];

	snprintf(fix, sizeof(fix),
		 "trust DSCP on the host and the switches (mlnx_qos -i %s --trust dscp): RoCE v2 "
		 "is routed, and the PCP of its VLAN tag does not survive a router",
		 ifn);
	if (!l->trust[0]) {
		res_note(r, "%s: /sys/class/net/%s/qos/trust not readable", ifn, ifn);
		res_verdict(r, TC_AUDIT_UNKNOWN, "",
			    "%s: trust mode not exposed in sysfs (read it with 'mlnx_qos -i %s')",
			    ifn, ifn);
		return;
	}
	res_note(r, "%s: trust %s (qos/trust)", ifn, l->trust);
	if (!strcmp(l->trust, "dscp"))
		res_verdict(r, TC_AUDIT_OK, "", "%s: trust DSCP", ifn);
	else
		res_verdict(r, TC_AUDIT_WARN, fix,
			    "%s: trust %s: RoCE v2's priority comes from its DSCP once routed", ifn,
			    l->trust);
}

/* ecn/<point>/enable/<prio>: 1, 0, or -1 when absent. */
static int ecn_on(struct audit_ctx *c, const struct lossless *l, const char *point)
{
	char v[8];

	if (rootfs_read(c, v, sizeof(v), "/sys/class/net/%s/ecn/%s/enable/%d", l->nic->ifname,
			point, l->prio))
		return -1;
	return atoi(v) != 0;
}

static void judge_ecn(struct audit_ctx *c, struct tc_audit_result *r, const struct lossless *l)
{
	const char *ifn = l->nic->ifname;
	int np = ecn_on(c, l, "roce_np"), rp = ecn_on(c, l, "roce_rp");
	char fix[TC_AUDIT_FIX_LEN], prio[8], dscp[8];

	snprintf(
		fix, sizeof(fix),
		"ECN on both ends for priority %d: echo 1 > /sys/class/net/%s/ecn/roce_np/enable/%d "
		"and echo 1 > /sys/class/net/%s/ecn/roce_rp/enable/%d, and ECN marking on the "
		"switches: congestion then slows senders before PFC has to pause them",
		l->prio, ifn, l->prio, ifn, l->prio);
	if (np < 0 && rp < 0) {
		res_note(r, "%s: no /sys/class/net/%s/ecn/ (not an mlx5 RoCE device?)", ifn, ifn);
		res_verdict(r, TC_AUDIT_UNKNOWN, "", "%s: ECN settings not exposed in sysfs", ifn);
		return;
	}
	res_note(r, "%s: priority %d%s: ECN notification point %s, reaction point %s", ifn, l->prio,
		 l->pfc_known && l->n_pfc == 1 ? " (PFC's)" : " (the common mapping)",
		 np < 0 ? "?"
		 : np	? "on"
			: "off",
		 rp < 0 ? "?"
		 : rp	? "on"
			: "off");
	if (!rootfs_read(c, prio, sizeof(prio), "/sys/class/net/%s/ecn/roce_np/cnp_802p_prio",
			 ifn) &&
	    !rootfs_read(c, dscp, sizeof(dscp), "/sys/class/net/%s/ecn/roce_np/cnp_dscp", ifn))
		res_note(r, "%s: CNPs sent on priority %s, DSCP %s", ifn, prio, dscp);
	if (np == 1 && rp == 1)
		res_verdict(r, TC_AUDIT_OK, "", "%s: ECN on for priority %d (both points)", ifn,
			    l->prio);
	else if (np == 0 && rp == 0)
		res_verdict(r, TC_AUDIT_FAIL, fix,
			    "%s: ECN off for priority %d: congestion shows only as PFC pauses, or "
			    "drops",
			    ifn, l->prio);
	else
		res_verdict(r, TC_AUDIT_WARN, fix,
			    "%s: ECN %s only for priority %d: a CNP needs both ends", ifn,
			    np == 1 ? "notification point" : "reaction point", l->prio);
}

void lossless_checks_run(struct audit_ctx *c)
{
	struct tc_audit_result *pfc = audit_res(c, TC_AUDIT_PFC);
	struct tc_audit_result *trust = audit_res(c, TC_AUDIT_TRUST);
	struct tc_audit_result *ecn = audit_res(c, TC_AUDIT_ECN);
	int any = 0;

	for (size_t i = 0; i < c->n_nics; i++) {
		struct lossless l = {.nic = &c->nics[i]};

		if (!is_roce(c, l.nic))
			continue;
		any = 1;
		read_one(c, &l);
		judge_pfc(pfc, &l);
		judge_trust(trust, &l);
		judge_ecn(c, ecn, &l);
	}
	if (any)
		return;
	for (int k = 0; k < 3; k++) {
		struct tc_audit_result *r = k == 0 ? pfc : k == 1 ? trust : ecn;

		res_note(r, "no RoCE device (an RDMA port whose link layer is Ethernet)");
		res_verdict(r, TC_AUDIT_UNKNOWN, "", "no RoCE device to check");
	}
}
