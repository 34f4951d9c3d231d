// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_link.c - the two-host link's handshake (probe/link_auth.h) and the trace sent
 * over it (record/peer_trace.h), each side on one end of a socketpair: who is let
 * in with which key, and that a trace arrives whole and authenticated or not at all.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/trace/trace.h"
#include "probe/link.h"
#include "record/peer_trace.h"
#include "tracefile/trace_file.h"

static char dir[] = "/tmp/tc-test-link-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[64];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* A key file holding text, read into *key. */
static void key_of(const char *text, struct link_key *key)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/key", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(link_key_load(path, key), 0);
}

struct server {
	struct link l;
	const struct link_key *key;
	char why[160];
	int err;
};

static void *serve(void *arg)
{
	struct server *s = arg;

	s->err = link_auth_server(&s->l, s->key, s->why, sizeof(s->why));
	return NULL;
}

/* Both halves of the handshake over a socketpair; the client's result. */
static int handshake(struct server *s, const struct link_key *skey, struct link *c,
		     const struct link_key *ckey)
{
	int sv[2], err;
	pthread_t thr;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	*s = (struct server){.l = {.fd = sv[0]}, .key = skey};
	*c = (struct link){.fd = sv[1]};
	assert_int_equal(pthread_create(&thr, NULL, serve, s), 0);
	err = link_auth_client(c, ckey, "the test");
	if (err)
		shutdown(c->fd, SHUT_RDWR); /* a refused client hangs up */
	pthread_join(thr, NULL);
	return err;
}

static void test_link_same_key_trusted(void **state)
{
	struct link_key k;
	struct server s;
	struct link c;

	(void)state;
	key_of("correct horse battery staple\n", &k);
	assert_int_equal(handshake(&s, &k, &c, &k), 0);
	assert_int_equal(s.err, 0);
	assert_true(s.l.trusted && c.trusted);
	assert_memory_equal(s.l.session, c.session, sizeof(c.session));
	link_close(&s.l);
	link_close(&c);
}

static void test_link_other_key_refused(void **state)
{
	struct link_key k1, k2;
	struct server s;
	struct link c;

	(void)state;
	key_of("correct horse battery staple", &k1);
	key_of("correct horse battery stapled", &k2);
	assert_int_equal(handshake(&s, &k1, &c, &k2), -EACCES);
	assert_int_equal(s.err, -EACCES);
	assert_string_equal(s.why, "its key is not this server's");
	link_close(&s.l);
	link_close(&c);
	/* and a client without a key */
	assert_int_equal(handshake(&s, &k1, &c, NULL), -EACCES);
	assert_int_equal(s.err, -EACCES);
	assert_non_null(strstr(s.why, "it has no key"));
	link_close(&s.l);
	link_close(&c);
}

static void test_link_no_key_untrusted(void **state)
{
	struct link_key k;
	struct server s;
	struct link c;

	(void)state;
	key_of("correct horse battery staple", &k);
	assert_int_equal(handshake(&s, NULL, &c, &k), 0); /* the run may go ahead */
	assert_int_equal(s.err, 0);
	assert_false(s.l.trusted || c.trusted);
	assert_string_equal(c.untrusted_why, "the server has no --key");
	link_close(&s.l);
	link_close(&c);
	assert_int_equal(handshake(&s, NULL, &c, NULL), 0);
	assert_false(s.l.trusted || c.trusted);
	assert_string_equal(c.untrusted_why, "neither host has --key");
	link_close(&s.l);
	link_close(&c);
}

