// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * nic.bpf.c - NIC events from tracepoints: NAPI polls on the probe CPUs and
 * devlink health reports and hardware errors (mlx5 reports its health
 * through devlink). The mlx5 EQ interrupt handlers have no tracepoint: see
 * nic_fentry.bpf.c. Targets this kernel lacks are not loaded, with the reason.
 */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

static __always_inline void emit(__u32 cpu, __u16 kind, __u32 arg, __u64 aux)
{
	struct tc_event *e = event_reserve(kind);

	if (!e)
		return;
	__builtin_memset(e, 0, sizeof(*e));
	e->start_ns = bpf_ktime_get_ns();
	e->cpu = cpu;
	e->arg = arg;
	e->aux = aux;
	e->kind = kind;
	e->tid = (__u32)bpf_get_current_pid_tgid();
	bpf_get_current_comm(e->other_comm, sizeof(e->other_comm));
	event_submit(e);
}

static __always_inline void napi_poll(int work, int budget)
{
	__u32 cpu = bpf_get_smp_processor_id();

	if (cpu_of_interest(cpu))
		emit(cpu, TC_EV_NAPI, work, budget);
}

SEC("tp_btf/napi_poll")
int BPF_PROG(tc_napi_poll_btf, struct napi_struct *napi, int work, int budget)
{
	napi_poll(work, budget);
	return 0;
}

SEC("tp/napi/napi_poll")
int tc_napi_poll_tp(struct trace_event_raw_napi_poll *ctx)
{
	napi_poll(ctx->work, ctx->budget);
	return 0;
}

/* Health events are rare and matter wherever they happen: no CPU filter. */
SEC("tp_btf/devlink_health_report")
int BPF_PROG(tc_devlink_health_btf)
{
	emit(bpf_get_smp_processor_id(), TC_EV_NIC, TC_NIC_HEALTH, 0);
	return 0;
}

SEC("tp/devlink/devlink_health_report")
int tc_devlink_health_tp(void *ctx)
{
	emit(bpf_get_smp_processor_id(), TC_EV_NIC, TC_NIC_HEALTH, 0);
	return 0;
}

SEC("tp_btf/devlink_hwerr")
int BPF_PROG(tc_devlink_hwerr_btf)
{
	emit(bpf_get_smp_processor_id(), TC_EV_NIC, TC_NIC_HWERR, 0);
	return 0;
}

SEC("tp/devlink/devlink_hwerr")
int tc_devlink_hwerr_tp(void *ctx)
{
	emit(bpf_get_smp_processor_id(), TC_EV_NIC, TC_NIC_HWERR, 0);
	return 0;
}
