// SPDX-License-Identifier: BSD-2-Clause
/* outfile.c - temp file + rename, so a reader never sees half a report. */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
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

int outfile_open(struct outfile *o, const char *path)
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
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		err = -errno;
		goto out_fail;
	}
	o->f = fdopen(fd, "w");
	if (!o->f || fchmod(fd, 0644)) {
		err = -errno;
		if (!o->f)
			close(fd);
		else
			fclose(o->f);
		unlink(o->tmp);
		goto out_fail;
	}
	free(copy);
	return 0;

out_fail:
	log_err("create report %s: %s", path, strerror(-err));
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
