// SPDX-License-Identifier: BSD-2-Clause
/* coll_files.c - the ranks' collective records, read from their files (coll_files.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coll_files.h"
#include "core/iter/coll_event.h"
#include "lib/log.h"

struct coll_rank_file {
	char name[32]; /* coll.<pid> */
	const struct tc_coll_hdr *hdr;
	const uint8_t *commit;
	const struct tc_coll_rec *recs;
	size_t map_len;
	uint64_t blocks; /* the file's room, in blocks: bounded by its size */
	uint64_t next;	 /* blocks taken */
	uint64_t taken;	 /* records taken */
	uint64_t bad;	 /* records with an operation this reader does not know */
	uint64_t torn;	 /* blocks reserved and never committed (at the end) */
	int32_t world_rank;
};

int coll_files_open(struct coll_files *c, const char *lib)
{
	const char *pre = getenv("LD_PRELOAD");
	int err;

	memset(c, 0, sizeof(*c));
	snprintf(c->dir, sizeof(c->dir), "/dev/shm/tailcause-coll.XXXXXX");
	if (!mkdtemp(c->dir)) {
		err = -errno;
		log_err("--iter mpi: make a directory for the ranks' records (%s): %s", c->dir,
			strerror(-err));
		c->dir[0] = '\0';
		return err;
	}
	snprintf(c->env_dir, sizeof(c->env_dir), "%s=%s", TC_COLL_ENV_DIR, c->dir);
	if (asprintf(&c->env_preload, "LD_PRELOAD=%s%s%s", lib, pre && *pre ? " " : "",
		     pre && *pre ? pre : "") < 0) {
		c->env_preload = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* "coll.<digits>", the name the library gives its file. */
static int is_rank_file(const char *name)
{
	if (strncmp(name, "coll.", 5) || !name[5] || strlen(name) >= 32)
		return 0;
	for (const char *p = name + 5; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

static int known(const struct coll_files *c, const char *name)
{
	for (size_t i = 0; i < c->n_ranks; i++)
		if (!strcmp(c->ranks[i]->name, name))
			return 1;
	return 0;
}

/* Whether h's layout fits a file of size bytes: commit bytes, then the records. */
static int layout_ok(const struct tc_coll_hdr *h, uint64_t size)
{
	uint64_t blocks = h->capacity / TC_COLL_BLOCK;

	return h->version == TC_COLL_VERSION && h->rec_size == sizeof(struct tc_coll_rec) &&
	       h->capacity % TC_COLL_BLOCK == 0 && h->capacity <= TC_COLL_MAX_MAX &&
	       h->commit_off >= sizeof(*h) && h->commit_off <= size &&
	       blocks <= size - h->commit_off && h->recs_off >= h->commit_off + blocks &&
	       h->recs_off <= size &&
	       h->capacity <= (size - h->recs_off) / sizeof(struct tc_coll_rec);
}

/*
 * Maps one rank's file once its header is whole: 1 mapped, 0 not yet (a rank between
 * creating its file and writing its header), -1 never (not a file of this format).
 */
static int map_rank(struct coll_files *c, int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct coll_rank_file *f;
	struct tc_coll_hdr h;
	struct stat st;
	void *m;

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (size_t)st.st_size < sizeof(h) ||
	    pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		close(fd);
		return S_ISREG(st.st_mode) ? 0 : -1;
	}
	if (memcmp(h.magic, TC_COLL_MAGIC, sizeof(h.magic))) {
		close(fd);
		return h.magic[0] ? -1 : 0; /* all zero: the header is being written */
	}
	if (!layout_ok(&h, (uint64_t)st.st_size)) {
		close(fd);
		return -1;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	f = calloc(1, sizeof(*f));
	if (!f) {
		munmap(m, (size_t)st.st_size);
		return -1;
	}
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->hdr = m;
	f->commit = (const uint8_t *)m + h.commit_off;
	f->recs = (const struct tc_coll_rec *)((const char *)m + h.recs_off);
	f->map_len = (size_t)st.st_size;
	f->blocks = h.capacity / TC_COLL_BLOCK;
	f->world_rank = h.world_rank;
	c->ranks[c->n_ranks++] = f;
	return 1;
}

/* Files that appeared since the last look. */
static void scan(struct coll_files *c, int final)
{
	DIR *d = opendir(c->dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		int r;

		if (de->d_name[0] == '.' || known(c, de->d_name))
			continue;
		if (!is_rank_file(de->d_name)) {
			c->refused += final;
			continue;
		}
		if (c->n_ranks == COLL_MAX_RANKS) {
			c->too_many += final;
			continue;
		}
		r = map_rank(c, dirfd(d), de->d_name);
		if (r < 0 || (r == 0 && final))
			c->refused += final;
	}
	closedir(d);
}

/* Keeps comm's size for the meta (the last one kept is the likeliest asked again). */
static void note_comm(struct coll_files *c, uint64_t comm, int32_t size)
{
	for (size_t i = c->n_comms; i-- > 0;)
		if (c->comms[i].key == comm)
			return;
	if (c->n_comms == COLL_MAX_COMMS) {
		c->unsized++;
		return;
	}
	c->comms[c->n_comms].key = comm;
	c->comms[c->n_comms++].size = size;
}

/* One committed block's records, those whose op is set (the rest: unused slots). */
static void take_block(struct coll_files *c, struct coll_rank_file *f, uint64_t blk,
		       void (*emit)(void *ctx, const struct tc_event *e), void *ctx)
{
	uint64_t last_comm = 0;
	struct tc_event e;

	for (uint64_t i = blk * TC_COLL_BLOCK; i < (blk + 1) * TC_COLL_BLOCK; i++) {
		struct tc_coll_rec r;

		memcpy(&r, &f->recs[i], sizeof(r));
		if (!r.op)
			continue;
		if (r.op >= TC_COLL_OP_MAX) {
			f->bad++;
			continue;
		}
		if (r.comm != last_comm || !f->taken)
			note_comm(c, r.comm, r.comm_size);
		last_comm = r.comm;
		f->taken++;
		tc_coll_event_pack(&e, &r, f->world_rank);
		emit(ctx, &e);
	}
}

/*
 * The blocks committed since the last look, in order; a reserved block not committed
 * yet stops the look (its thread is copying it). final: the ranks are gone, and such a
 * block is torn (a rank killed while copying it): counted, and passed over.
 */
static void take_rank(struct coll_files *c, struct coll_rank_file *f, int final,
		      void (*emit)(void *ctx, const struct tc_event *e), void *ctx)
{
	uint64_t count = __atomic_load_n(&f->hdr->count, __ATOMIC_ACQUIRE) / TC_COLL_BLOCK;
	uint64_t reserved = count < f->blocks ? count : f->blocks;

	for (; f->next < reserved; f->next++) {
		if (!__atomic_load_n(&f->commit[f->next], __ATOMIC_ACQUIRE)) {
			if (!final)
				break;
			f->torn++;
			continue;
		}
		take_block(c, f, f->next, emit, ctx);
	}
}

void coll_files_take(struct coll_files *c, void (*emit)(void *ctx, const struct tc_event *e),
		     void *ctx)
{
	if (!c->dir[0])
		return;
	scan(c, 0);
	for (size_t i = 0; i < c->n_ranks; i++)
		take_rank(c, c->ranks[i], 0, emit, ctx);
}

/* The ranks that did not reach MPI_Finalize, "3 (pid 1234), 5 (pid 1240)", into buf. */
static void unfinished(const struct coll_files *c, char *buf, size_t len, size_t *n)
{
	size_t off = 0;

	buf[0] = '\0';
	*n = 0;
	for (size_t i = 0; i < c->n_ranks; i++) {
		const struct tc_coll_hdr *h = c->ranks[i]->hdr;

		if (__atomic_load_n(&h->finalized, __ATOMIC_ACQUIRE))
			continue;
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%d (pid %u)",
						(*n)++ ? ", " : "", h->world_rank, h->pid);
	}
}

int coll_files_finish(struct coll_files *c, struct tc_trace *t,
		      void (*emit)(void *ctx, const struct tc_event *e), void *ctx)
{
	uint64_t records = 0, lost = 0, torn = 0, bad = 0;
	char lib[sizeof(c->ranks[0]->hdr->library) + 1] = "", list[512];
	size_t n_unfinished;
	int err;

	if (!c->dir[0])
		return 0;
	scan(c, 1);
	for (size_t i = 0; i < c->n_ranks; i++) {
		struct coll_rank_file *f = c->ranks[i];

		take_rank(c, f, 1, emit, ctx);
		records += f->taken;
		bad += f->bad;
		lost += __atomic_load_n(&f->hdr->lost, __ATOMIC_ACQUIRE);
		torn += f->torn;
		if (!lib[0])
			memcpy(lib, f->hdr->library, sizeof(lib) - 1);
	}
	unfinished(c, list, sizeof(list), &n_unfinished);
	err = trace__set_metaf(t, "coll.ranks", "%zu", c->n_ranks);
	err = err ?: trace__set_metaf(t, "coll.records", "%llu", (unsigned long long)records);
	err = err ?: trace__set_metaf(t, "coll.lost", "%llu", (unsigned long long)lost);
	err = err ?: trace__set_metaf(t, "coll.torn", "%llu", (unsigned long long)torn);
	err = err ?: trace__set_metaf(t, "coll.bad", "%llu", (unsigned long long)bad);
	err = err ?: trace__set_metaf(t, "coll.refused", "%zu", c->refused + c->too_many);
	err = err ?: trace__set_meta(t, "coll.unfinished", n_unfinished ? list : "none");
	if (lib[0])
		err = err ?: trace__set_meta(t, "coll.library", lib);
	for (size_t i = 0; i < c->n_comms && !err; i++) {
		char key[COLL_SIZE_KEY_LEN];

		tc_coll_size_key(key, c->comms[i].key);
		err = trace__set_metaf(t, key, "%d", c->comms[i].size);
	}
	if (c->unsized)
		err = err ?: trace__set_metaf(t, "coll.unsized", "%zu", c->unsized);
	return err;
}

void coll_files_close(struct coll_files *c)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < c->n_ranks; i++) {
		munmap((void *)c->ranks[i]->hdr, c->ranks[i]->map_len);
		free(c->ranks[i]);
	}
	c->n_ranks = 0;
	free(c->env_preload);
	c->env_preload = NULL;
	if (!c->dir[0])
		return;
	DIR *d = opendir(c->dir);
	struct dirent *de;

	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' &&
		    snprintf(path, sizeof(path), "%s/%s", c->dir, de->d_name) < (int)sizeof(path))
			unlink(path);
	if (d)
		closedir(d);
	rmdir(c->dir);
	c->dir[0] = '\0';
}

const char *coll_files_find_lib(char *buf, size_t len, char *why, size_t why_len)
{
	static const char *const beside[] = {"mpi/libtailcause-mpi.so",
					     "../lib/tailcause/libtailcause-mpi.so"};
	const char *env = getenv("TAILCAUSE_MPI_LIB");
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env) {
		if (access(env, R_OK) == 0 && snprintf(buf, len, "%s", env) < (int)len)
			return buf;
		snprintf(why, why_len, "TAILCAUSE_MPI_LIB=%s: %s", env, strerror(errno));
		return NULL;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		snprintf(why, why_len, "/proc/self/exe: %s", strerror(errno));
		return NULL;
	}
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		slash[1] = '\0';
	for (size_t i = 0; i < sizeof(beside) / sizeof(beside[0]); i++)
		if (snprintf(buf, len, "%s%s", exe, beside[i]) < (int)len && access(buf, R_OK) == 0)
			return buf;
	snprintf(why, why_len,
		 "libtailcause-mpi.so is not beside %s (in mpi/ or ../lib/tailcause/), and "
		 "TAILCAUSE_MPI_LIB is not set",
		 exe);
	return NULL;
}
