// SPDX-License-Identifier: BSD-2-Clause
/* mark_calib.c - the system-call markers' blind spots and cost, timed on a socketpair. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "elf_func.h"
#include "lib/log.h"
#include "mark_calib.h"

/* The calls it can make harmlessly: a datagram into one end of a socketpair, out of the other. */
static const struct {
	const char *name;
	int is_send;
} calls[] = {
	{"sendto", 1}, {"sendmsg", 1}, {"write", 1}, {"recvfrom", 0}, {"recvmsg", 0}, {"read", 0},
};
#define N_CALLS (sizeof(calls) / sizeof(calls[0]))

static int call_index(const char *name, int is_send)
{
	for (size_t i = 0; i < N_CALLS; i++)
		if (!strcmp(calls[i].name, name) && calls[i].is_send == is_send)
			return (int)i;
	return -1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static long make_call(int which, const int fd[2])
{
	char byte = 1;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};

	switch (which) {
	case 0:
		return sendto(fd[0], &byte, 1, 0, NULL, 0);
	case 1:
		return sendmsg(fd[0], &msg, 0);
	case 2:
		return write(fd[0], &byte, 1);
	case 3:
		return recvfrom(fd[1], &byte, 1, 0, NULL, NULL);
	case 4:
		return recvmsg(fd[1], &msg, 0);
	default:
		return read(fd[1], &byte, 1);
	}
}

/*
 * What the uprobe markers are measured on: a function of this program's own, called
 * as a benchmark calls the function it marks. Not static, not inlined: it must stay a
 * symbol with its own entry.
 */
