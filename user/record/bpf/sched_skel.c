// SPDX-License-Identifier: BSD-2-Clause
/* sched_skel.c - the shell around bpf/sched.bpf.c: the only file that sees its skeleton. */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <unistd.h>

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
 * A task's kernel stack size (THREAD_SIZE), for telling a waking on an interrupt's stack
 * from the waker's own: 16 KiB on x86-64, twice that with KASAN (whose task_struct has
 * kasan_depth); 0 elsewhere, where only the idle task's wakings are told apart.
 */
static __u64 thread_size(const struct btf *btf)
{
#if defined(__x86_64__)
	return btf && tracer_btf_has_member(btf, "task_struct", "kasan_depth") ? 32768 : 16384;
#else
	(void)btf;
	return 0;
#endif
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
	s->rodata->cfg_thread_size = thread_size(btf);
	s->rodata->cfg_self_tgid = (__u32)getpid();
	/* who woke whom matters where a traced command waits on others; the built-in probes'
	 * threads are woken by their own peer or an interrupt, if at all */
	if (!cfg->follow_children) {
		bpf_program__set_autoload(s->progs.tc_sched_waking_btf, false);
		bpf_program__set_autoload(s->progs.tc_sched_waking_tp, false);
		log_dbg("sched: no sched_waking program for a built-in probe");
	}
	if (bpf_program__autoload(s->progs.tc_sched_switch_btf) &&
	    bpf_program__autoload(s->progs.tc_sched_wakeup_btf) && kernel_keeps_sched_info(btf)) {
		s->rodata->cfg_sched_info = 1;
		bpf_program__set_autoload(s->progs.tc_sched_wakeup_btf, false);
		log_dbg("sched: wake-ups from sched_info at switch-in, no sched_wakeup program");
	}
}

TC_DEFINE_SKEL_OPS(sched, 0, sched_knobs);
