// SPDX-License-Identifier: BSD-2-Clause
/* sched_skel.c - the shell around bpf/sched.bpf.c: the only file that sees its skeleton. */
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpf/sched.skel.h"
#include "skel_ops.h"
#include "lib/log.h"

/* sched_info's timestamps (CONFIG_SCHED_INFO), and a task's run queue (CONFIG_FAIR_GROUP_SCHED)? */
static int kernel_keeps_sched_info(const struct btf *btf)
{
	return btf && tracer_btf_has_member(btf, "sched_info", "last_queued") &&
	       tracer_btf_has_member(btf, "cfs_rq", "rq");
}

/*
 * On the tp_btf path, where the kernel keeps sched_info, the switch reads when a
 * thread became runnable from the kernel's accounting: the wake-up program, which
 * runs on every wake-up in the system, is left out.
 */
static void sched_knobs(struct sched_bpf *s, const struct tracer_cfg *cfg, const struct btf *btf)
{
	s->rodata->cfg_follow_children = cfg->follow_children;
	s->rodata->cfg_steal = tracer_steal_readable(btf);
	if (bpf_program__autoload(s->progs.tc_sched_switch_btf) &&
	    bpf_program__autoload(s->progs.tc_sched_wakeup_btf) && kernel_keeps_sched_info(btf)) {
		s->rodata->cfg_sched_info = 1;
		bpf_program__set_autoload(s->progs.tc_sched_wakeup_btf, false);
		log_dbg("sched: wake-ups from sched_info at switch-in, no sched_wakeup program");
	}
}

TC_DEFINE_SKEL_OPS(sched, 0, sched_knobs);
