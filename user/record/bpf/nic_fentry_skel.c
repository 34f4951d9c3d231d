// SPDX-License-Identifier: BSD-2-Clause
/*
 * nic_fentry_skel.c - the shell around bpf/nic_fentry.bpf.c. Optional: where
 * fentry is refused or no driver is loaded, recording goes on without it.
 */
#include "bpf/nic_fentry.skel.h"
#include "skel_ops.h"

TC_DEFINE_SKEL_OPS(nic_fentry, 1, TC_NO_EXTRA);
