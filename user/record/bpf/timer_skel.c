// SPDX-License-Identifier: BSD-2-Clause
/* timer_skel.c - the shell around bpf/timer.bpf.c: the only file that sees its skeleton. */
#include "bpf/timer.skel.h"
#include "skel_ops.h"

TC_DEFINE_SKEL_OPS(timer, 0, TC_NO_EXTRA);
