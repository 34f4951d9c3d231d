/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * host_audit.h - runs the host tuning checklist (core/model/audit.h) on this host,
 * or on a copy of its sysfs/procfs/etc under a root directory (the tests'
 * fixtures). Every check ends ok, warn, fail or unknown with the evidence it
 * read; a missing file or device is an unknown with the reason, never an error.
 *
 * The two parts that are not files, the ethtool ioctl and libibverbs, go
 * through struct audit_ops: the real ones on the real host, none under a root
 * (those checks are then unknown) unless the caller passes its own.
 */
#ifndef TAILCAUSE_AUDIT_HOST_AUDIT_H
#define TAILCAUSE_AUDIT_HOST_AUDIT_H

#include <stddef.h>

#include "core/model/audit.h"
#include "core/trace/trace.h"

#define AUDIT_MAX_NICS 16

/* One RDMA port as libibverbs reports it (ibv_query_port). */
struct audit_port {
	char dev[64];		 /* "mlx5_0" */
	unsigned int port;	 /* 1-based; 0 when the device itself failed */
	int err;		 /* -errno of ibv_open_device/ibv_query_*; 0 ok */
	int state;		 /* enum ibv_port_state: 4 = PORT_ACTIVE */
	int link_layer;		 /* IBV_LINK_LAYER_*: 1 InfiniBand, 2 Ethernet */
	unsigned int active_mtu; /* bytes (256..4096), 0 unknown */
	unsigned int max_mtu;	 /* bytes, 0 unknown */
	unsigned int width;	 /* lanes: 1, 2, 4, 8, 12; 0 unknown */
	double lane_gbps;	 /* signalling rate per lane, 0 unknown */
};

struct audit_ops {
	/* SIOCETHTOOL on ifname with cmd (a struct ethtool_* with .cmd set); 0 or -errno. */
	int (*ethtool)(const char *ifname, void *cmd);
	/*
	 * Lists every port of every RDMA device into out[0..max); *n = entries.
	 * 0, with *n = 0 and why saying so when there is no device; -errno on failure.
	 */
	int (*rdma_ports)(struct audit_port *out, size_t max, size_t *n, char *why, size_t len);
};

/* The real ioctl and libibverbs. */
extern const struct audit_ops audit_ops_host;

struct host_audit_opts {
	const char *root;		  /* NULL or "/": the host itself */
	const char *cpus;		  /* probe CPUs; NULL: last two online; "": none */
	const char *nics[AUDIT_MAX_NICS]; /* --nic interfaces; none: every RDMA device */
	size_t n_nics;
	const char *nic_irq_pattern; /* IRQ names of the NIC (fnmatch), or NULL */
	const struct audit_ops *ops; /* NULL: audit_ops_host on the host, none under root */
};

/*
 * Runs every check into out, its texts escaped (lib/str.h: they quote what the host
 * holds, NIC and IRQ names included). 0; -EINVAL when o->cpus is not a cpulist of
 * online CPUs, or -ENOENT when o->root is not a directory, with the reason in
 * why (nothing is printed).
 */
int host_audit_run(const struct host_audit_opts *o, struct tc_audit *out, char *why, size_t len);

/*
 * Audits this host for probe CPUs cpu[0], cpu[1] (NULL: none, for a traced
 * command) and stores the snapshot in t as audit.* meta keys; 0 or -ENOMEM.
 */
int host_audit_store(struct tc_trace *t, const int cpu[2]);

/*
 * Whether the host under root (NULL or "/": this one) is a virtual machine: 1 with
 * the hypervisor's name in buf ("KVM"; "a hypervisor" when it cannot be told), 0
 * with buf "" on bare metal, -1 when /proc/cpuinfo cannot be read.
 */
int audit_hypervisor(const char *root, char *buf, size_t len);

/* How many checks of a finished audit fail. */
size_t host_audit_failing(const struct tc_audit *a);

#endif /* TAILCAUSE_AUDIT_HOST_AUDIT_H */
