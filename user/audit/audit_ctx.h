/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * audit_ctx.h - what the check groups share: the root they read under, the
 * probe CPUs, the NICs to look at, file helpers that take logical paths
 * ("/proc/cmdline") and read them under the root, and the result setters.
 */
#ifndef TAILCAUSE_AUDIT_AUDIT_CTX_H
#define TAILCAUSE_AUDIT_AUDIT_CTX_H

#include <dirent.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>

#include "core/util/cpuset.h"
#include "lib/str.h"
#include "host_audit.h"

/* A network interface to check, and the device whose IRQs it uses. */
struct audit_nic {
	char label[80];		  /* "mlx5_0 (eth2)", "eth0" */
	char rdma[64];		  /* RDMA device, "" for --nic */
	char ifname[IF_NAMESIZE]; /* netdev, "" when the RDMA device has none */
	char dev[256];		  /* logical path of its device directory, "" if none */
};

struct audit_ctx {
	char root[PATH_MAX];	     /* "" on the host itself */
	const struct audit_ops *ops; /* members NULL: not available (under a root) */
	struct tc_cpuset probe, online;
	char probe_list[64], online_list[128];
	char cmdline[4096];
	int have_cmdline;
	struct audit_nic nics[AUDIT_MAX_NICS * 2];
	size_t n_nics;
	char no_nic[256]; /* why n_nics == 0 */
	int nics_given;	  /* --nic was used */
	const char *nic_irq_pattern;
	struct tc_audit *out;
};

/* The groups of checks, one file each. */
void irq_checks_run(struct audit_ctx *c);      /* irqbalance, nic-irq-affinity */
void mm_checks_run(struct audit_ctx *c);       /* thp-*, khugepaged-defrag, compaction */
void cpu_checks_run(struct audit_ctx *c);      /* cpu-governor, c-states, isolation */
void nic_checks_run(struct audit_ctx *c);      /* nic-mtu, nic-rings, nic-coalesce */
void rdma_checks_run(struct audit_ctx *c);     /* rdma-port, memlock */
void virt_checks_run(struct audit_ctx *c);     /* steal */
void lossless_checks_run(struct audit_ctx *c); /* lossless-pfc, lossless-trust, lossless-ecn */
/* Fills c->nics from --nic or /sys/class/infiniband (nic_checks.c). */
void nic_checks_discover(struct audit_ctx *c, const struct host_audit_opts *o);
/* The host's side of struct audit_ops: SIOCETHTOOL, and the ports libibverbs lists. */
int nic_checks_ethtool(const char *ifname, void *cmd);
int rdma_checks_ports(struct audit_port *out, size_t max, size_t *n, char *why, size_t len);

/* File helpers: paths are printf formats of logical paths, read under c->root. */
void rootfs_path(const struct audit_ctx *c, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The first line of a file without its newline; 0 or -errno. */
int rootfs_read(const struct audit_ctx *c, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
FILE *rootfs_fopen(const struct audit_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
DIR *rootfs_opendir(const struct audit_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* 1 when the path exists (lstat: a dangling link exists). */
int rootfs_exists(const struct audit_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The last component of a symlink's target ("0000:81:00.0"); 0 or -errno. */
int rootfs_link_name(const struct audit_ctx *c, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Reads a cpulist file into s; 0 or -errno. */
int rootfs_cpulist(const struct audit_ctx *c, struct tc_cpuset *s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The name of IRQ irq: its /proc/interrupts actions, else /sys/kernel/irq/N/actions. */
int rootfs_irq_name(const struct audit_ctx *c, unsigned int irq, char *buf, size_t len);

/* The result of check id, marked present. */
struct tc_audit_result *audit_res(struct audit_ctx *c, enum tc_audit_check id);
/* Appends one item to the evidence ("; "-separated, "..." when full). */
void res_note(struct tc_audit_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Sets status, fix and summary when status is worse than the current one (or
 * none is set yet): a check over several subjects ends on its worst.
 */
void res_verdict(struct tc_audit_result *r, enum tc_audit_status status, const char *fix,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* "CPU 3" / "CPUs 2,3" into buf; returns buf. */
const char *cpus_phrase(const struct tc_cpuset *s, char *buf, size_t len);

#endif /* TAILCAUSE_AUDIT_AUDIT_CTX_H */
