// SPDX-License-Identifier: BSD-2-Clause
/* irq_io.c - the shell around bpf/irq.bpf.c: the only file that sees its skeleton. */
#include "bpf/irq.skel.h"
#include "concern.h"

TC_DEFINE_CONCERN(irq, 0, TC_NO_EXTRA);
