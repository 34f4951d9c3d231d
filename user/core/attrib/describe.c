// SPDX-License-Identifier: BSD-2-Clause
/*
 * describe.c - the words for a trace's records: each kind's name (as `tailcause
 * dump` and every report print it) and one line on what an event was. The line
 * holds only safe text: task names through causes_comm(), the rest from the
 * trace's escaped tables.
 */
#include <stdio.h>

#include "core/iter/coll.h"
#include "core/iter/coll_event.h"
#include "analyze.h"
#include "describe.h"
#include "core/hosts/peer_join.h"

static const char *const kind_names[] = {
	[TC_EV_OFFCPU] = "offcpu",
	[TC_EV_HARDIRQ] = "hardirq",
	[TC_EV_SOFTIRQ] = "softirq",
	[TC_EV_IPI] = "ipi",
	[TC_EV_TIMER] = "timer",
	[TC_EV_PAGE_FAULT] = "page_fault",
	[TC_EV_COMPACTION] = "compaction",
	[TC_EV_RECLAIM] = "reclaim",
	[TC_EV_IDLE] = "idle",
	[TC_EV_MIGRATE] = "migrate",
	[TC_EV_IRQ_MOVE] = "irq_move",
	[TC_EV_NIC] = "nic",
	[TC_EV_COLLAPSE] = "collapse",
	[TC_EV_CPU_FREQ] = "cpu_freq",
	[TC_EV_NAPI] = "napi",
	[TC_EV_LOST] = "lost",
	[TC_EV_STEAL] = "steal",
	[TC_EV_SIGNAL] = "signal",
	[TC_EV_WORK] = "work",
	[TC_EV_TIMER_FN] = "timer_fn",
	[TC_EV_NMI] = "nmi",
	[TC_EV_SIBLING] = "sibling",
	[TC_EV_MARK] = "mark",
	[TC_EV_COUNTER] = "counter",
	[TC_EV_WAKEUP] = "wakeup",
	[TC_EV_COLL] = "coll",
};

const char *describe_kind(uint16_t kind)
{
	if (kind < sizeof(kind_names) / sizeof(kind_names[0]) && kind_names[kind])
		return kind_names[kind];
	return "unknown";
}

/* e's task name escaped into buf, "?" where it has none. */
static const char *comm_or_q(const struct tc_event *e, char *buf, size_t len)
{
	return e->other_comm[0] ? causes_comm(e, buf, len) : "?";
}

static void offcpu_detail(const struct tc_event *e, char *buf, size_t len)
{
	char comm[TC_COMM_TEXT_LEN];
	int n;

	if (e->flags & TC_OFFCPU_WOKEN) {
		snprintf(buf, len,
			 "tid %u was woken and waited for cpu %u; %s (pid %u) ran longest while it "
			 "was off",
			 e->tid, e->cpu, comm_or_q(e, comm, sizeof(comm)), e->other_pid);
		return;
	}
	n = snprintf(buf, len, "tid %u left cpu %u, %s; %s (pid %u) ran%s", e->tid, e->cpu,
		     (e->flags & TC_OFFCPU_PREEMPTED) ? "preempted" : "blocked",
		     comm_or_q(e, comm, sizeof(comm)), e->other_pid,
		     (e->flags & TC_OFFCPU_PREEMPTED) ? " next" : " meanwhile");

	if (!(e->flags & TC_OFFCPU_PREEMPTED) && e->woken_after_ns &&
	    e->woken_after_ns < e->dur_ns && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "; woken after %.3f us",
			      (double)e->woken_after_ns / 1000.0);
	if ((e->flags & TC_OFFCPU_UNENDED) && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n,
			 "; its return was not reported (end unknown: a round trip it timed, or "
			 "waited on to answer, ends it at the latest)");
}

/* "ipi:call_function_single on cpu 3, sent 8.0 us before it ran" (RPS: "RPS kick ..."). */
static void ipi_detail(const struct tc_trace *t, const struct tc_event *e, char *buf, size_t len)
{
	char cause[TC_CAUSE_NAME_LEN];
	int n;

	causes_name_event(t, e, NULL, cause, sizeof(cause));
	if (e->flags & TC_IPI_RPS)
		n = snprintf(buf, len, "RPS kick for %s on cpu %u", cause, e->cpu);
	else if (e->flags & TC_IPI_TTWU)
		n = snprintf(buf, len, "%s on cpu %u, running wake-ups queued from another CPU",
			     cause, e->cpu);
	else
		n = snprintf(buf, len, "%s on cpu %u", cause, e->cpu);
	if (n < 0 || (size_t)n >= len || !e->sent_ns || e->sent_ns >= e->start_ns)
		return;
	snprintf(buf + n, len - (size_t)n, ", sent %.1f us before it ran",
		 (double)(e->start_ns - e->sent_ns) / 1000.0);
}

