// SPDX-License-Identifier: BSD-2-Clause
/* verbs_hook.c - each RDMA device's provider post_send, as a library file and an offset. */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "lib/log.h"
#include "verbs_hook.h"

/* The file and file offset that addr is mapped from (/proc/self/maps); 0 or -ENOENT. */
static int file_offset(uintptr_t addr, char *path, size_t len, uint64_t *offset)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		uint64_t lo, hi, pgoff;
		char perms[8], file[300] = "";

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %299s", &lo, &hi,
			   perms, &pgoff, file) < 4 ||
		    addr < lo || addr >= hi)
			continue;
		if (file[0] != '/')
			break; /* anonymous code: nothing a uprobe can name */
		snprintf(path, len, "%s", file);
		*offset = addr - lo + pgoff;
		err = 0;
	}
	fclose(f);
	return err;
}

static int known(const struct verbs_hook *h, size_t n, const char *path, uint64_t offset)
{
	for (size_t i = 0; i < n; i++)
		if (h[i].offset == offset && !strcmp(h[i].path, path))
			return 1;
	return 0;
}

/* Device d's post_send into h (room permitting); 1 added, 0 known already, or -errno. */
static int device_hook(struct ibv_device *d, struct verbs_hook *h, size_t n, size_t max)
{
	struct ibv_context *ctx = ibv_open_device(d);
	struct verbs_hook x = {0};
	uintptr_t fn;
	Dl_info info;
	int err;

	if (!ctx) {
		err = -(errno ? errno : ENODEV);
		log_err("open RDMA device %s to find its post_send: %s", ibv_get_device_name(d),
			strerror(-err));
		return err;
	}
	fn = (uintptr_t)ctx->ops.post_send;
	snprintf(x.device, sizeof(x.device), "%s", ibv_get_device_name(d));
	err = fn ? file_offset(fn, x.path, sizeof(x.path), &x.offset) : -ENOENT;
	if (err)
		log_err("%s: its post_send (0x%" PRIxPTR
			", in %s) lies in no library file a uprobe "
			"can mark",
			x.device, fn,
			fn && dladdr((void *)fn, &info) && info.dli_fname ? info.dli_fname : "?");
	ibv_close_device(ctx);
	if (err)
		return err;
	if (known(h, n, x.path, x.offset))
		return 0;
	if (n >= max)
		return -E2BIG;
	h[n] = x;
	log_dbg("%s: post_send at %s+0x%" PRIx64, x.device, x.path, x.offset);
	return 1;
}

int verbs_hooks_find(struct verbs_hook *h, size_t max)
{
	int n_dev = 0, err = 0;
	struct ibv_device **devs = ibv_get_device_list(&n_dev);
	size_t n = 0;

	if (!devs)
		return 0; /* no verbs at all: no devices */
	for (int i = 0; i < n_dev && err >= 0; i++) {
		err = device_hook(devs[i], h, n, max);
		if (err > 0)
			n++;
	}
	ibv_free_device_list(devs);
	return err < 0 ? err : (int)n;
}
