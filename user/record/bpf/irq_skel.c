// SPDX-License-Identifier: BSD-2-Clause
/* irq_skel.c - the shell around bpf/irq.bpf.c: the only file that sees its skeleton. */
#include "bpf/irq.skel.h"
#include "skel_ops.h"

TC_DEFINE_SKEL_OPS(irq, 0, TC_NO_EXTRA);
