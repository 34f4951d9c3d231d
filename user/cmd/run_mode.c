// SPDX-License-Identifier: BSD-2-Clause
/*
 * run_mode.c - which probe a command runs and, for the two-host ones, which
 * end this host is and the key it proves: decided once the options are read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "probe/link_auth.h"
#include "run_args.h"

/* 1 when probe has a two-host mode (verbs, udp). */
static int networked(const struct probe_ops *probe)
{
	return !strcmp(probe->name, "verbs") || !strcmp(probe->name, "udp");
}

/* --key (or $TAILCAUSE_KEY_FILE) read into a->key for a two-host run; --bind checked. */
static int load_key(struct run_args *a)
{
	const char *path = a->key_path;
	struct probe_opts *o = &a->probe_opts;

	if (o->mode == PROBE_LOOPBACK && path) {
		log_err("--key is for two-host runs (--server, or a HOST to connect to)");
		return -EINVAL;
	}
	if (o->mode != PROBE_SERVER && o->bind_addr) {
		log_err("--bind is for the server (--server): a client connects to HOST");
		return -EINVAL;
	}
	if (!path && o->mode != PROBE_LOOPBACK)
		path = getenv("TAILCAUSE_KEY_FILE");
	if (!path || !*path)
		return 0;
	if (link_key_load(path, &a->key))
		return -EINVAL;
	o->key = &a->key;
	return 0;
}

/*
 * The probe and, for verbs and udp, its mode: a HOST argument makes a client,
 * --server a server, --loopback one process; lat waits as server by default
 * (perftest's habit), record and run go loopback.
 */
int run_args_pick_probe(unsigned int mask, struct run_args *a)
{
	struct probe_opts *o = &a->probe_opts;
	const char *host = NULL;

	if ((mask & RA_VERBS) && a->n_rest > 0 &&
	    (a->verbs_given || a->net_given || a->udp_given || !a->probe || networked(a->probe))) {
		host = a->rest[0];
		a->rest++;
		a->n_rest--;
		a->net_given = 1;
	}
	if (!a->probe) {
		if (a->udp_given)
			a->probe = probe_find("udp");
		else if (a->verbs_given || a->net_given)
			a->probe = probe_find("verbs");
		else if (mask & RA_AUTO_PROBE)
			a->probe = probe_default();
		else
			a->probe = probe_find("shm");
	}
	if (a->verbs_given && strcmp(a->probe->name, "verbs")) {
		log_err("--probe %s: the RDMA options (-d -i -x -I --clock) are for --probe verbs",
			a->probe->name);
		return -EINVAL;
	}
	if (a->udp_given && strcmp(a->probe->name, "udp")) {
		log_err("--probe %s: --busy-poll is for --probe udp", a->probe->name);
		return -EINVAL;
	}
	if (!networked(a->probe)) {
		if (a->net_given) {
			log_err("--probe %s: -s --loopback --server --port --key --bind and HOST are "
				"for --probe verbs and udp",
				a->probe->name);
			return -EINVAL;
		}
		return 0;
	}
	if (a->loopback + a->server + (host != NULL) > 1) {
		log_err("--loopback, --server and HOST exclude each other");
		return -EINVAL;
	}
	if (host) {
		o->mode = PROBE_CLIENT;
		o->host = host;
	} else if (a->server || (!a->loopback && (mask & RA_SERVER_DEFAULT))) {
		o->mode = PROBE_SERVER;
	} else {
		o->mode = PROBE_LOOPBACK;
	}
	return load_key(a);
}
