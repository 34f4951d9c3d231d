// SPDX-License-Identifier: BSD-2-Clause
/* cmd_audit.c - `tailcause audit`: the host tuning checklist, with evidence and a fix each. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/audit_print.h"
#include "audit/host_audit.h"
#include "cli.h"
#include "lib/log.h"

enum { OPT_NIC = 0x100, OPT_NIC_IRQ, OPT_JSON, OPT_ROOT };

static const struct cli_opt audit_options[] = {
	{{"cpu", required_argument, NULL, 'c'},
	 0,
	 "LIST",
	 "the probe CPUs, a cpulist such as 2,3 or 2-5 (default: the\n"
	 "last two online, where 'tailcause run' puts the probe)"},
	{{"nic", required_argument, NULL, OPT_NIC},
	 0,
	 "IFACE",
	 "check this network interface or RDMA device (repeatable;\n"
	 "default: every RDMA device in /sys/class/infiniband)"},
	{{"nic-irq", required_argument, NULL, OPT_NIC_IRQ},
	 0,
	 "PAT",
	 "also check the IRQs whose name matches this shell pattern,\n"
	 "e.g. 'mlx5_comp*' (names from /proc/interrupts)"},
	{{"json", no_argument, NULL, OPT_JSON},
	 0,
	 NULL,
	 "print JSON instead of text (docs/audit-schema.md)"},
	{{"root", required_argument, NULL, OPT_ROOT},
	 0,
	 "DIR",
	 "read sysfs, procfs and /etc under DIR instead of / (a copy\n"
	 "of another host's files, or a test fixture); the ethtool\n"
	 "and libibverbs checks are then unknown"},
	{{"help", no_argument, NULL, 'h'}, 0, NULL, "this text"},
	{{0}},
};
#define N_AUDIT_OPTIONS (sizeof(audit_options) / sizeof(audit_options[0]))

const struct cli_opts cmd_audit_opts = {audit_options, 0, 23};

static void audit_help(void)
{
	printf("usage: tailcause audit [--cpu LIST] [--nic IFACE]... [--nic-irq PATTERN] [--json]\n"
	       "                       [--root DIR]\n"
	       "\n"
	       "Checks this host against the RDMA latency tuning checklist and prints, for every\n"
	       "check, its status (ok, warn, fail, unknown), the evidence it read, why it matters\n"
	       "and the fix. Needs no privileges; what cannot be read is 'unknown', with the\n"
	       "reason. 'tailcause record' stores the same audit in every trace, and the report\n"
	       "joins it to the causes it measured.\n"
	       "\n"
	       "checks:\n"
	       "  irqbalance         not running (/proc/*/comm), not enabled (systemd *.wants)\n"
	       "  nic-irq-affinity   each NIC IRQ's smp_affinity_list and effective affinity vs\n"
	       "                     the probe CPUs and the NIC's NUMA node (device/numa_node)\n"
	       "  thp-enabled        /sys/kernel/mm/transparent_hugepage/enabled = never\n"
	       "  thp-defrag         .../transparent_hugepage/defrag = never\n"
	       "  khugepaged-defrag  .../transparent_hugepage/khugepaged/defrag = 0\n"
	       "  compaction         compact_stall, thp_collapse_alloc... in /proc/vmstat\n"
	       "  cpu-governor       performance governor on the probe CPUs (cpufreq)\n"
	       "  c-states           no deep cpuidle state enabled on the probe CPUs; limits on\n"
	       "                     the kernel command line (intel_idle.max_cstate, idle=)\n"
	       "  isolation          probe CPUs in isolcpus, nohz_full and rcu_nocbs\n"
	       "  nic-mtu            9000 on RoCE (Ethernet), 4096 IB MTU on InfiniBand\n"
	       "  nic-rings          ring sizes at their maximum (ethtool ioctl)\n"
	       "  nic-coalesce       interrupt coalescing off or adaptive (ethtool ioctl)\n"
	       "  rdma-port          PORT_ACTIVE, link layer, active MTU, speed (libibverbs)\n"
	       "  memlock            RLIMIT_MEMLOCK for registering RDMA memory\n"
	       "\n"
	       "options:\n");
	cli_opts_help(&cmd_audit_opts, stdout);
	printf("\n"
	       "examples:\n"
	       "  tailcause audit\n"
	       "  tailcause audit --cpu 2,3 --nic eth2 --json > audit.json\n"
	       "  tailcause audit --nic mlx5_0 --nic-irq 'mlx5_comp*'\n"
	       "\n"
	       "exit codes: 0 no check fails (warnings and unknowns allowed), 5 a check fails,\n"
	       "1 usage, 4 runtime failure\n");
}

/* 0, 1 after --help, -EINVAL after reporting the problem. */
static int parse(int argc, char **argv, struct host_audit_opts *o, int *json)
{
	struct option longopts[N_AUDIT_OPTIONS];
	char shortopts[8];
	const char *nic;
	int c;

	if (cli_opts_getopt(&cmd_audit_opts, longopts, N_AUDIT_OPTIONS, shortopts,
			    sizeof(shortopts)))
		return -E2BIG; /* a table too long for its arrays: a bug */
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			audit_help();
			return 1;
		case 'c':
			if (cli_parse_name("--cpu", optarg, "CPU list", &o->cpus))
				return -EINVAL;
			break;
		case OPT_NIC:
			if (cli_parse_name("--nic", optarg, "interface name", &nic))
				return -EINVAL;
			if (o->n_nics == AUDIT_MAX_NICS) {
				log_err("--nic: too many interfaces (at most %d)", AUDIT_MAX_NICS);
				return -EINVAL;
			}
			o->nics[o->n_nics++] = nic;
			break;
		case OPT_NIC_IRQ:
			if (cli_parse_name("--nic-irq", optarg, "pattern", &o->nic_irq_pattern))
				return -EINVAL;
			break;
		case OPT_JSON:
			*json = 1;
			break;
		case OPT_ROOT:
			o->root = optarg;
			break;
		default:
			return cli_option_error(argv, longopts);
		}
	}
	if (optind < argc) {
		log_err("audit: unexpected argument '%s' (see tailcause audit --help)",
			argv[optind]);
		return -EINVAL;
	}
	return 0;
}

int cmd_audit(int argc, char **argv)
{
	struct host_audit_opts o = {0};
	struct audit_print_opts po;
	struct tc_audit *a;
	char why[256];
	int json = 0, err, rc;

	err = parse(argc, argv, &o, &json);
	if (err)
		return err > 0 ? 0 : -TC_ERRNO__USAGE;
	a = malloc(sizeof(*a));
	if (!a) {
		log_err("audit: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	err = host_audit_run(&o, a, why, sizeof(why));
	if (err) {
		log_err("%s", why);
		free(a);
		return err == -ENOMEM ? err : -TC_ERRNO__USAGE;
	}
	/* a failing check is this command's answer, and its output says so */
	rc = host_audit_failing(a) ? -TC_ERRNO__CROSSED : 0;
	po = (struct audit_print_opts){
		.root = o.root ? o.root : "/",
		.cpus_default = !o.cpus,
		.exit_code = tc_exit_code(rc),
	};
	if (json)
		audit_print_json(stdout, a, &po);
	else
		audit_print_text(stdout, a, &po);
	free(a);
	if (fflush(stdout) || ferror(stdout)) {
		err = -(errno ?: EIO);
		log_err("audit: write output: %s", strerror(-err));
		return err;
	}
	return rc;
}