__attribute__((noinline)) int mark_calib_target(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

/* MARK_CALIB_ROUNDS calls of mark_calib_target, each timed: t[0][i] before, t[1][i] after. */
static void time_calls(uint64_t *t[4])
{
	int x = 0;

	for (size_t i = 0; i < MARK_CALIB_ROUNDS; i++) {
		t[0][i] = now_ns();
		x = mark_calib_target(x);
		t[1][i] = now_ns();
	}
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static uint64_t median(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n ? v[n / 2] : 0;
}

/*
 * MARK_CALIB_ROUNDS rounds of: clock, send, clock, clock, receive, clock. t[k] gets
 * the k-th read of every round (t[0][i] .. t[3][i]); 0 or -errno.
 */
static int time_rounds(const struct mark_calib *mc, uint64_t *t[4])
{
	int fd[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, fd))
		return -errno;
	for (size_t i = 0; i < MARK_CALIB_ROUNDS; i++) {
		t[0][i] = now_ns();
		make_call(mc->send, fd);
		t[1][i] = now_ns();
		t[2][i] = now_ns();
		make_call(mc->recv, fd);
		t[3][i] = now_ns();
	}
	close(fd[0]);
	close(fd[1]);
	return 0;
}

/* Room for four rounds' worth of clock reads; NULL when out of memory. */
static uint64_t *alloc_reads(uint64_t *t[4])
{
	uint64_t *all = calloc(4 * MARK_CALIB_ROUNDS, sizeof(*all));

	for (int k = 0; k < 4 && all; k++)
		t[k] = all + (size_t)k * MARK_CALIB_ROUNDS;
	return all;
}

/* The durations of the send (k 0) or receive (k 1) of each round, their median. */
static uint64_t call_median(uint64_t *t[4], int k, uint64_t *scratch)
{
	for (size_t i = 0; i < MARK_CALIB_ROUNDS; i++)
		scratch[i] = t[2 * k + 1][i] - t[2 * k][i];
	return median(scratch, MARK_CALIB_ROUNDS);
}

void mark_calib_baseline(struct mark_calib *mc, const struct iter_spec *s)
{
	uint64_t *t[4], *all, scratch[MARK_CALIB_ROUNDS];
	const struct tc_mark_point *b = NULL, *e = NULL;

	pthread_mutex_init(&mc->lock, NULL);
	mc->send = mc->recv = -1;
	if (s->preset == ITER_MPI) {
		snprintf(mc->status, sizeof(mc->status),
			 "not needed: the ranks stamp their calls' entry and exit themselves");
		return;
	}
	for (size_t i = 0; i < s->n; i++)
		mc->uprobe |= s->pts[i].at == TC_MARK_AT_UPROBE;
	if (mc->uprobe || s->preset == ITER_PERFTEST) {
		mc->uprobe = 1;
		all = alloc_reads(t);
		if (!all) {
			snprintf(mc->status, sizeof(mc->status), "not measured: %s",
				 strerror(ENOMEM));
			mc->uprobe = 0;
			return;
		}
		time_calls(t);
		mc->base_ns[0] = call_median(t, 0, scratch);
		free(all);
		return;
	}
	for (size_t i = 0; i < s->n; i++) {
		if (s->pts[i].at == TC_MARK_AT_SYSCALL_ENTER)
			b = &s->pts[i];
		else if (s->pts[i].at == TC_MARK_AT_SYSCALL_EXIT)
			e = &s->pts[i];
	}
	if (!b || !e) {
		snprintf(mc->status, sizeof(mc->status),
			 "not measured: no system call ends the iterations (mark to mark: the "
			 "markers' blind spots cancel)");
		return;
	}
	mc->send = call_index(b->syscall, 1);
	mc->recv = call_index(e->syscall, 0);
	if (mc->send < 0 || mc->recv < 0) {
		snprintf(mc->status, sizeof(mc->status),
			 "not measured: %s then %s is not a send and a receive it can time",
			 b->syscall, e->syscall);
		mc->send = mc->recv = -1;
		return;
	}
	all = alloc_reads(t);
	if (!all || time_rounds(mc, t)) {
		snprintf(mc->status, sizeof(mc->status), "not measured: %s",
			 strerror(all ? errno : ENOMEM));
		mc->send = mc->recv = -1;
		free(all);
		return;
	}
	mc->base_ns[0] = call_median(t, 0, scratch);
	mc->base_ns[1] = call_median(t, 1, scratch);
	free(all);
}

int mark_calib_take(struct mark_calib *mc, const struct tc_event *e)
{
	uint32_t tid = atomic_load(&mc->tid);
	int k;

	if (!tid || e->kind != TC_EV_MARK || e->tid != tid)
		return 0;
	k = e->arg == TC_MARK_END;
	pthread_mutex_lock(&mc->lock);
	if (mc->marks[k] && mc->n_marks[k] < MARK_CALIB_ROUNDS)
		mc->marks[k][mc->n_marks[k]++] = e->start_ns;
	pthread_mutex_unlock(&mc->lock);
	return 1;
}

/* The marks against the clock reads: pre and post; 0, or -EINVAL when they do not pair. */
static int pair_marks(struct mark_calib *mc, uint64_t *t[4], uint64_t *scratch)
{
	for (int k = 0; k < 2; k++)
		if (mc->n_marks[k] != MARK_CALIB_ROUNDS)
			return -EINVAL;
	for (size_t i = 0; i < MARK_CALIB_ROUNDS; i++) {
		if (mc->marks[0][i] < t[0][i] || mc->marks[0][i] > t[1][i] ||
		    mc->marks[1][i] < t[2][i] || mc->marks[1][i] > t[3][i])
			return -EINVAL;
		scratch[i] = mc->marks[0][i] - t[0][i];
	}
	mc->pre_ns = median(scratch, MARK_CALIB_ROUNDS);
	for (size_t i = 0; i < MARK_CALIB_ROUNDS; i++)
		scratch[i] = t[3][i] - mc->marks[1][i];
	mc->post_ns = median(scratch, MARK_CALIB_ROUNDS);
	return 0;
}

/* A marker like the spec's on mark_calib_target, in this program's own file; NULL: not. */
static struct bpf_link *self_probe(struct mark_calib *mc, struct tracer *t)
{
	struct tc_mark_point p = {.at = TC_MARK_AT_UPROBE};
	struct bpf_link *link;
	ssize_t n = readlink("/proc/self/exe", p.path, sizeof(p.path) - 1);
	int err;

	if (n <= 0) {
		snprintf(mc->status, sizeof(mc->status), "not measured: /proc/self/exe: %s",
			 strerror(errno));
		return NULL;
	}
	p.path[n] = 0;
	snprintf(p.func, sizeof(p.func), "mark_calib_target");
	err = elf_func_offset(p.path, p.func, &p.offset);
	link = err ? NULL : tracer__mark_probe(t, &p);
	if (!link)
		snprintf(mc->status, sizeof(mc->status), "not measured: a uprobe on %.300s:%s: %s",
			 p.path, p.func, strerror(err ? -err : errno));
	return link;
}

void mark_calib_attach(struct mark_calib *mc, struct tracer *t)
{
	if (mc->uprobe)
		mc->link = self_probe(mc, t);
}

/*
 * How far the marker alone moves one iteration's length: each call's delay from the
 * clock read before it to its mark, d[i]; an iteration marked at consecutive calls
 * is off by d[i + 1] - d[i]; the median distance of those from their median. Under
 * an emulator the trap's own time varies by microseconds from call to call.
 */
static uint64_t row_jitter(const uint64_t *marks, const uint64_t *reads, uint64_t *scratch)
{
	int64_t d[MARK_CALIB_ROUNDS], mid;

	for (size_t i = 0; i < MARK_CALIB_ROUNDS; i++)
		d[i] = (int64_t)(marks[i] - reads[i]);
	for (size_t i = 0; i + 1 < MARK_CALIB_ROUNDS; i++)
		scratch[i] = (uint64_t)(d[i + 1] - d[i]) ^ (1ull << 63); /* signed order */
	mid = (int64_t)(median(scratch, MARK_CALIB_ROUNDS - 1) ^ (1ull << 63));
	for (size_t i = 0; i + 1 < MARK_CALIB_ROUNDS; i++)
		scratch[i] = (uint64_t)llabs(d[i + 1] - d[i] - mid);
	return median(scratch, MARK_CALIB_ROUNDS - 1);
}

/* The uprobe markers: calls of a function of our own, marked, against the unmarked ones. */
static int measure_uprobe(struct mark_calib *mc, struct tracer *t, void (*drained)(void *ctx),
			  void *ctx, uint64_t *reads[4], uint64_t *scratch)
{
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	struct bpf_link *link = mc->link;
	int err, del;

	mc->link = NULL;
	if (!link)
		return 0; /* mark_calib_attach said why */
	atomic_store(&mc->tid, tid);
	err = tracer__add_tid(t, tid, TC_ROLE_TARGET);
	if (!err)
		time_calls(reads);
	del = tracer__del_tid(t, tid);
	err = err ?: del;
	drained(ctx);
	atomic_store(&mc->tid, 0);
	bpf_link__destroy(link);
	if (err) {
		snprintf(mc->status, sizeof(mc->status), "not measured: %s", strerror(-err));
		return 0;
	}
	mc->with_ns[0] = call_median(reads, 0, scratch);
	if (mc->n_marks[0] != MARK_CALIB_ROUNDS) {
		snprintf(mc->status, sizeof(mc->status),
			 "not measured: %zu of its %d calls' marks seen (lost?)", mc->n_marks[0],
			 MARK_CALIB_ROUNDS);
		return 0;
	}
	mc->jitter_ns = row_jitter(mc->marks[0], reads[0], scratch);
	mc->measured = 1;
	return 0;
}

int mark_calib_measure(struct mark_calib *mc, struct tracer *t, void (*drained)(void *ctx),
		       void *ctx)
{
	uint64_t *reads[4], *all, scratch[MARK_CALIB_ROUNDS];
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	int err, del;

	if (mc->send < 0 && !mc->uprobe)
		return 0;
	all = alloc_reads(reads);
	mc->marks[0] = calloc(MARK_CALIB_ROUNDS, sizeof(uint64_t));
	mc->marks[1] = calloc(MARK_CALIB_ROUNDS, sizeof(uint64_t));
	if (!all || !mc->marks[0] || !mc->marks[1]) {
		snprintf(mc->status, sizeof(mc->status), "not measured: %s", strerror(ENOMEM));
		free(all);
		return 0;
	}
	if (mc->uprobe) {
		err = measure_uprobe(mc, t, drained, ctx, reads, scratch);
		free(all);
		return err;
	}
	atomic_store(&mc->tid, tid);
	err = tracer__add_tid(t, tid, TC_ROLE_TARGET);
	if (!err)
		err = time_rounds(mc, reads);
	del = tracer__del_tid(t, tid);
	err = err ?: del;
	drained(ctx); /* its marks reach mark_calib_take before it lets go of them */
	atomic_store(&mc->tid, 0);
	if (err) {
		snprintf(mc->status, sizeof(mc->status), "not measured: %s", strerror(-err));
		free(all);
		return 0;
	}
	mc->with_ns[0] = call_median(reads, 0, scratch);
	mc->with_ns[1] = call_median(reads, 1, scratch);
	if (pair_marks(mc, reads, scratch))
		snprintf(mc->status, sizeof(mc->status),
			 "not measured: %zu and %zu of its %d rounds' marks seen (lost or out of "
			 "place)",
			 mc->n_marks[0], mc->n_marks[1], MARK_CALIB_ROUNDS);
	else
		mc->measured = 1;
	free(all);
	return 0;
}

static uint64_t excess(uint64_t with, uint64_t base)
{
	return with > base ? with - base : 0;
}

int mark_calib_store(const struct mark_calib *mc, struct tc_trace *out)
{
	char buf[160];
	int err;

	if (!mc->measured)
		return trace__set_meta(out, "iter.calib", mc->status);
	if (mc->uprobe) {
		snprintf(buf, sizeof(buf), "%llu",
			 (unsigned long long)excess(mc->with_ns[0], mc->base_ns[0]));
		err = trace__set_meta(out, "iter.cost_ns", buf);
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)mc->jitter_ns);
		err = err ?: trace__set_meta(out, "iter.jitter_ns", buf);
		snprintf(buf, sizeof(buf),
			 "measured: a uprobe on a function of tailcause's own, %d "
			 "calls unmarked then marked",
			 MARK_CALIB_ROUNDS);
		return err ?: trace__set_meta(out, "iter.calib", buf);
	}
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)mc->pre_ns);
	err = trace__set_meta(out, "iter.pre_ns", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)mc->post_ns);
	err = err ?: trace__set_meta(out, "iter.post_ns", buf);
	snprintf(buf, sizeof(buf), "%llu",
		 (unsigned long long)(excess(mc->with_ns[0], mc->base_ns[0]) +
				      excess(mc->with_ns[1], mc->base_ns[1])));
	err = err ?: trace__set_meta(out, "iter.cost_ns", buf);
	snprintf(buf, sizeof(buf), "measured: %s and %s, %d rounds on a socketpair",
		 calls[mc->send].name, calls[mc->recv].name, MARK_CALIB_ROUNDS);
	return err ?: trace__set_meta(out, "iter.calib", buf);
}

void mark_calib__free(struct mark_calib *mc)
{
	bpf_link__destroy(mc->link);
	mc->link = NULL;
	free(mc->marks[0]);
	free(mc->marks[1]);
	mc->marks[0] = mc->marks[1] = NULL;
	pthread_mutex_destroy(&mc->lock);
}