/* The kernel function's name, or its address. */
static const char *func_name(const struct tc_trace *t, uint64_t func, char *buf, size_t len)
{
	const char *fn = t ? causes_ksym(t, func) : NULL;

	if (fn)
		return fn;
	snprintf(buf, len, "0x%llx", (unsigned long long)func);
	return buf;
}

static void signal_detail(const struct tc_event *e, char *buf, size_t len)
{
	char sig[24], comm[TC_COMM_TEXT_LEN];
	int n;

	causes_signal_name(e->arg, sig, sizeof(sig));
	n = snprintf(buf, len, "%s to tid %u on cpu %u", sig, e->tid, e->cpu);
	if (n > 0 && (size_t)n < len && e->other_pid)
		n += snprintf(buf + n, len - (size_t)n, ", sent by %s (pid %u)",
			      causes_comm(e, comm, sizeof(comm)), e->other_pid);
	else if (n > 0 && (size_t)n < len && (e->flags & TC_SIGNAL_KERNEL))
		n += snprintf(buf + n, len - (size_t)n, ", sent by the kernel");
	if (n > 0 && (size_t)n < len)
		snprintf(
			buf + n, len - (size_t)n, "%s",
			e->dur_ns			  ? "; its handler ran"
			: e->flags & TC_SIGNAL_NO_HANDLER ? "; default or ignored, no handler"
			: e->flags & TC_SIGNAL_END_UNTRACED
				? "; its handler's end not traced (--signal-ends): a round trip its "
				  "thread timed ends it at the latest"
				: "; no handler return seen");
}

/*
 * "tid 811 woken from now on by tcserver (pid 810, tid 812) on cpu 0", or by an interrupt:
 * the recorder writes a waking only when a thread's waker changes.
 */
static void wakeup_detail(const struct tc_event *e, char *buf, size_t len)
{
	char comm[TC_COMM_TEXT_LEN];
	int n;

	if (e->flags & TC_WAKE_IRQ) {
		snprintf(buf, len, "tid %u woken from now on by an interrupt on cpu %u", e->tid,
			 e->cpu);
		return;
	}
	n = snprintf(buf, len, "tid %u woken from now on by %s (pid %u, tid %u) on cpu %u", e->tid,
		     comm_or_q(e, comm, sizeof(comm)), e->arg, e->other_pid, e->cpu);
	if (n > 0 && (size_t)n < len && (e->flags & (TC_WAKE_FOLLOWED | TC_WAKE_UNFOLLOWED)))
		snprintf(buf + n, len - (size_t)n, "%s",
			 e->flags & TC_WAKE_FOLLOWED ? "; traced from here on"
						     : "; not traced: the bound of followed "
						       "wakers was reached");
}

/* The kinds added for what a guest cannot see by itself: steal, signals, callbacks. */
static int describe_more(const struct tc_trace *t, const struct tc_event *e, char *buf, size_t len)
{
	char fn[24], comm[TC_COMM_TEXT_LEN];

	switch (e->kind) {
	case TC_EV_STEAL:
		snprintf(buf, len,
			 "cpu %u: %.3f us stolen by the hypervisor between two readings (%s)",
			 e->cpu, (double)e->stolen_ns / 1000.0,
			 e->arg == TC_STEAL_KVM ? "KVM steal_time" : "run queue");
		return 1;
	case TC_EV_SIGNAL:
		signal_detail(e, buf, len);
		return 1;
	case TC_EV_WORK:
		snprintf(buf, len, "work %s on cpu %u, run by %s (pid %u)",
			 func_name(t, e->func, fn, sizeof(fn)), e->cpu,
			 comm_or_q(e, comm, sizeof(comm)), e->other_pid);
		return 1;
	case TC_EV_TIMER_FN:
		snprintf(buf, len, "%s callback %s on cpu %u",
			 e->arg == TC_TIMER_LIST ? "timer" : "hrtimer",
			 func_name(t, e->func, fn, sizeof(fn)), e->cpu);
		return 1;
	case TC_EV_NMI:
		snprintf(buf, len, "NMI handler %s on cpu %u%s",
			 func_name(t, e->func, fn, sizeof(fn)), e->cpu,
			 e->arg ? "" : " (not its NMI)");
		return 1;
	case TC_EV_SIBLING:
		snprintf(buf, len, "%s (pid %u) ran on cpu %u, the SMT sibling of probe cpu %u",
			 comm_or_q(e, comm, sizeof(comm)), e->other_pid, e->cpu, e->arg);
		return 1;
	case TC_EV_MARK:
		snprintf(buf, len, "tid %u marked an iteration's %s on cpu %u", e->tid,
			 e->arg == TC_MARK_END ? "end" : "start", e->cpu);
		return 1;
	case TC_EV_COUNTER: {
		char key[32];
		const char *name;

		snprintf(key, sizeof(key), "counter.%u", e->arg);
		name = trace__meta(t, key);
		if (e->dur_ns)
			snprintf(buf, len, "%s +%llu in %.3f ms (path:%s)", name ? name : key,
				 (unsigned long long)e->delta, (double)e->dur_ns / 1e6,
				 causes_path_name(e->flags));
		else
			snprintf(buf, len, "%s (path:%s)", name ? name : key,
				 causes_path_name(e->flags));
		return 1;
	}
	case TC_EV_WAKEUP:
		wakeup_detail(e, buf, len);
		return 1;
	case TC_EV_COLL:
		snprintf(buf, len, "rank %u (tid %u) in %s #%u, %llu bytes, entered on cpu %u",
			 e->other_pid, e->tid, coll_op_name(e->flags), e->arg,
			 (unsigned long long)tc_coll_event_bytes(e), e->cpu);
		return 1;
	default:
		return 0;
	}
}

