// SPDX-License-Identifier: BSD-2-Clause
/* ipi_io.c - the shell around bpf/ipi.bpf.c: the only file that sees its skeleton. */
#include "bpf/ipi.skel.h"
#include "concern.h"

TC_DEFINE_CONCERN(ipi, 0, TC_NO_EXTRA);
