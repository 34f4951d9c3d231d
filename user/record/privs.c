// SPDX-License-Identifier: BSD-2-Clause
/* privs.c - drop the capabilities and ids recording no longer needs (privs.h). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/log.h"
#include "privs.h"

#define CAP(c)	    (1ull << (c))
#define FILE_POWERS (CAP(CAP_DAC_OVERRIDE) | CAP(CAP_DAC_READ_SEARCH) | CAP(CAP_FOWNER))
#define MAX_GROUPS  256

/* The invoking user of a sudo run. */
struct user_ids {
	uid_t uid;
	gid_t gid;
	gid_t groups[MAX_GROUPS];
	int n_groups;
};

void privs_need_init(struct privs_need *n)
{
	*n = (struct privs_need){0};
	for (int i = 0; i < PRIVS_MAX_FILES; i++)
		n->created_fds[i] = -1;
}

static int caps_get(uint64_t *eff, uint64_t *perm)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2] = {0};

	if (syscall(SYS_capget, &hdr, d))
		return -errno;
	*eff = d[0].effective | (uint64_t)d[1].effective << 32;
	*perm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	return 0;
}

/* Sets the calling thread's effective and permitted sets; the inheritable one is emptied. */
static int caps_set(uint64_t eff, uint64_t perm)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2] = {
		{(uint32_t)eff, (uint32_t)perm, 0},
		{(uint32_t)(eff >> 32), (uint32_t)(perm >> 32), 0},
	};

	return syscall(SYS_capset, &hdr, d) ? -errno : 0;
}

/* The sudo caller's ids from SUDO_UID, SUDO_GID (and SUDO_USER's groups): 1, or 0 if none. */
static int sudo_user(struct user_ids *u)
{
	const char *su = getenv("SUDO_UID"), *sg = getenv("SUDO_GID"), *name = getenv("SUDO_USER");
	char *end;
	unsigned long uid, gid;

	if (getuid() != 0 || !su || !sg)
		return 0;
	uid = strtoul(su, &end, 10);
	if (*end || !*su || !uid || uid >= UINT32_MAX)
		return 0;
	gid = strtoul(sg, &end, 10);
	if (*end || !*sg || gid >= UINT32_MAX)
		return 0;
	u->uid = (uid_t)uid;
	u->gid = (gid_t)gid;
	u->n_groups = MAX_GROUPS;
	if (!name || getgrouplist(name, u->gid, u->groups, &u->n_groups) < 0) {
		u->groups[0] = u->gid;
		u->n_groups = 1;
	}
	return 1;
}

/* Whether the thread, with the ids and capabilities it has now, may finish path (create or
 * rename it in its directory): the kernel's own check, ACLs and all. */
static int may_finish(const char *path)
{
	char copy[PATH_MAX];
	struct stat d, f;
	const char *dir;

	snprintf(copy, sizeof(copy), "%s", path);
	dir = dirname(copy);
	if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS))
		return 0;
	/* a sticky directory (/tmp) lets no one replace another's file */
	if (!stat(dir, &d) && (d.st_mode & S_ISVTX) && !lstat(path, &f) && f.st_uid != geteuid() &&
	    d.st_uid != geteuid())
		return 0;
	return 1;
}

/* The first of n's files that may not be finished, or NULL. */
static const char *cannot_finish(const struct privs_need *n)
{
	for (int i = 0; i < PRIVS_MAX_FILES; i++)
		if (n->finish[i] && !may_finish(n->finish[i]))
			return n->finish[i];
	return NULL;
}

/* Whether u, once the recorder took its ids, could finish n's files: asked as u, with the
 * effective ids alone (the real and saved ones stay 0, to come back). */
static int user_may_finish(const struct privs_need *n, const struct user_ids *u)
{
	gid_t groups[MAX_GROUPS];
	int n_groups = getgroups(MAX_GROUPS, groups), ok = 0;

	if (n_groups < 0 || setgroups((size_t)u->n_groups, u->groups))
		return 0;
	if (!setegid(u->gid)) {
		if (!seteuid(u->uid)) { /* the effective capabilities go with euid 0 */
			ok = !cannot_finish(n);
			if (seteuid(0))
				ok = -1;
		}
		if (setegid(0))
			ok = -1;
	}
	if (setgroups((size_t)n_groups, groups))
		ok = -1;
	return ok;
}

