// SPDX-License-Identifier: BSD-2-Clause
/* signal_skel.c - the shell around bpf/signal.bpf.c: the only file that sees its skeleton. */
#include "bpf/signal.skel.h"
#include "skel_ops.h"

TC_DEFINE_SKEL_OPS(signal, 0, TC_NO_EXTRA);
