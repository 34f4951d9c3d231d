/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * privs.h - giving up privileges once the BPF programs are attached.
 *
 * After attach, recording needs no BPF or perfmon capability: the ring buffer
 * and maps are open fds. What it keeps: CAP_DAC_OVERRIDE and
 * CAP_DAC_READ_SEARCH (to finish the trace file in the caller's directory
 * and read sysfs), CAP_IPC_LOCK (the verbs probe registers memory). Call it
 * before creating any other thread: capabilities are per thread, and new
 * threads inherit the caller's.
 */
#ifndef TAILCAUSE_RECORD_PRIVS_H
#define TAILCAUSE_RECORD_PRIVS_H

/* Capabilities kept, as a mask of 1 << CAP_*. */
#define PRIVS_KEPT ((1ull << 1) | (1ull << 2) | (1ull << 14))

/* Drops every capability but PRIVS_KEPT from the calling thread; 0 or -errno (reported). */
int privs_drop(void);

#endif /* TAILCAUSE_RECORD_PRIVS_H */
