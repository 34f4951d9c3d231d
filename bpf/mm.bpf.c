// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * mm.bpf.c - memory-management stalls: page faults of the probe threads,
 * compaction (direct and kcompactd), khugepaged collapses and direct reclaim
 * by any task, each tagged with the task and CPU.
 *
 * Compaction and reclaim are traced everywhere because a task that preempts
 * the probe while compacting makes the spike thp-compaction, not plain
 * preemption. They are rare on a healthy host; a storm of them is exactly
 * what the user needs to see.
 *
 * Page faults have no exit tracepoint. A fault that maps a page changes the
 * process's RSS counters (kmem:rss_stat) after the page was allocated and
 * zeroed or read in, just before the PTE is set: that is taken as its end, so
 * such a fault is an interval like the other concerns' and can be credited.
 * The RSS change counts only while the thread is still in that fault: its
 * user registers still hold the faulting ip, and no system call number (a
 * system call or an exit after the fault returned has other ones). A fault
 * that changes no counter (the zero page on a read, a NUMA hint, an anon
 * copy-on-write) stays an instant: closed as one by the thread's next fault or
 * RSS change on that CPU, or by user space at the end.
 */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* tid -> start of its compaction pass or direct reclaim; nid -> kcompactd wake. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} compact_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} reclaim_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} kcompactd_start SEC(".maps");

static __always_inline __u32 current_tid(void)
{
	return (__u32)bpf_get_current_pid_tgid();
}

static __always_inline void emit(__u16 kind, __u64 start, __u64 dur, __u32 tid, __u32 arg,
				 __u64 aux)
{
	struct tc_event *e = event_reserve(kind);

	if (!e)
		return;
	__builtin_memset(e, 0, sizeof(*e));
	e->start_ns = start;
	e->dur_ns = dur;
	e->aux = aux;
	e->cpu = bpf_get_smp_processor_id();
	e->tid = tid;
	e->arg = arg;
	e->other_pid = tid;
	e->kind = kind;
	bpf_get_current_comm(e->other_comm, sizeof(e->other_comm));
	event_submit(e);
}

static __always_inline void stamp(void *map, __u32 key)
{
	__u64 now = bpf_ktime_get_ns();

	bpf_map_update_elem(map, &key, &now, BPF_ANY);
}

/* Emits the interval from the stamp under key to now, if there is one. */
static __always_inline void finish(void *map, __u32 key, __u16 kind, __u32 arg)
{
	__u64 *start = bpf_map_lookup_elem(map, &key), now = bpf_ktime_get_ns();

	if (!start)
		return;
	emit(kind, *start, now - *start, current_tid(), arg, 0);
	bpf_map_delete_elem(map, &key);
}

/*
 * Per CPU: the fault a thread of interest is in (tid 0: none). A fault ends on
 * the CPU it began on unless it slept and migrated; then the slot is closed as
 * an instant by the next fault there, and a stranger's rss_stat never matches.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tc_fault_slot);
} fault_open SEC(".maps");

static __always_inline struct tc_fault_slot *fault_slot(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&fault_open, &zero);
}

/* Emits the open fault: an interval up to end, or an instant (end 0: not seen). */
static __always_inline void fault_close(struct tc_fault_slot *f, __u64 end)
{
	emit(TC_EV_PAGE_FAULT, f->start_ns, end ? end - f->start_ns : 0, f->tid, f->error_code,
	     f->address);
	f->tid = 0;
}

static __always_inline void page_fault(unsigned long address, unsigned long error_code,
				       unsigned long ip)
{
	__u32 tid = current_tid();
	struct tc_fault_slot *f;

	if (!tid_of_interest(tid))
		return;
	f = fault_slot();
	if (!f)
		return;
	if (f->tid)
		fault_close(f, 0);
	f->start_ns = bpf_ktime_get_ns();
	f->address = address;
	f->ip = ip;
	f->error_code = (__u32)error_code;
	f->tid = tid;
}

/*
 * Is the current thread still in the fault f stamped? Its user registers then
 * are the fault's: the faulting ip, and orig_ax -1 (an exception; a system
 * call has its number there). Unknown (a kernel without bpf_task_pt_regs):
 * no, the fault stays an instant.
 */
static __always_inline int still_in_fault(const struct tc_fault_slot *f)
{
	struct pt_regs *regs;

	if (!bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_task_pt_regs))
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	return regs && regs->ip == f->ip && regs->orig_ax == (unsigned long)-1;
}

