// SPDX-License-Identifier: BSD-2-Clause
/* sched_io.c - the shell around bpf/sched.bpf.c: the only file that sees its skeleton. */
#include "bpf/sched.skel.h"
#include "concern.h"

static void sched_knobs(struct sched_bpf *s, const struct tracer_cfg *cfg)
{
	s->rodata->cfg_follow_children = cfg->follow_children;
}

TC_DEFINE_CONCERN(sched, 0, sched_knobs);
