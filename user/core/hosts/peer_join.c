// SPDX-License-Identifier: BSD-2-Clause
/* peer_join.c - the peer's trace joined to this one, on this one's clock (peer_join.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace/func_ids.h"
#include "peer_join.h"

static int refuse(struct peer_join *j, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(j->why, sizeof(j->why), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static const char *meta_or(const struct tc_trace *t, const char *key, const char *dflt)
{
	const char *v = trace__meta(t, key);

	return v ? v : dflt;
}

/* CLOCK_REALTIME of t's first iteration, from the pair of clocks the trace keeps. */
static int64_t first_realtime(const struct tc_trace *t)
{
	return (int64_t)t->realtime_ns + (int64_t)(t->samples[0].t_start - t->mono_ns);
}

/*
 * Two traces of an unmodified benchmark (record --iter): they carry no run id and no
 * mode. The end that started the exchange (sockperf's client, perftest's server) is
 * the one whose first iteration began first on the hosts' real-time clocks; the
 * pairing must then hold up.
 */
static int check_marked(const struct tc_trace *local, const struct tc_trace *peer,
			struct peer_join *j)
{
	if (!local->n_samples || !peer->n_samples)
		return refuse(j, "%s trace has no marked iterations to align the clocks by",
			      local->n_samples ? "the peer's" : "this");
	if (local->n_samples == peer->n_samples &&
	    local->samples[0].t_start == peer->samples[0].t_start &&
	    local->samples[0].tid == peer->samples[0].tid)
		return refuse(j, "the same trace twice: give the other end's");
	j->local_is_client = first_realtime(local) <= first_realtime(peer);
	j->unverified = 1;
	return 0;
}

/* The two traces are the two sides of one run. */
static int check_pair(const struct tc_trace *local, const struct tc_trace *peer,
		      struct peer_join *j)
{
	const char *lid = trace__meta(local, "run.id"), *pid = trace__meta(peer, "run.id");
	const char *lmode = meta_or(local, "run.mode", "loopback");
	const char *pmode = meta_or(peer, "run.mode", "loopback");

	if (!lid && !pid && trace__meta(local, "iter.spec") && trace__meta(peer, "iter.spec"))
		return check_marked(local, peer, j);
	if (!lid || !pid)
		return refuse(j,
			      "%s trace was not recorded as one side of a two-host run (no run.id)",
			      lid ? "the peer's" : "this");
	if (strcmp(lid, pid))
		return refuse(j, "the traces come from different runs (run ids %s and %s)", lid,
			      pid);
	if (strcmp(meta_or(local, "run.probe", "?"), meta_or(peer, "run.probe", "?")))
		return refuse(j, "the traces ran different probes (%s and %s)",
			      meta_or(local, "run.probe", "?"), meta_or(peer, "run.probe", "?"));
	if (!strcmp(lmode, pmode) || (strcmp(lmode, "client") && strcmp(lmode, "server")) ||
	    (strcmp(pmode, "client") && strcmp(pmode, "server")))
		return refuse(j,
			      "one trace must be the client's and one the server's (they are "
			      "%s and %s)",
			      lmode, pmode);
	if (!local->n_samples || !peer->n_samples)
		return refuse(j, "%s trace has no round trips to align the clocks by",
			      local->n_samples ? "the peer's" : "this");
	j->local_is_client = !strcmp(lmode, "client");
	return 0;
}

/* What one whole run of a --duration recording holds (run.run_samples), or 0. */
static size_t run_samples(const struct tc_trace *t)
{
	const char *v = trace__meta(t, "run.run_samples");
	char *end;
	unsigned long long n = v ? strtoull(v, &end, 10) : 0;

	return v && !*end && n <= SIZE_MAX ? (size_t)n : 0;
}

/*
 * The round trips of one run on both sides, by index, as (client, server) into pair
 * (room for the fewer round trips of the two); returns how many. A --duration
 * recording's runs are paired each apart, since the server records one round trip
 * fewer a run than the client (its are from one request's read to the next).
 */
static size_t pair_up(const struct tc_trace *client, const struct tc_trace *server,
		      size_t (*pair)[2])
{
	size_t lc = run_samples(client), ls = run_samples(server), k = 0;

	if (!lc || !ls) /* one run */
		lc = ls = client->n_samples > server->n_samples ? client->n_samples
								: server->n_samples;
	for (size_t c = 0, s = 0; c < client->n_samples && s < server->n_samples; c += lc, s += ls)
		for (size_t i = 0;
		     i < lc && i < ls && c + i < client->n_samples && s + i < server->n_samples;
		     i++) {
			pair[k][0] = c + i;
			pair[k++][1] = s + i;
		}
	return k;
}

