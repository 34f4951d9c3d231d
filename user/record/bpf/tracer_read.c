// SPDX-License-Identifier: BSD-2-Clause
/*
 * tracer_read.c - what the maps hold at the end of a recording: drops per
 * CPU, IRQ placement counts, and the intervals still open (off-CPU slots,
 * work items running, page faults, signal handlers) so that none is lost.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/events.h"
#include "lib/log.h"
#include "tracer_internal.h"

/* The map called name in whichever loaded concern has it, or NULL. */
static struct bpf_map *loaded_map(const struct tracer *t, const char *name)
{
	struct bpf_map *m = NULL;

	for (size_t i = 0; i < t->n_loaded && !m; i++)
		m = bpf_object__find_map_by_name(t->loaded[i].obj, name);
	return m;
}

int tracer__read_drops(const struct tracer *t, uint64_t *drops, size_t ncpu)
{
	int possible = libbpf_num_possible_cpus();
	uint64_t *vals;
	int err = 0;

	if (possible <= 0)
		return possible ? possible : -EINVAL;
	vals = calloc((size_t)possible, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (uint32_t kind = 0; kind < TC_DROP_KINDS && !err; kind++) {
		if (bpf_map_lookup_elem(t->drops_fd, &kind, vals)) {
			err = -errno;
			break;
		}
		for (size_t c = 0; c < ncpu; c++)
			drops[c * TC_DROP_KINDS + kind] = c < (size_t)possible ? vals[c] : 0;
	}
	free(vals);
	return err;
}

int tracer__read_irq_counts(const struct tracer *t,
			    int (*add)(void *ctx, uint32_t irq, uint32_t cpu, uint64_t n),
			    void *ctx)
{
	int possible = libbpf_num_possible_cpus(), err = 0;
	uint32_t key, next, *prev = NULL;
	struct bpf_map *m = loaded_map(t, "irq_count");
	uint64_t *vals;

	if (!m)
		return 0;
	if (possible <= 0)
		return possible ? possible : -EINVAL;
	vals = calloc((size_t)possible, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	while (!err && bpf_map_get_next_key(bpf_map__fd(m), prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(bpf_map__fd(m), &key, vals))
			continue;
		for (int c = 0; c < possible && !err; c++)
			if (vals[c])
				err = add(ctx, key, (uint32_t)c, vals[c]);
	}
	free(vals);
	return err;
}

size_t tracer__flush_faults(struct tracer *t, void (*emit)(void *ctx, const struct tc_event *e),
			    void *ctx)
{
	int possible = libbpf_num_possible_cpus();
	struct bpf_map *m = loaded_map(t, "fault_open");
	struct tc_fault_slot *slots;
	uint32_t zero = 0;
	size_t n = 0;

	if (!m || possible <= 0 || !(slots = calloc((size_t)possible, sizeof(*slots))))
		return 0;
	if (bpf_map_lookup_elem(bpf_map__fd(m), &zero, slots) == 0) {
		for (int c = 0; c < possible; c++) {
			if (!slots[c].tid)
				continue;
			struct tc_event e = {
				.start_ns = slots[c].start_ns,
				.fault_addr = slots[c].address,
				.cpu = (uint32_t)c,
				.tid = slots[c].tid,
				.arg = slots[c].error_code,
				.other_pid = slots[c].tid,
				.kind = TC_EV_PAGE_FAULT,
			};
			emit(ctx, &e);
			n++;
		}
	}
	free(slots);
	return n;
}

size_t tracer__flush_signals(struct tracer *t, void (*emit)(void *ctx, const struct tc_event *e),
			     void *ctx)
{
	struct bpf_map *m = loaded_map(t, "signal_open");
	uint32_t key, next, *prev = NULL;
	struct tc_signal_slot slot;
	size_t n = 0;

	if (!m || bpf_map__fd(m) < 0)
		return 0;
	while (bpf_map_get_next_key(bpf_map__fd(m), prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(bpf_map__fd(m), &key, &slot) || !slot.start_ns)
			continue;
		struct tc_event e = {
			.start_ns = slot.start_ns,
			.cpu = slot.cpu,
			.tid = key,
			.arg = slot.signo,
			.other_pid = slot.sender_pid,
			.kind = TC_EV_SIGNAL,
			.flags = slot.flags,
		};
		memcpy(e.other_comm, slot.sender_comm, TC_COMM_LEN);
		emit(ctx, &e);
		n++;
	}
	return n;
}

/* The classic-tracepoint path's open slots (hash offcpu_start), as records without an end. */
static size_t open_hash_slots(int fd, struct tc_event *out, size_t max)
{
	uint32_t key, next, *prev = NULL;
	struct tc_offcpu_slot slot;
	size_t n = 0;

	while (n < max && bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		/* start_ns == 0: the thread is on a CPU (the slot is kept for reuse) */
		if (bpf_map_lookup_elem(fd, &key, &slot) || !slot.start_ns)
			continue;
		out[n] = (struct tc_event){
			.start_ns = slot.start_ns,
			.woken_after_ns =
				slot.woken_ns > slot.start_ns ? slot.woken_ns - slot.start_ns : 0,
			.cpu = slot.cpu,
			.tid = key,
			.arg = slot.state,
			.other_pid = slot.top_pid,
			.kind = TC_EV_OFFCPU,
			.flags = slot.preempted ? TC_OFFCPU_PREEMPTED : 0,
		};
		memcpy(out[n].other_comm, slot.top_comm, TC_COMM_LEN);
		n++;
	}
	return n;
}

/* The tp_btf path's open slots (task storage): its iterator writes them as records. */
static size_t open_task_slots(struct bpf_program *iter, struct tc_event *out, size_t max)
{
	struct bpf_link *link = bpf_program__attach_iter(iter, NULL);
	size_t got = 0;
	ssize_t r;
	int fd;

	if (!link) {
		log_warn("attach %s: %s; off-CPU intervals open at the end are lost",
			 bpf_program__name(iter), strerror(errno));
		return 0;
	}
	fd = bpf_iter_create(bpf_link__fd(link));
	while (fd >= 0 && got < max * sizeof(*out) &&
	       (r = read(fd, (char *)out + got, max * sizeof(*out) - got)) > 0)
		got += (size_t)r;
	if (fd < 0)
		log_warn("run %s: %s", bpf_program__name(iter), strerror(errno));
	else
		close(fd);
	bpf_link__destroy(link);
	return got / sizeof(*out);
}

/* The longest runner cpu_state kept for e's interval (struct tc_sched_cpu), if it still has it. */
static void merge_runner(const struct tc_sched_cpu *cs, int ncpu, struct tc_event *e)
{
	const struct tc_sched_waiter *w;

	if (!cs || e->cpu >= (uint32_t)ncpu)
		return;
	w = &cs[e->cpu].waiters[e->tid % TC_SCHED_WAITERS];
	if (w->tid != e->tid || w->start_ns != e->start_ns || !w->top_ns)
		return;
	e->other_pid = w->top_pid;
	memcpy(e->other_comm, w->top_comm, TC_COMM_LEN);
}

/* Every CPU's tc_sched_cpu (cpu_state), or NULL. */
static struct tc_sched_cpu *read_cpu_state(struct bpf_object *obj, int ncpu)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, "cpu_state");
	uint32_t zero = 0;
	struct tc_sched_cpu *cs;

	_Static_assert(sizeof(*cs) % 8 == 0, "per-CPU values are 8-byte aligned");
	if (!m || ncpu <= 0 || bpf_map__value_size(m) != sizeof(*cs))
		return NULL;
	cs = calloc((size_t)ncpu, sizeof(*cs));
	if (cs && bpf_map_lookup_elem(bpf_map__fd(m), &zero, cs)) {
		free(cs);
		cs = NULL;
	}
	return cs;
}

