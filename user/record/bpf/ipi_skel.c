// SPDX-License-Identifier: BSD-2-Clause
/* ipi_skel.c - the shell around bpf/ipi.bpf.c: the only file that sees its skeleton. */
#include <bpf/libbpf.h>

#include "bpf/ipi.skel.h"
#include "skel_ops.h"

static void ipi_knobs(struct ipi_bpf *s, const struct tracer_cfg *cfg, const struct btf *btf)
{
	int n = libbpf_num_possible_cpus();

	(void)cfg;
	s->rodata->cfg_nr_cpus = n > 0 ? (__u32)n : 1;
	s->rodata->cfg_steal = tracer_steal_readable(btf);
}

TC_DEFINE_SKEL_OPS(ipi, 0, ipi_knobs);