/* The current thread changed an RSS counter: its open fault, if any, ends now. */
static __always_inline void rss_changed(void)
{
	struct tc_fault_slot *f = fault_slot();

	if (f && f->tid && f->tid == current_tid())
		fault_close(f, still_in_fault(f) ? bpf_ktime_get_ns() : 0);
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(tc_page_fault_btf, unsigned long address, struct pt_regs *regs,
	     unsigned long error_code)
{
	page_fault(address, error_code, regs->ip);
	return 0;
}

SEC("tp_btf/rss_stat")
int BPF_PROG(tc_rss_stat_btf)
{
	rss_changed();
	return 0;
}

SEC("tp_btf/mm_compaction_begin")
int BPF_PROG(tc_compact_begin_btf)
{
	stamp(&compact_start, current_tid());
	return 0;
}

SEC("tp_btf/mm_compaction_end")
int BPF_PROG(tc_compact_end_btf)
{
	finish(&compact_start, current_tid(), TC_EV_COMPACTION, TC_COMPACT_RUN);
	return 0;
}

SEC("tp_btf/mm_compaction_try_to_compact_pages")
int BPF_PROG(tc_compact_direct_btf, int order)
{
	emit(TC_EV_COMPACTION, bpf_ktime_get_ns(), 0, current_tid(), TC_COMPACT_DIRECT, order);
	return 0;
}

SEC("tp_btf/mm_compaction_kcompactd_wake")
int BPF_PROG(tc_kcompactd_wake_btf, int nid)
{
	stamp(&kcompactd_start, nid);
	return 0;
}

SEC("tp_btf/mm_compaction_kcompactd_sleep")
int BPF_PROG(tc_kcompactd_sleep_btf, int nid)
{
	finish(&kcompactd_start, nid, TC_EV_COMPACTION, TC_COMPACT_KCOMPACTD);
	return 0;
}

SEC("tp_btf/mm_collapse_huge_page")
int BPF_PROG(tc_collapse_btf, struct mm_struct *mm, int isolated, int status)
{
	emit(TC_EV_COLLAPSE, bpf_ktime_get_ns(), 0, current_tid(), status, isolated);
	return 0;
}

SEC("tp_btf/mm_vmscan_direct_reclaim_begin")
int BPF_PROG(tc_reclaim_begin_btf)
{
	stamp(&reclaim_start, current_tid());
	return 0;
}

SEC("tp_btf/mm_vmscan_direct_reclaim_end")
int BPF_PROG(tc_reclaim_end_btf)
{
	finish(&reclaim_start, current_tid(), TC_EV_RECLAIM, 0);
	return 0;
}

/*
 * The tracefs record of exceptions:page_fault_user, spelled out: its BTF type
 * is trace_event_raw_exceptions here but trace_event_raw_x86_exceptions on
 * older kernels, and a CO-RE relocation against the wrong name fails the load.
 */
struct page_fault_record {
	__u64 common;
	unsigned long address;
	unsigned long ip;
	unsigned long error_code;
};

SEC("tp/exceptions/page_fault_user")
int tc_page_fault_tp(struct page_fault_record *ctx)
{
	page_fault(ctx->address, ctx->error_code, ctx->ip);
	return 0;
}

SEC("tp/kmem/rss_stat")
int tc_rss_stat_tp(void *ctx)
{
	rss_changed();
	return 0;
}

SEC("tp/compaction/mm_compaction_begin")
int tc_compact_begin_tp(void *ctx)
{
	stamp(&compact_start, current_tid());
	return 0;
}

SEC("tp/compaction/mm_compaction_end")
int tc_compact_end_tp(void *ctx)
{
	finish(&compact_start, current_tid(), TC_EV_COMPACTION, TC_COMPACT_RUN);
	return 0;
}

SEC("tp/compaction/mm_compaction_try_to_compact_pages")
int tc_compact_direct_tp(struct trace_event_raw_mm_compaction_try_to_compact_pages *ctx)
{
	emit(TC_EV_COMPACTION, bpf_ktime_get_ns(), 0, current_tid(), TC_COMPACT_DIRECT, ctx->order);
	return 0;
}

SEC("tp/compaction/mm_compaction_kcompactd_wake")
int tc_kcompactd_wake_tp(struct trace_event_raw_kcompactd_wake_template *ctx)
{
	stamp(&kcompactd_start, ctx->nid);
	return 0;
}

SEC("tp/compaction/mm_compaction_kcompactd_sleep")
int tc_kcompactd_sleep_tp(struct trace_event_raw_mm_compaction_kcompactd_sleep *ctx)
{
	finish(&kcompactd_start, ctx->nid, TC_EV_COMPACTION, TC_COMPACT_KCOMPACTD);
	return 0;
}

SEC("tp/huge_memory/mm_collapse_huge_page")
int tc_collapse_tp(struct trace_event_raw_mm_collapse_huge_page *ctx)
{
	emit(TC_EV_COLLAPSE, bpf_ktime_get_ns(), 0, current_tid(), ctx->status, ctx->isolated);
	return 0;
}

SEC("tp/vmscan/mm_vmscan_direct_reclaim_begin")
int tc_reclaim_begin_tp(void *ctx)
{
	stamp(&reclaim_start, current_tid());
	return 0;
}

SEC("tp/vmscan/mm_vmscan_direct_reclaim_end")
int tc_reclaim_end_tp(void *ctx)
{
	finish(&reclaim_start, current_tid(), TC_EV_RECLAIM, 0);
	return 0;
}
