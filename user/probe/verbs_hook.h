/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * verbs_hook.h - where an unmodified verbs benchmark posts its sends, as a place
 * a uprobe can mark (record --iter perftest).
 *
 * ibv_post_send() is inline: it calls the provider's post_send through the
 * device context's ops, and the providers export no symbol for it. So the
 * recorder opens each device itself, takes ops.post_send, and turns the address
 * into the provider library's file and the offset within that file (the mapping
 * of /proc/self/maps it falls in: a uprobe wants a file offset, not an address).
 * The benchmark maps the same library file, so the same offset marks its posts.
 */
#ifndef TAILCAUSE_PROBE_VERBS_HOOK_H
#define TAILCAUSE_PROBE_VERBS_HOOK_H

#include <stddef.h>
#include <stdint.h>

struct verbs_hook {
	char device[64]; /* "rxe0", "mlx5_0" */
	char path[256];	 /* the provider library, as mapped ("/usr/lib/.../librxe-rdmav34.so") */
	uint64_t offset; /* of post_send in that file */
};

/*
 * Fills h[0..max) with the post_send entry of each RDMA device (one per distinct
 * library and offset) and returns how many, 0 where there are no devices, or
 * -errno (reported: a device that cannot be opened, an address in no file).
 */
int verbs_hooks_find(struct verbs_hook *h, size_t max);

#endif /* TAILCAUSE_PROBE_VERBS_HOOK_H */
