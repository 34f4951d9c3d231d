// SPDX-License-Identifier: BSD-2-Clause
/* irq_io.c - the shell around bpf/irq.bpf.c: the only file that sees its skeleton. */
#include <errno.h>

#include "bpf/irq.skel.h"
#include "concern.h"

static struct bpf_object *irq_open(void **skel)
{
	struct irq_bpf *s = irq_bpf__open();

	if (!s)
		return NULL;
	*skel = s;
	return s->obj;
}

static void irq_configure(void *skel, unsigned long long wakeup_bytes)
{
	struct irq_bpf *s = skel;

	s->rodata->cfg_wakeup_bytes = wakeup_bytes;
}

static int irq_load(void *skel)
{
	return irq_bpf__load(skel);
}

static void irq_destroy(void *skel)
{
	irq_bpf__destroy(skel);
}

const struct concern_ops irq_concern = {
	.name = "irq",
	.open = irq_open,
	.configure = irq_configure,
	.load = irq_load,
	.destroy = irq_destroy,
};