/* Estimates the server's clock against the client's from the paired round trips. */
static int align(const struct tc_trace *client, const struct tc_trace *server, struct peer_join *j)
{
	size_t n = client->n_samples < server->n_samples ? client->n_samples : server->n_samples;
	struct clock_sync_pt *p = calloc(n ? n : 1, sizeof(*p));
	size_t(*pair)[2] = calloc(n ? n : 1, sizeof(*pair));
	int err;

	if (!p || !pair) {
		free(p);
		free(pair);
		return -ENOMEM;
	}
	n = pair_up(client, server, pair);
	for (size_t k = 0; k < n; k++)
		p[k] = (struct clock_sync_pt){client->samples[pair[k][0]].t_start,
					      server->samples[pair[k][1]].t_start,
					      client->samples[pair[k][0]].t_end};
	free(pair);
	err = clock_sync_estimate(p, n, &j->sync);
	free(p);
	if (err == -EINVAL)
		return refuse(j, "the traces have no round trips in common to align the clocks by");
	j->n_pairs = n;
	return err;
}

static uint64_t to_local(const struct peer_join *j, uint64_t peer_ns)
{
	return j->local_is_client ? clock_sync_server_to_client(&j->sync, peer_ns)
				  : clock_sync_client_to_server(&j->sync, peer_ns);
}

/* A peer's function id, numbered above this trace's; an older trace's address stays. */
static uint64_t peer_func(uint64_t func)
{
	return func && func <= TC_FUNC_ID_MAX ? func + PEER_FUNC_BASE : func;
}

/*
 * The peer's name of a kernel function (meta kv, "ksym.<hex>"): under its id as merged;
 * an older trace's address named only where this trace does not name it.
 */
static int merge_ksym(struct tc_trace *local, const struct tc_kv *kv)
{
	const char *hex = kv->key + 5;
	char *end, key[32];
	unsigned long long func = strtoull(hex, &end, 16);

	if (end == hex || *end || !func || func > TC_FUNC_ID_MAX)
		return trace__meta(local, kv->key) ? 0 : trace__set_meta(local, kv->key, kv->val);
	func_ids_key(peer_func(func), key, sizeof(key));
	return trace__set_meta(local, key, kv->val);
}

struct tc_event peer_join_own(const struct tc_event *e)
{
	struct tc_event own = *e;

	own.cpu -= PEER_CPU_BASE;
	own.tid &= ~PEER_TID_BIT;
	if (e->kind == TC_EV_HARDIRQ || e->kind == TC_EV_IRQ_MOVE)
		own.arg -= PEER_IRQ_BASE;
	if (e->kind == TC_EV_SIBLING || e->kind == TC_EV_MIGRATE)
		own.arg -= PEER_CPU_BASE;
	if (e->kind == TC_EV_IRQ_MOVE)
		own.from_cpu -= PEER_CPU_BASE;
	return own;
}

static int merge_events(struct tc_trace *local, const struct tc_trace *peer, struct peer_join *j)
{
	struct tc_event buf[64];
	size_t k = 0;

	for (size_t i = 0; i < peer->n_events; i++) {
		struct tc_event e = peer->events[i];

		e.start_ns = to_local(j, e.start_ns);
		if (e.kind == TC_EV_IPI && e.sent_ns)
			e.sent_ns = to_local(j, e.sent_ns);
		if (e.kind == TC_EV_HARDIRQ || e.kind == TC_EV_IRQ_MOVE)
			e.arg += PEER_IRQ_BASE;
		if (e.kind == TC_EV_SIBLING || e.kind == TC_EV_MIGRATE)
			e.arg += PEER_CPU_BASE; /* the CPU it names */
		if (e.kind == TC_EV_IRQ_MOVE)
			e.from_cpu += PEER_CPU_BASE;
		if (e.kind == TC_EV_COUNTER)
			e.arg += PEER_COUNTER_BASE;
		if (e.kind == TC_EV_WORK || e.kind == TC_EV_TIMER_FN || e.kind == TC_EV_NMI)
			e.func = peer_func(e.func);
		e.cpu += PEER_CPU_BASE;
		if (e.tid)
			e.tid |= PEER_TID_BIT;
		buf[k++] = e;
		if (k == sizeof(buf) / sizeof(buf[0]) || i + 1 == peer->n_events) {
			if (trace__add_events(local, buf, k))
				return -ENOMEM;
			k = 0;
		}
	}
	j->n_events = peer->n_events;
	return 0;
}

