// SPDX-License-Identifier: BSD-2-Clause
/*
 * verbs_oob.c - the verbs probe's line over the two-host link (link.h), as
 * perftest exchanges it: each side sends its QPN, PSN, rkey, buffer address,
 * LID, GID, MTU, its run parameters, the protocol version and a run id (the
 * client's is the run's).
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "lib/log.h"
#include "link.h"
#include "verbs.h"

#define MAGIC	     "tailcause-verbs"
#define LINE_MAX_LEN 360

static void gid_hex(const union ibv_gid *gid, char *out)
{
	for (int i = 0; i < 16; i++)
		sprintf(out + 2 * i, "%02x", gid->raw[i]);
}

static int parse_gid(const char *hex, union ibv_gid *gid)
{
	for (int i = 0; i < 16; i++) {
		unsigned int b;

		if (sscanf(hex + 2 * i, "%2x", &b) != 1)
			return -1;
		gid->raw[i] = (uint8_t)b;
	}
	return 0;
}

int verbs_oob__exchange(int fd, const struct probe_opts *o, const struct verbs_dest *self,
			struct verbs_dest *peer, char *run_id)
{
	char line[LINE_MAX_LEN], gid[33], pgid[33] = "", mine[17], theirs[17] = "";
	unsigned long long n, size, addr;
	unsigned int lid;
	int ver, len, err;

	gid_hex(&self->gid, gid);
	link_new_run_id(mine);
	len = snprintf(line, sizeof(line),
		       MAGIC " %d n=%zu s=%zu qpn=%u psn=%u rkey=%u addr=%llx lid=%u gidx=%d "
			     "mtu=%u gid=%s run=%s\n",
		       VERBS_PROTO_VERSION, o->iterations, o->size, self->qpn, self->psn,
		       self->rkey, (unsigned long long)self->addr, self->lid, self->gid_index,
		       self->mtu, gid, mine);
	err = link_send_all(fd, line, (size_t)len);
	err = err ?: link_recv_line(fd, line, sizeof(line));
	if (err) {
		log_err("exchange queue pair details with %s: %s", o->host ? o->host : "the client",
			strerror(-err));
		return err;
	}
	if (strncmp(line, MAGIC " ", sizeof(MAGIC))) {
		log_err("the peer is not tailcause's verbs probe (perftest? a different program "
			"on TCP port %u): it sent '%.40s'",
			o->tcp_port, line);
		return -EPROTO;
	}
	if (sscanf(line + sizeof(MAGIC), "%d", &ver) != 1 || ver != VERBS_PROTO_VERSION) {
		log_err("version mismatch: the peer speaks verbs protocol %d, this tailcause %d "
			"(run the same tailcause version on both hosts)",
			ver, VERBS_PROTO_VERSION);
		return -EPROTO;
	}
	if (sscanf(line + sizeof(MAGIC),
		   "%*d n=%llu s=%llu qpn=%u psn=%u rkey=%u addr=%llx lid=%u gidx=%d mtu=%u "
		   "gid=%32s run=%16s",
		   &n, &size, &peer->qpn, &peer->psn, &peer->rkey, &addr, &lid, &peer->gid_index,
		   &peer->mtu, pgid, theirs) != 11 ||
	    parse_gid(pgid, &peer->gid)) {
		log_err("the peer sent a malformed exchange line: '%.80s'", line);
		return -EPROTO;
	}
	peer->addr = addr;
	peer->lid = (uint16_t)lid;
	if (n != o->iterations || size != o->size) {
		log_err("the peer runs -n %llu -s %llu, this side -n %zu -s %zu: give both sides "
			"the same",
			n, size, o->iterations, o->size);
		return -EPROTO;
	}
	memcpy(run_id, o->mode == PROBE_CLIENT ? mine : theirs, 17);
	return 0;
}
