/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * probe.h - the latency probes behind one interface: open (threads created,
 * pinned and parked), tids (so the tracer can follow them before the first
 * timed iteration), run (N timed round trips), close.
 *
 * A probe never does I/O in its timed loop: every iteration writes one
 * struct tc_sample into a caller-provided, pre-faulted array.
 */
#ifndef TAILCAUSE_PROBE_PROBE_H
#define TAILCAUSE_PROBE_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

struct link;
struct link_key;

/* How a probe reaches its peer (verbs, udp). */
enum probe_mode {
	PROBE_LOOPBACK, /* two QPs on one device, two threads in this process */
	PROBE_SERVER,	/* wait for a client on the TCP port (one side, one thread) */
	PROBE_CLIENT,	/* connect to host (one side, one thread) */
};

struct probe_opts {
	int cpu[2]; /* CPUs for the two sides; -1: the last two CPUs */
	size_t iterations;
	/* verbs (and the two-host options: udp too) */
	const char *ib_dev; /* RDMA device; NULL: the first one */
	int ib_port;	    /* 1-based */
	int gid_index;	    /* -1: the RoCE v2 IPv4-mapped GID (or 0) */
	size_t size;	    /* message size, bytes */
	int inline_size;    /* largest message sent inline (perftest -I) */
	enum probe_mode mode;
	const char *host;	    /* PROBE_CLIENT */
	unsigned int tcp_port;	    /* out-of-band exchange (perftest's 18515) */
	const char *bind_addr;	    /* PROBE_SERVER: the address to listen on; NULL: every one */
	const struct link_key *key; /* two hosts: the shared secret (link_auth.h); NULL: none */
	const char *clock;	    /* "auto", "tsc", "monotonic"; NULL: auto */
	/* udp only */
	int busy_poll; /* spin on non-blocking receives instead of sleeping in recv() */
};

/* perftest's defaults, so both tools measure the same thing out of the box. */
#define PROBE_DEF_SIZE	   2
#define PROBE_DEF_INLINE   220
#define PROBE_DEF_TCP_PORT 18515
#define PROBE_UDP_MIN_SIZE 8 /* a udp datagram carries its 64-bit sequence number */

/* A thread a probe runs, as the tracer needs it. */
struct probe_thread {
	uint32_t tid;
	uint32_t cpu;
	const char *role; /* "ping", "pong" */
};

struct probe_ops {
	const char *name;
	const char *summary;
	/* Creates and parks the probe's threads; 0 or -errno (reported). */
	int (*open)(const struct probe_opts *o, void **state);
	/* Fills out with the probe's threads; returns how many (<= max). */
	size_t (*threads)(void *state, struct probe_thread *out, size_t max);
	/*
	 * Runs up to n round trips into s[0..n), fewer when probe_request_stop()
	 * is called; *done = round trips stored. 0 or -errno (reported).
	 */
	int (*run)(void *state, struct tc_sample *s, size_t n, size_t *done);
	/* Round trips completed so far by the current run (any thread may ask). */
	size_t (*progress)(void *state);
	void (*close)(void *state);
	/* Optional: the clock of the timestamps, for run.clock; NULL: clock_gettime. */
	const char *(*clock)(void *state);
	/* Optional: what was measured on (device, GID, size, ...); NULL: nothing more. */
	const char *(*detail)(void *state);
	/* Optional: two hosts, the run's id both sides agreed on (16 hex digits); NULL: none. */
	const char *(*run_id)(void *state);
	/* Optional: two hosts, the TCP link to the peer (link_auth.h) once the run is over;
	 * NULL: none. */
	const struct link *(*link)(void *state);
	/*
	 * Optional: when the runs since open sent a message again, its answer never come (a
	 * loss on the path), into at[0..max); returns how many there were (may be > max).
	 * what describes them ("a request sent again after 1000 ms without an answer").
	 */
	size_t (*resends)(void *state, uint64_t *at, size_t max, const char **what);
};

/* "loopback", "server" or "client": the trace's run.mode. */
const char *probe_mode_name(enum probe_mode m);

/* The bytes one message of the run carries (verbs, udp: -s, udp at least its sequence); 0 shm. */
size_t probe_message_bytes(const struct probe_ops *probe, const struct probe_opts *o);

/* The probe called name, or NULL. */
const struct probe_ops *probe_find(const char *name);
/* Names of all probes, comma-separated, for --help and errors. */
const char *probe_names(void);
/* The probe `run` and `record` use when none is named: verbs where an RDMA port is active. */
const struct probe_ops *probe_default(void);
/* The default options (perftest's for verbs; the last two CPUs). */
void probe_opts_init(struct probe_opts *o);

/*
 * Resolves o->cpu: fills -1 entries with the last two online CPUs, checks the
 * CPUs exist and are in this process' affinity mask. 0 or -EINVAL (reported).
 */
int probe_resolve_cpus(struct probe_opts *o);

/* Pins the calling thread to cpu; 0 or -errno. */
int probe_pin_self(int cpu);

/* CLOCK_MONOTONIC in nanoseconds: the clock of bpf_ktime_get_ns(). */
uint64_t probe_now_ns(void);

/*
 * --duration: whether another run follows. want is this side's wish (time left, no
 * Ctrl-C); two hosts agree over the run's link (link.h's link_next_run(): both sides
 * give -D, as perftest), loopback probes take want. 1, 0, or -errno (reported).
 */
int probe_next_run(const struct probe_ops *p, void *state, int want);

#endif /* TAILCAUSE_PROBE_PROBE_H */
