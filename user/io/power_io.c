// SPDX-License-Identifier: BSD-2-Clause
/* power_io.c - the shell around bpf/power.bpf.c: the only file that sees its skeleton. */
#include "bpf/power.skel.h"
#include "concern.h"

TC_DEFINE_CONCERN(power, 0, TC_NO_EXTRA);
