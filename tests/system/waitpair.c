// SPDX-License-Identifier: BSD-2-Clause
/*
 * waitpair.c - a two-process request/answer benchmark, for the wait-chain tests:
 *   tc-waitpair pair SECONDS SERVER_CPU CLIENT_CPU
 *   tc-waitpair serve PATH SECONDS CPU
 *   tc-waitpair client PATH SECONDS CPU
 *   tc-waitpair lock SECONDS HOLDER_CPU TIMED_CPU
 * The client (comm tcclient) sends one byte with sendto() and blocks in recvfrom() for the
 * answer; the server (comm tcserver) reads it, works ~10 us and answers: with read() and
 * write() when it is the command's child, so that `record --iter syscall:sendto:recvfrom`
 * marks the client's round trips only, and with recvfrom() and sendto() when it is a
 * process of its own, which the markers must leave out. `pair` forks the server itself (a child of
 * the traced command); `serve` and `client` meet on a Unix socket at PATH (the server a process of
 * its own, not traced until it wakes the client). `lock` is a thread pool of two: a holder thread
 * (comm tcholder) takes a mutex for 50 us of work, then works 50 us without it, again and again;
 * the timed thread (tctimed) calls getpid() (`--iter syscall:getpid` marks each iteration), takes
 * the mutex, works 2 us and lets it go: it blocks on the futex while the holder has it, and the
 * holder's unlock wakes it. Each pins itself to its CPU.
 */
#include "tools.h" /* first: it asks for _GNU_SOURCE */

#include <pthread.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

static void become(const char *comm, int cpu)
{
	prctl(PR_SET_NAME, comm, 0, 0, 0);
	tool_pin("tc-waitpair", cpu);
}

/*
 * Answers each byte on fd until the client goes away: with read() and write() (sock 0),
 * which the client's markers do not mark, or with recvfrom() and sendto() (sock 1), the
 * calls they do mark: a process of its own is not the command, and its calls must not be.
 */
static void serve(int fd, int sock)
{
	char b;

	while ((sock ? recvfrom(fd, &b, 1, 0, NULL, NULL) : read(fd, &b, 1)) == 1) {
		uint64_t until = tool_now_ns() + 10000;

		while (tool_now_ns() < until)
			;
		if ((sock ? sendto(fd, &b, 1, 0, NULL, 0) : write(fd, &b, 1)) != 1)
			break;
	}
}

static void client(int fd, double seconds)
{
	uint64_t end = tool_now_ns() + (uint64_t)(seconds * 1e9);
	char b = 0;

	while (tool_now_ns() < end) {
		if (sendto(fd, &b, 1, 0, NULL, 0) != 1 || recvfrom(fd, &b, 1, 0, NULL, NULL) != 1) {
			perror("tc-waitpair client");
			exit(1);
		}
	}
}

static void spin_ns(uint64_t ns)
{
	uint64_t until = tool_now_ns() + ns;

	while (tool_now_ns() < until)
		;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int done;
static int holder_cpu;

static void *holder(void *arg)
{
	(void)arg;
	become("tcholder", holder_cpu);
	while (!done) {
		pthread_mutex_lock(&lock);
		spin_ns(50000);
		pthread_mutex_unlock(&lock);
		spin_ns(50000);
	}
	return NULL;
}

static int lock_pool(double seconds, int hcpu, int tcpu)
{
	uint64_t end = tool_now_ns() + (uint64_t)(seconds * 1e9);
	pthread_t th;

	holder_cpu = hcpu;
	if (pthread_create(&th, NULL, holder, NULL))
		return perror("pthread_create"), 1;
	become("tctimed", tcpu);
	while (tool_now_ns() < end) {
		(void)getpid();
		pthread_mutex_lock(&lock);
		spin_ns(2000);
		pthread_mutex_unlock(&lock);
	}
	done = 1;
	pthread_join(th, NULL);
	return 0;
}

static int unix_socket(const char *path, struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (fd < 0 || strlen(path) >= sizeof(sa->sun_path)) {
		fprintf(stderr, "tc-waitpair: no socket at %s\n", path);
		exit(1);
	}
	strcpy(sa->sun_path, path);
	return fd;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa;
	int sv[2], fd;
	pid_t pid;

	if (argc == 5 && !strcmp(argv[1], "pair")) {
		if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv))
			return perror("socketpair"), 1;
		pid = fork();
		if (pid < 0)
			return perror("fork"), 1;
		if (!pid) {
			close(sv[0]);
			become("tcserver", atoi(argv[3]));
			serve(sv[1], 0);
			_exit(0);
		}
		close(sv[1]);
		become("tcclient", atoi(argv[4]));
		client(sv[0], atof(argv[2]));
		close(sv[0]);
		waitpid(pid, NULL, 0);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "serve")) {
		int lfd = unix_socket(argv[2], &sa);

		become("tcserver", atoi(argv[4]));
		unlink(argv[2]);
		if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1))
			return perror("tc-waitpair serve"), 1;
		alarm((unsigned int)atof(argv[3]) + 30);
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			return perror("accept"), 1;
		serve(fd, 1);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "client")) {
		fd = unix_socket(argv[2], &sa);
		become("tcclient", atoi(argv[4]));
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			return perror("tc-waitpair connect"), 1;
		client(fd, atof(argv[3]));
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "lock"))
		return lock_pool(atof(argv[2]), atoi(argv[3]), atoi(argv[4]));
	fprintf(stderr, "usage: tc-waitpair pair SECONDS SERVER_CPU CLIENT_CPU\n"
			"       tc-waitpair serve PATH SECONDS CPU\n"
			"       tc-waitpair client PATH SECONDS CPU\n"
			"       tc-waitpair lock SECONDS HOLDER_CPU TIMED_CPU\n");
	return 2;
}
