// SPDX-License-Identifier: BSD-2-Clause
/* workqueue_skel.c - the shell around bpf/workqueue.bpf.c: the only file that sees its skeleton. */
#include "bpf/workqueue.skel.h"
#include "skel_ops.h"

TC_DEFINE_SKEL_OPS(workqueue, 0, TC_NO_EXTRA);
