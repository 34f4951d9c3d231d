// SPDX-License-Identifier: BSD-2-Clause
/* probe.c - the probe registry and what every back end shares (CPUs, clock). */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "link.h"
#include "probe.h"

extern const struct probe_ops shm_probe;
extern const struct probe_ops udp_probe;
extern const struct probe_ops verbs_probe;

/* Verbs helper (verbs_dev.c): whether any RDMA port is PORT_ACTIVE. */
int verbs_any_active_port(void);

static const struct probe_ops *const probes[] = {
	&shm_probe,
	&udp_probe,
	&verbs_probe,
};

const struct probe_ops *probe_find(const char *name)
{
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		if (!strcmp(probes[i]->name, name))
			return probes[i];
	return NULL;
}

const char *probe_names(void)
{
	return "shm, udp, verbs";
}

const struct probe_ops *probe_default(void)
{
	return verbs_any_active_port() ? &verbs_probe : &shm_probe;
}

void probe_opts_init(struct probe_opts *o)
{
	*o = (struct probe_opts){
		.cpu = {-1, -1},
		.iterations = 100000,
		.ib_port = 1,
		.gid_index = -1,
		.size = PROBE_DEF_SIZE,
		.inline_size = PROBE_DEF_INLINE,
		.mode = PROBE_LOOPBACK,
		.tcp_port = PROBE_DEF_TCP_PORT,
	};
}

int probe_resolve_cpus(struct probe_opts *o)
{
	cpu_set_t allowed;
	int last[2] = {-1, -1};

	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		int err = -errno;

		log_err("read CPU affinity: %s", strerror(-err));
		return err;
	}
	for (int c = CPU_SETSIZE - 1; c >= 0 && last[0] < 0; c--) {
		if (!CPU_ISSET(c, &allowed))
			continue;
		if (last[1] < 0)
			last[1] = c;
		else
			last[0] = c;
	}
	if (o->cpu[0] < 0)
		o->cpu[0] = last[0] >= 0 ? last[0] : last[1];
	if (o->cpu[1] < 0)
		o->cpu[1] = last[1];
	for (int i = 0; i < 2; i++) {
		if (o->cpu[i] < 0 || o->cpu[i] >= CPU_SETSIZE || !CPU_ISSET(o->cpu[i], &allowed)) {
			log_err("cpu %d: not an online CPU this process may use", o->cpu[i]);
			return -EINVAL;
		}
	}
	return 0;
}

int probe_pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	return 0;
}

uint64_t probe_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int probe_next_run(const struct probe_ops *p, void *state, int want)
{
	const struct link *l = p->link ? p->link(state) : NULL;

	return l ? link_next_run(l->fd, want) : want;
}

const char *probe_mode_name(enum probe_mode m)
{
	return m == PROBE_SERVER ? "server" : m == PROBE_CLIENT ? "client" : "loopback";
}

size_t probe_message_bytes(const struct probe_ops *probe, const struct probe_opts *o)
{
	if (!strcmp(probe->name, "udp"))
		return o->size < PROBE_UDP_MIN_SIZE ? PROBE_UDP_MIN_SIZE : o->size;
	return strcmp(probe->name, "verbs") ? 0 : o->size;
}