static int merge_rest(struct tc_trace *local, const struct tc_trace *peer)
{
	for (size_t i = 0; i < peer->n_threads; i++) {
		const struct tc_thread *th = &peer->threads[i];

		if (trace__add_thread(local, th->tid | PEER_TID_BIT, th->role,
				      th->cpu == UINT32_MAX ? UINT32_MAX : th->cpu + PEER_CPU_BASE))
			return -ENOMEM;
	}
	for (size_t i = 0; i < peer->n_irq_names; i++)
		if (trace__add_irq_name(local, peer->irq_names[i].irq + PEER_IRQ_BASE,
					peer->irq_names[i].name))
			return -ENOMEM;
	/* the peer's kernel function names and its path counters' names, numbered as its
	 * events now are */
	for (size_t i = 0; i < peer->n_meta; i++) {
		const struct tc_kv *kv = &peer->meta[i];
		char key[32];
		unsigned int n;

		if (!strncmp(kv->key, "ksym.", 5) && merge_ksym(local, kv))
			return -ENOMEM;
		if (sscanf(kv->key, "counter.%u", &n) != 1)
			continue;
		snprintf(key, sizeof(key), "counter.%u", n + PEER_COUNTER_BASE);
		if (trace__set_meta(local, key, kv->val))
			return -ENOMEM;
	}
	return 0;
}

/* What the report says about the join: peer.* facts in this trace's meta. */
static int store_facts(struct tc_trace *local, const struct tc_trace *peer,
		       const struct peer_join *j)
{
	const struct clock_sync *c = &j->sync;
	/* the peer's offset as seen from here: server - client, or its opposite */
	double off = j->local_is_client ? c->offset_ns : -c->offset_ns;
	const char *cpus = trace__meta(peer, "run.cpus");
	int err = 0;

	const char *mode = !j->unverified	? meta_or(peer, "run.mode", "?")
			   : j->local_is_client ? "answering end"
						: "initiating end";

	err = err ?: trace__set_metaf(local, "peer.host", "%s", meta_or(peer, "host.name", "?"));
	err = err ?: trace__set_metaf(local, "peer.mode", "%s", mode);
	err = err ?: trace__set_metaf(local, "peer.cpus", "%s", cpus ? cpus : "?");
	err = err ?: trace__set_metaf(local, "peer.offset_ns", "%.0f", off);
	err = err ?: trace__set_metaf(local, "peer.drift_ppm", "%.3f", c->drift * 1e6);
	err = err ?: trace__set_metaf(local, "peer.uncertainty_ns", "%.0f", c->uncertainty_ns);
	err = err ?: trace__set_metaf(local, "peer.consistent", "%s", c->consistent ? "yes" : "no");
	err = err ?: trace__set_metaf(local, "peer.pairs", "%zu", j->n_pairs);
	err = err ?: trace__set_metaf(local, "peer.events", "%zu", j->n_events);
	err = err ?: trace__set_metaf(local, "peer.lost", "%" PRIu64, trace__total_drops(peer));
	err = err
		      ?: trace__set_metaf(
				 local, "peer.paired_by", "%s",
				 j->unverified ? "marked iterations (no run id; the end that "
						 "started taken from the hosts' real-time clocks)"
					       : "run id");
	return err;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * The server's round trips of a run of this join (run_ends()): 0 when the last request
 * of a run cannot be placed, else ls, the server's round trips a whole run (n_samples
 * for one run).
 */
static size_t run_ends(const struct tc_trace *cli, const struct tc_trace *srv,
		       const struct peer_join *j)
{
	size_t lc = run_samples(cli), ls = run_samples(srv);

	if (j->unverified) /* marked iterations: the server's round trips are not read to read */
		return 0;
	if (!lc && !ls)
		return cli->n_samples == srv->n_samples + 1 ? srv->n_samples : 0;
	return lc == ls + 1 ? ls : 0;
}

/*
 * The server's read of the client's round trip after pair k's, where that round trip is
 * the last of its run: a built-in probe's server times from one request's read to the
 * next, one round trip fewer a run (pair_up()), so its last of the run (ls a run, from
 * run_ends()) ended when it read that request. 1 with the read (the server's clock) in
 * *at, else 0.
 */
static int last_read(const struct tc_trace *cli, const struct tc_trace *srv, size_t ls,
		     const size_t (*pair)[2], size_t n, size_t k, uint64_t *at)
{
	size_t c = pair[k][0] + 1, s = pair[k][1];
	const struct tc_sample *x = &srv->samples[s];

	if (!ls || (s + 1) % ls || c >= cli->n_samples || (k + 1 < n && pair[k + 1][0] == c))
		return 0; /* not the server's last of a run, or the client's next is paired */
	if (x->t_end <= x->t_start)
		return 0;
	*at = x->t_end;
	return 1;
}

/* Request c of the client reached the server at a (the client's clock). */
static void note_arrival(struct tc_trace *cli, const struct tc_sample *c, uint64_t a, uint64_t *to,
			 uint64_t *back, size_t *m)
{
	cli->peer.arrivals[cli->peer.n_arrivals++] = a;
	if (a < c->t_start || a > c->t_end)
		return; /* outside its round trip: the clocks' error, not a time */
	to[*m] = a - c->t_start;
	back[(*m)++] = c->t_end - a;
}

