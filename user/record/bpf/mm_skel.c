// SPDX-License-Identifier: BSD-2-Clause
/* mm_skel.c - the shell around bpf/mm.bpf.c: the only file that sees its skeleton. */
#include "bpf/mm.skel.h"
#include "skel_ops.h"

TC_DEFINE_SKEL_OPS(mm, 0, TC_NO_EXTRA);
