// SPDX-License-Identifier: BSD-2-Clause
/* signal_skel.c - the shell around bpf/signal.bpf.c: the only file that sees its skeleton. */
#include <bpf/libbpf.h>

#include "bpf/signal.skel.h"
#include "skel_ops.h"

/* Handler ends where the rt_sigreturn program loads (--signal-ends, tracer_select.c). */
static void signal_knobs(struct signal_bpf *s, const struct tracer_cfg *cfg, const struct btf *btf)
{
	(void)cfg;
	(void)btf;
	s->rodata->cfg_handler_ends = bpf_program__autoload(s->progs.tc_signal_return_tp) ? 1 : 0;
}

TC_DEFINE_SKEL_OPS(signal, 0, signal_knobs);
