// SPDX-License-Identifier: BSD-2-Clause
/* outfile.c - temp file + rename, so a reader never sees half a file. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "outfile.h"

static void release(struct outfile *o)
{
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
	o->f = NULL;
}

/* Creates a file of a fresh random name from o->tmp's "XXXXXX" with its final mode; fd or -errno.
 */
static int create_tmp(char *tmp, mode_t mode)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	char *x = tmp + strlen(tmp) - 6;

	for (int tries = 0; tries < 100; tries++) {
		unsigned char r[6];
		int fd;

		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return -errno;
		for (int i = 0; i < 6; i++)
			x[i] = digits[r[i] % (sizeof(digits) - 1)];
		fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

int outfile_open(struct outfile *o, const char *path, mode_t mode)
{
	char *copy = strdup(path);
	int fd, err;

	memset(o, 0, sizeof(*o));
	o->path = strdup(path);
	if (!copy || !o->path ||
	    asprintf(&o->tmp, "%s/.%s.XXXXXX", dirname(copy), basename(o->path)) < 0) {
		o->tmp = NULL;
		err = -ENOMEM;
		goto out_fail;
	}
	fd = create_tmp(o->tmp, mode);
	if (fd < 0) {
		err = fd;
		goto out_fail;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		err = -errno;
		close(fd);
		unlink(o->tmp);
		goto out_fail;
	}
	free(copy);
	return 0;

out_fail:
	log_err("create %s: %s", path, strerror(-err));
	free(copy);
	release(o);
	return err;
}

int outfile_commit(struct outfile *o)
{
	int err = 0;

	if (fflush(o->f) || ferror(o->f) || fsync(fileno(o->f)))
		err = -(errno ? errno : EIO);
	if (fclose(o->f) && !err)
		err = -errno;
	if (!err && rename(o->tmp, o->path))
		err = -errno;
	if (err) {
		log_err("write report %s: %s", o->path, strerror(-err));
		unlink(o->tmp);
	}
	release(o);
	return err;
}

void outfile_abort(struct outfile *o)
{
	if (o->f) {
		fclose(o->f);
		unlink(o->tmp);
	}
	release(o);
}

int outfile_check_dir(const char *opt, const char *path)
{
	char *copy = strdup(path);
	const char *dir;
	struct stat st;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	dir = dirname(copy);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		err = -EISDIR;
	else if (access(dir, W_OK | X_OK))
		err = -errno;
	if (err == -EISDIR)
		log_err("%s %s: is a directory", opt, path);
	else if (err)
		log_err("%s %s: directory %s: %s", opt, path, dir, strerror(-err));
	free(copy);
	return err;
}
