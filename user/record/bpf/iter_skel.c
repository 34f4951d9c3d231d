// SPDX-License-Identifier: BSD-2-Clause
/* iter_skel.c - the shell around bpf/iter.bpf.c: the only file that sees its skeleton. */
#include <bpf/libbpf.h>

#include "bpf/iter.skel.h"
#include "skel_ops.h"

TC_DEFINE_SKEL_OPS(iter, 0, TC_NO_EXTRA);