static void test_link_key_file_checked(void **state)
{
	char path[128];
	struct link_key k;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/short", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_int_equal(write(fd, "fifteen bytes!!\n", 16), 16); /* 15 without the newline */
	close(fd);
	assert_int_not_equal(link_key_load(path, &k), 0);
	snprintf(path, sizeof(path), "%s/open", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_int_equal(write(fd, "sixteen bytes!!!", 16), 16);
	close(fd);
	assert_int_equal(link_key_load(path, &k), 0);
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_not_equal(link_key_load(path, &k), 0);
	assert_int_not_equal(link_key_load(dir, &k), 0); /* a directory */
}

/* A small trace of the run "0123456789abcdef", written; its fd open for reading. */
static int small_trace(const char *path)
{
	struct tc_trace *t = trace__new();
	struct trace_writer *w;
	int fd;

	assert_non_null(t);
	assert_int_equal(trace__add_thread(t, 7, TC_THREAD_PROBE, 1), 0);
	assert_int_equal(trace__set_meta(t, "run.id", "0123456789abcdef"), 0);
	for (uint64_t i = 0; i < 1000; i++) {
		struct tc_sample x = {1000000 + i * 1000, 1000000 + i * 1000 + 400, 1, 7};

		assert_int_equal(trace__add_samples(t, &x, 1), 0);
	}
	w = trace_writer__open(path, 1, 1, 1);
	assert_non_null(w);
	assert_int_equal(trace_writer__meta(w, t), 0);
	assert_int_equal(trace_writer__finish_keep(w, t, &fd), 0);
	assert_true(fd >= 0);
	trace__free(t);
	return fd;
}

struct sender {
	const struct link *l;
	int fd;
	int err;
};

static void *send_it(void *arg)
{
	struct sender *s = arg;

	s->err = peer_trace_serve(s->l, s->fd, "0123456789abcdef");
	return NULL;
}

static void test_link_trace_sent_whole(void **state)
{
	char src[128], dst[128], why[240] = "";
	struct link_key k;
	struct server s;
	struct sender snd;
	struct link c;
	struct stat st1, st2;
	pthread_t thr;

	(void)state;
	snprintf(src, sizeof(src), "%s/srv.tct", dir);
	snprintf(dst, sizeof(dst), "%s/cli-peer.tct", dir);
	key_of("correct horse battery staple", &k);
	assert_int_equal(handshake(&s, &k, &c, &k), 0);
	snd = (struct sender){.l = &s.l, .fd = small_trace(src)};
	assert_int_equal(pthread_create(&thr, NULL, send_it, &snd), 0);
	assert_int_equal(peer_trace_fetch(&c, dst, "0123456789abcdef", why, sizeof(why)), 0);
	pthread_join(thr, NULL);
	assert_int_equal(snd.err, 0);
	assert_int_equal(stat(src, &st1), 0);
	assert_int_equal(stat(dst, &st2), 0);
	assert_int_equal(st1.st_size, st2.st_size);
	assert_int_equal(st2.st_mode & 0777, 0600);
	close(snd.fd);
	link_close(&s.l);
	link_close(&c);
}

/* What a server sends, by hand: a header line, payload bytes, a MAC line of other bytes. */
struct forger {
	struct link l;
	char header[64];
	const char *payload, *maced; /* the bytes sent, the bytes MAC-ed */
	size_t len;
};

static void *forge(void *arg)
{
	struct forger *f = arg;
	char line[128], hex[LINK_HEX_MAC_LEN + 1];
	unsigned char le[8] = {0};
	struct link_mac m;

	/* no cmocka assertion off the test's thread: a wrong request gets no answer */
	if (link_recv_line(f->l.fd, line, sizeof(line)) ||
	    strcmp(line, "tailcause-trace? 2 0123456789abcdef"))
		return NULL;
	link_send_all(f->l.fd, f->header, strlen(f->header));
	if (!f->len)
		return NULL;
	link_send_all(f->l.fd, f->payload, f->len);
	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)((uint64_t)f->len >> (8 * i));
	link_mac_init(&m, &f->l, "tailcause-trace 2");
	link_mac_update(&m, "0123456789abcdef", 17);
	link_mac_update(&m, le, sizeof(le));
	link_mac_update(&m, f->maced, f->len);
	link_mac_final_hex(&m, hex);
	snprintf(line, sizeof(line), "tailcause-trace-mac %s\n", hex);
	link_send_all(f->l.fd, line, strlen(line));
	return NULL;
}