/* Whether uid 0 without the file capabilities could finish n's files: 1, 0 (*which one
 * not), or -1 when the capabilities could not be restored. */
static int root_may_finish(const struct privs_need *n, uint64_t eff, uint64_t perm,
			   const char **which)
{
	if (caps_set(eff & ~FILE_POWERS, perm))
		return 0;
	*which = cannot_finish(n);
	return caps_set(eff, perm) ? -1 : !*which;
}

/* Hands the created files to u and takes u's ids, keeping the capabilities in keep. */
static int become(const struct privs_need *n, const struct user_ids *u, uint64_t keep)
{
	uid_t r, e, s;

	for (int i = 0; i < PRIVS_MAX_FILES; i++)
		if (n->created_fds[i] >= 0 && fchown(n->created_fds[i], u->uid, u->gid))
			return -errno;
	if (setgroups((size_t)u->n_groups, u->groups) || setresgid(u->gid, u->gid, u->gid) ||
	    prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setresuid(u->uid, u->uid, u->uid) ||
	    prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0))
		return -errno;
	if (getresuid(&r, &e, &s) || r != u->uid || e != u->uid || s != u->uid)
		return -EPERM;
	return caps_set(keep, keep);
}

/* The ids the recorder keeps running with (the caller's, or the sudo user's); 0 or -errno. */
static int choose_ids(const struct privs_need *n, uint64_t *keep, uint64_t eff, uint64_t perm)
{
	const char *which = NULL;
	struct user_ids u;
	int ok;

	if (!n->command_spawned && sudo_user(&u)) {
		ok = user_may_finish(n, &u);
		if (ok < 0)
			return -EPERM;
		if (ok)
			return become(n, &u, *keep);
		log_dbg("privileges: user %u may not write where this run writes: it stays uid 0",
			(unsigned int)u.uid);
	}
	if (getuid() == 0 || geteuid() == 0) {
		ok = root_may_finish(n, eff, perm, &which);
		if (ok < 0)
			return -EPERM;
		if (!ok) {
			log_warn(
				"%s: its directory is neither root's nor open to it: the recorder "
				"keeps CAP_DAC_OVERRIDE to write there (write into a directory root "
				"owns, such as /tmp, to record without it)",
				which ? which : "an output");
			*keep |= CAP(CAP_DAC_OVERRIDE) & perm;
		}
	}
	return 0;
}

/*
 * Does this kernel refuse every bpf() command without CAP_BPF (Debian's 5.10, where
 * unprivileged BPF is disabled: the check came before each command until 6.x)? Then
 * the open ring buffer and maps need it still. Asked with the effective set cut to
 * keep: a lookup in no map is EBADF where the command itself is allowed.
 */
static int bpf_gated(uint64_t keep, uint64_t perm)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (__u32)-1;
	if (caps_set(keep, perm))
		return 0;
	return syscall(SYS_bpf, BPF_MAP_LOOKUP_ELEM, &attr, sizeof(attr)) && errno == EPERM;
}

int privs_drop(const struct privs_need *n)
{
	uint64_t eff = 0, perm = 0, keep = 0;
	int err;

	err = caps_get(&eff, &perm);
	if (err)
		goto fail;
	if (n->memlock)
		keep |= CAP(CAP_IPC_LOCK) & perm;
	if (bpf_gated(keep, perm)) {
		keep |= CAP(CAP_BPF) & perm;
		log_dbg("this kernel refuses bpf() without CAP_BPF: kept");
	}
	err = caps_set(eff, perm);
	err = err ?: choose_ids(n, &keep, eff, perm);
	err = err ?: caps_set(keep, keep);
	/* Nothing this process execs from now on gains privileges, nor keeps any ambient ones. */
	if (!err && (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL))
		err = -errno;
	if (!err && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		err = -errno;
	if (!err)
		return 0;
fail:
	log_err("drop privileges: %s", strerror(-err));
	return err;
}
