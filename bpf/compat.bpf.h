/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * compat.bpf.h - fields that kernels renamed, read through CO-RE "flavors" (a
 * struct name with a ___suffix matches the kernel's struct of the same name):
 * the program loads on both sides of the rename, and a field the running
 * kernel lacks sits in a branch the verifier drops. As libbpf-tools'
 * core_fixes.bpf.h does.
 */
#ifndef TAILCAUSE_COMPAT_BPF_H
#define TAILCAUSE_COMPAT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>

/* Linux 5.14 renamed task_struct.state (a long) to __state (an unsigned int). */
struct task_struct___post514 {
	unsigned int __state;
} __attribute__((preserve_access_index));

struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

/*
 * The task's state, by a direct load through the BTF pointer of a tp_btf
 * program (no helper call: sched_switch runs on every context switch).
 */
static __always_inline __u32 get_task_state(struct task_struct *t)
{
	struct task_struct___post514 *n = (void *)t;
	struct task_struct___pre514 *o = (void *)t;

	if (bpf_core_field_exists(n->__state))
		return n->__state;
	return (__u32)o->state;
}

#endif /* TAILCAUSE_COMPAT_BPF_H */
