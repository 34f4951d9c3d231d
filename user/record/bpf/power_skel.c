// SPDX-License-Identifier: BSD-2-Clause
/* power_skel.c - the shell around bpf/power.bpf.c: the only file that sees its skeleton. */
#include "bpf/power.skel.h"
#include "skel_ops.h"

TC_DEFINE_SKEL_OPS(power, 0, TC_NO_EXTRA);