/*
 * The client's side: when each request reached the server, on the client's clock,
 * and the usual way there and back (medians over the round trips timed on both hosts).
 */
static int note_arrivals(struct tc_trace *cli, const struct tc_trace *srv, struct peer_join *j)
{
	size_t n = j->n_pairs, m = 0, extra = 0, ls = run_ends(cli, srv, j);
	size_t(*pair)[2] = malloc((n ? n : 1) * sizeof(*pair));
	uint64_t *to = NULL, *back = NULL, a;

	if (!pair)
		return -ENOMEM;
	n = pair_up(cli, srv, pair); /* as align() paired them */
	for (size_t k = 0; k < n; k++)
		extra += last_read(cli, srv, ls, pair, n, k, &a);
	to = malloc((n + extra + 1) * sizeof(*to));
	back = malloc((n + extra + 1) * sizeof(*back));
	cli->peer.arrivals = malloc((n + extra + 1) * sizeof(*cli->peer.arrivals));
	cli->peer.n_arrivals = 0;
	if (!to || !back || !cli->peer.arrivals) {
		free(cli->peer.arrivals);
		cli->peer.arrivals = NULL;
		free(pair);
		free(to);
		free(back);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++) {
		const struct tc_sample *c = &cli->samples[pair[k][0]];

		note_arrival(cli, c, to_local(j, srv->samples[pair[k][1]].t_start), to, back, &m);
		if (last_read(cli, srv, ls, pair, n, k, &a))
			note_arrival(cli, c + 1, to_local(j, a), to, back, &m);
	}
	free(pair);
	qsort(cli->peer.arrivals, cli->peer.n_arrivals, sizeof(*cli->peer.arrivals), cmp_u64);
	qsort(to, m, sizeof(*to), cmp_u64);
	qsort(back, m, sizeof(*back), cmp_u64);
	cli->peer.to_median_ns = m ? to[m / 2] : 0;
	cli->peer.back_median_ns = m ? back[m / 2] : 0;
	free(to);
	free(back);
	return 0;
}

int peer_direction(const struct tc_trace *t, const struct tc_sample *s, uint64_t *to_ns,
		   uint64_t *back_ns)
{
	size_t lo = 0, hi = t->peer.n_arrivals;

	while (lo < hi) { /* the first arrival at or after the send */
		size_t mid = lo + (hi - lo) / 2;

		if (t->peer.arrivals[mid] < s->t_start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == t->peer.n_arrivals || t->peer.arrivals[lo] > s->t_end)
		return -ENOENT;
	*to_ns = t->peer.arrivals[lo] - s->t_start;
	*back_ns = s->t_end - t->peer.arrivals[lo];
	return 0;
}

enum peer_leg peer_slow_leg(const struct tc_trace *t, uint64_t to_ns, uint64_t back_ns)
{
	uint64_t u = t->peer.uncertainty_ns;
	uint64_t to = to_ns > t->peer.to_median_ns ? to_ns - t->peer.to_median_ns : 0;
	uint64_t back = back_ns > t->peer.back_median_ns ? back_ns - t->peer.back_median_ns : 0;

	if (to <= u && back <= u)
		return PEER_LEG_NEITHER;
	return to > back ? PEER_LEG_TO : PEER_LEG_BACK;
}

int peer_join(struct tc_trace *local, const struct tc_trace *peer, struct peer_join *j)
{
	const struct tc_trace *client, *server;
	uint64_t lo, hi, plo, phi;
	int err;

	memset(j, 0, sizeof(*j));
	err = check_pair(local, peer, j);
	if (err)
		return err;
	client = j->local_is_client ? local : peer;
	server = j->local_is_client ? peer : local;
	err = align(client, server, j);
	if (err)
		return err;
	/* without a run id, the iterations must pair up as one run's round trips do */
	if (j->unverified && !j->sync.consistent)
		return refuse(j,
			      "the traces' iterations do not pair up as one run's round trips (no "
			      "clock alignment fits them all): are they the two ends of one run?");
	/* the peer's round trips must fall inside this trace's, once on its clock */
	lo = local->samples[0].t_start;
	hi = local->samples[local->n_samples - 1].t_end;
	plo = to_local(j, peer->samples[0].t_start);
	phi = to_local(j, peer->samples[peer->n_samples - 1].t_end);
	if (phi < lo || plo > hi)
		return refuse(j, "the traces do not overlap in time once the clocks are aligned");
	err = merge_events(local, peer, j);
	err = err ?: merge_rest(local, peer);
	err = err ?: j->local_is_client ? note_arrivals(local, peer, j) : 0;
	err = err ?: store_facts(local, peer, j);
	if (err)
		return err;
	local->peer.cpu_base = PEER_CPU_BASE;
	local->peer.uncertainty_ns = (uint64_t)ceil(j->sync.uncertainty_ns);
	return 0;
}
