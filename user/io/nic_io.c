// SPDX-License-Identifier: BSD-2-Clause
/* nic_io.c - the shell around bpf/nic.bpf.c: the only file that sees its skeleton. */
#include "bpf/nic.skel.h"
#include "concern.h"

TC_DEFINE_CONCERN(nic, 0, TC_NO_EXTRA);