/* work.bpf.h's slots (the shared hash work_open): the work items still running on a probe CPU. */
static size_t open_work_slots(int fd, struct tc_event *out, size_t max)
{
	uint32_t key, next, *prev = NULL;
	struct tc_work_slot slot;
	size_t n = 0;

	if (fd < 0)
		return 0;
	while (n < max && bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &slot) || !slot.start_ns)
			continue;
		out[n] = (struct tc_event){
			.start_ns = slot.start_ns,
			.func = slot.func,
			.cpu = slot.cpu,
			.other_pid = key,
			.kind = TC_EV_WORK,
		};
		memcpy(out[n].other_comm, slot.comm, TC_COMM_LEN);
		n++;
	}
	return n;
}

static size_t open_slots(struct bpf_object *obj, struct tc_event *out, size_t max)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, "offcpu_start");
	struct bpf_program *p;
	size_t n = 0;

	if (m && bpf_map__fd(m) >= 0)
		n = open_hash_slots(bpf_map__fd(m), out, max);
	bpf_object__for_each_program (p, obj)
		if (tracer_is_iter(p) && bpf_program__fd(p) >= 0)
			n += open_task_slots(p, out + n, max - n);
	return n;
}

size_t tracer__flush_open(struct tracer *t, uint64_t now_ns,
			  void (*emit)(void *ctx, const struct tc_event *e), void *ctx)
{
	const size_t max = 8192; /* the slot maps' 4096 tids, twice over */
	int ncpu = libbpf_num_possible_cpus();
	struct tc_event *open = calloc(max, sizeof(*open));
	size_t n = 0;

	for (size_t i = 0; i < t->n_loaded && open; i++) {
		struct tc_sched_cpu *cs;
		size_t got = open_slots(t->loaded[i].obj, open, max);

		if (!got)
			continue;
		cs = read_cpu_state(t->loaded[i].obj, ncpu);
		for (size_t j = 0; j < got; j++) {
			if (open[j].start_ns > now_ns)
				continue;
			open[j].dur_ns = now_ns - open[j].start_ns;
			merge_runner(cs, ncpu, &open[j]);
			emit(ctx, &open[j]);
			n++;
		}
		free(cs);
	}
	/* The work items: one map, shared by the objects that use it (tracer.c). */
	for (size_t j = 0, got = open ? open_work_slots(t->work_fd, open, max) : 0; j < got; j++) {
		if (open[j].start_ns > now_ns)
			continue;
		open[j].dur_ns = now_ns - open[j].start_ns;
		emit(ctx, &open[j]);
		n++;
	}
	free(open);
	return n;
}

uint64_t tracer__missed(const struct tracer *t,
			void (*each)(void *ctx, const char *concern, const char *prog,
				     uint64_t missed),
			void *ctx)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < t->n_loaded; i++) {
		struct bpf_program *p;

		bpf_object__for_each_program (p, t->loaded[i].obj) {
			struct bpf_prog_info info;
			__u32 len = sizeof(info);
			int fd = bpf_program__fd(p);

			memset(&info, 0, sizeof(info));
			if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) ||
			    !info.recursion_misses)
				continue;
			sum += info.recursion_misses;
			if (each)
				each(ctx, t->loaded[i].ops ? t->loaded[i].ops->name : "iter",
				     bpf_program__name(p), info.recursion_misses);
		}
	}
	return sum;
}
