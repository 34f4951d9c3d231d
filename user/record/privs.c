// SPDX-License-Identifier: BSD-2-Clause
/* privs.c - drop the capabilities recording no longer needs. */
#include <errno.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/log.h"
#include "privs.h"

int privs_drop(void)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2] = {0};
	int err;

	if (syscall(SYS_capget, &hdr, data))
		goto fail;
	for (int i = 0; i < 2; i++) {
		__u32 keep = (__u32)(PRIVS_KEPT >> (32 * i));

		data[i].permitted &= keep;
		data[i].effective &= keep;
		data[i].inheritable = 0;
	}
	if (syscall(SYS_capset, &hdr, data))
		goto fail;
	/* Nothing this process execs from now on gains privileges either. */
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	return 0;
fail:
	err = -errno;
	log_err("drop capabilities: %s", strerror(-err));
	return err;
}
