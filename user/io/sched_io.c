// SPDX-License-Identifier: BSD-2-Clause
/* sched_io.c - the shell around bpf/sched.bpf.c: the only file that sees its skeleton. */
#include <errno.h>

#include "bpf/sched.skel.h"
#include "concern.h"

static struct bpf_object *sched_open(void **skel)
{
	struct sched_bpf *s = sched_bpf__open();

	if (!s)
		return NULL;
	*skel = s;
	return s->obj;
}

static void sched_configure(void *skel, unsigned long long wakeup_bytes)
{
	struct sched_bpf *s = skel;

	s->rodata->cfg_wakeup_bytes = wakeup_bytes;
}

static int sched_load(void *skel)
{
	return sched_bpf__load(skel);
}

static void sched_destroy(void *skel)
{
	sched_bpf__destroy(skel);
}

const struct concern_ops sched_concern = {
	.name = "sched",
	.open = sched_open,
	.configure = sched_configure,
	.load = sched_load,
	.destroy = sched_destroy,
};
