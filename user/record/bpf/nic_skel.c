// SPDX-License-Identifier: BSD-2-Clause
/* nic_skel.c - the shell around bpf/nic.bpf.c: the only file that sees its skeleton. */
#include "bpf/nic.skel.h"
#include "skel_ops.h"

TC_DEFINE_SKEL_OPS(nic, 0, TC_NO_EXTRA);