/* One event on its own host's numbering; irq_base: where its IRQ names are kept. */
static void describe_own(const struct tc_trace *t, const struct tc_event *e, uint32_t irq_base,
			 char *buf, size_t len)
{
	const char *name;
	char cause[TC_CAUSE_NAME_LEN], comm[TC_COMM_TEXT_LEN];

	switch (e->kind) {
	case TC_EV_OFFCPU:
		offcpu_detail(e, buf, len);
		return;
	case TC_EV_HARDIRQ:
		name = trace__irq_name(t, e->arg + irq_base);
		snprintf(buf, len, "irq %u (%s) on cpu %u", e->arg, name ? name : "?", e->cpu);
		return;
	case TC_EV_SOFTIRQ:
		snprintf(buf, len, "%s on cpu %u", causes_softirq_name(e->arg), e->cpu);
		return;
	case TC_EV_IDLE:
		snprintf(buf, len, "cpu %u idle in C-state %u", e->cpu, e->arg);
		return;
	case TC_EV_IPI:
		ipi_detail(t, e, buf, len);
		return;
	case TC_EV_PAGE_FAULT:
		snprintf(buf, len, "tid %u faulted at 0x%llx on cpu %u (error code %u)", e->tid,
			 (unsigned long long)e->fault_addr, e->cpu, e->arg);
		return;
	case TC_EV_MIGRATE:
		snprintf(buf, len, "tid %u moved from cpu %u to cpu %u", e->tid, e->arg, e->cpu);
		return;
	case TC_EV_IRQ_MOVE:
		name = trace__irq_name(t, e->arg + irq_base);
		snprintf(buf, len, "irq %u (%s) moved from cpu %llu to cpu %u", e->arg,
			 name ? name : "?", (unsigned long long)e->from_cpu, e->cpu);
		return;
	case TC_EV_COMPACTION:
	case TC_EV_RECLAIM:
	case TC_EV_COLLAPSE:
		snprintf(buf, len, "%s by %s (tid %u) on cpu %u", describe_kind(e->kind),
			 comm_or_q(e, comm, sizeof(comm)), e->tid, e->cpu);
		return;
	case TC_EV_CPU_FREQ:
		snprintf(buf, len, "cpu %u now at %u MHz", e->cpu, e->arg / 1000);
		return;
	case TC_EV_LOST:
		snprintf(buf, len, "%llu records of cpu %u lost to ring-buffer overrun",
			 (unsigned long long)e->lost, e->cpu);
		return;
	default:
		if (describe_more(t, e, buf, len))
			return;
		causes_name_event(t, e, NULL, cause, sizeof(cause));
		snprintf(buf, len, "%s on cpu %u", cause, e->cpu);
	}
}

void describe_event(const struct tc_trace *t, const struct tc_event *e, char *buf, size_t len)
{
	struct tc_event own;
	char line[256];

	if (!trace__is_peer(t, e)) {
		describe_own(t, e, 0, buf, len);
		return;
	}
	own = peer_join_own(e);
	describe_own(t, &own, PEER_IRQ_BASE, line, sizeof(line));
	snprintf(buf, len, "peer: %s", line);
}

const char *describe_chain_mark(const struct tc_trace *t, const struct tc_contrib *k)
{
	if (!k->chain)
		return NULL;
	if (t->events[k->event].kind == TC_EV_WAKEUP)
		return "names the waker the wait chain follows";
	return k->chain == 1 ? "the waker's, while the timing thread waited on it"
			     : "a waker's waker's, while the chain waited on it";
}

const char *describe_mark(const struct tc_contrib *k)
{
	if (k->nested)
		return "nested: counted in its parent";
	switch (k->joined) {
	case TC_JOIN_WAKEUP:
		return "woke the preempting task: counted as its cause, until it ran";
	case TC_JOIN_SIGNAL:
		return "carried the signal: counted as its delivery, until its handler ran";
	}
	return NULL;
}
