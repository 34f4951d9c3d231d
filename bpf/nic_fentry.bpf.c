// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * nic_fentry.bpf.c - NIC driver work timed with fentry/fexit, optional:
 * the mlx5 completion and async EQ interrupt handlers, and rxe_rcv, the
 * soft-RoCE receive path that stands in for a NIC driver in the VM lab.
 *
 * A separate object because fentry may be refused where tracepoints are
 * not (or the driver is not loaded): then none of this loads, the reason is
 * recorded, and the other concerns are unaffected. Intervals on the probe
 * CPUs only; entry stamps a per-CPU slot per function.
 */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define N_FUNCS 8

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, N_FUNCS);
	__type(key, __u32);
	__type(value, __u64);
} func_start SEC(".maps");

static __always_inline void func_entry(__u32 which)
{
	interval_begin(&func_start, which);
}

static __always_inline void func_exit(__u32 which)
{
	interval_end(&func_start, which, TC_EV_NIC, which);
}

SEC("fentry/mlx5_eq_comp_int")
int BPF_PROG(tc_mlx5_comp_entry)
{
	func_entry(TC_NIC_COMP_EQ);
	return 0;
}

SEC("fexit/mlx5_eq_comp_int")
int BPF_PROG(tc_mlx5_comp_exit)
{
	func_exit(TC_NIC_COMP_EQ);
	return 0;
}

SEC("fentry/mlx5_eq_async_int")
int BPF_PROG(tc_mlx5_async_entry)
{
	func_entry(TC_NIC_ASYNC_EQ);
	return 0;
}

SEC("fexit/mlx5_eq_async_int")
int BPF_PROG(tc_mlx5_async_exit)
{
	func_exit(TC_NIC_ASYNC_EQ);
	return 0;
}

SEC("fentry/rxe_rcv")
int BPF_PROG(tc_rxe_rcv_entry)
{
	func_entry(TC_NIC_RXE_RCV);
	return 0;
}

SEC("fexit/rxe_rcv")
int BPF_PROG(tc_rxe_rcv_exit)
{
	func_exit(TC_NIC_RXE_RCV);
	return 0;
}