/* The client's fetch from a forger; its result, and why in why. */
static int fetch_forged(struct forger *f, char *why, size_t len, const char *dst)
{
	struct link_key k;
	struct server s;
	struct link c;
	pthread_t thr;
	int err;

	key_of("correct horse battery staple", &k);
	assert_int_equal(handshake(&s, &k, &c, &k), 0);
	f->l = s.l;
	assert_int_equal(pthread_create(&thr, NULL, forge, f), 0);
	err = peer_trace_fetch(&c, dst, "0123456789abcdef", why, len);
	link_close(&c); /* the forger is done or blocked on a closed link */
	pthread_join(thr, NULL);
	link_close(&s.l);
	return err;
}

static void test_link_trace_changed_refused(void **state)
{
	char dst[128], why[240] = "";
	struct forger f = {.payload = "0123456789", .maced = "0123456780", .len = 10};

	(void)state;
	snprintf(dst, sizeof(dst), "%s/changed.tct", dir);
	snprintf(f.header, sizeof(f.header), "tailcause-trace 2 10\n");
	assert_int_equal(fetch_forged(&f, why, sizeof(why), dst), -EBADMSG);
	assert_non_null(strstr(why, "changed on the way"));
	assert_int_equal(access(dst, F_OK), -1); /* nothing under its name */
	/* bytes with their right MAC that are not a trace: not kept either */
	f.maced = f.payload;
	assert_int_equal(fetch_forged(&f, why, sizeof(why), dst), -EBADMSG);
	assert_string_equal(why, "it does not read as a trace");
	assert_int_equal(access(dst, F_OK), -1);
}

static void test_link_trace_too_large_refused(void **state)
{
	char dst[128], why[240] = "";
	struct forger f = {.len = 0};

	(void)state;
	snprintf(dst, sizeof(dst), "%s/huge.tct", dir);
	snprintf(f.header, sizeof(f.header), "tailcause-trace 2 %llu\n",
		 (unsigned long long)PEER_TRACE_MAX_BYTES + 1);
	assert_int_equal(fetch_forged(&f, why, sizeof(why), dst), -EFBIG);
	assert_non_null(strstr(why, "bytes (1 to"));
	snprintf(f.header, sizeof(f.header), "tailcause-trace 2 12x\n");
	assert_int_equal(fetch_forged(&f, why, sizeof(why), dst), -EFBIG);
	snprintf(f.header, sizeof(f.header), "tailcause-trace 2 none \x1b[2J\n");
	assert_int_equal(fetch_forged(&f, why, sizeof(why), dst), -ENOENT);
	assert_string_equal(why, "the server sent none: \\x1b[2J");
	assert_int_equal(access(dst, F_OK), -1);
}

static void test_link_untrusted_sends_nothing(void **state)
{
	char dst[128], why[240] = "";
	struct server s;
	struct link c;

	(void)state;
	snprintf(dst, sizeof(dst), "%s/none.tct", dir);
	assert_int_equal(handshake(&s, NULL, &c, NULL), 0);
	assert_int_equal(peer_trace_fetch(&c, dst, "0123456789abcdef", why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "neither host has --key"));
	/* and the server sends nothing over such a link, asked or not */
	assert_int_equal(peer_trace_serve(&s.l, -1, "0123456789abcdef"), 0);
	link_close(&s.l);
	link_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_same_key_trusted),
		cmocka_unit_test(test_link_other_key_refused),
		cmocka_unit_test(test_link_no_key_untrusted),
		cmocka_unit_test(test_link_key_file_checked),
		cmocka_unit_test(test_link_trace_sent_whole),
		cmocka_unit_test(test_link_trace_changed_refused),
		cmocka_unit_test(test_link_trace_too_large_refused),
		cmocka_unit_test(test_link_untrusted_sends_nothing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
