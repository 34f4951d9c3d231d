// SPDX-License-Identifier: BSD-2-Clause
/* mm_io.c - the shell around bpf/mm.bpf.c: the only file that sees its skeleton. */
#include "bpf/mm.skel.h"
#include "concern.h"

TC_DEFINE_CONCERN(mm, 0, TC_NO_EXTRA);
