// SPDX-License-Identifier: BSD-2-Clause
/*
 * inject_periodic.c - the modes that wait PERIOD_US, inject once and log the
 * window, until SECONDS (inject.c: hog, ipi, disk, udp, compact, workq). Each
 * mode opens what it needs once (setup) and injects through its own function;
 * the loop around them is one.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "inject.h"

/* hog: a gap this long between two clock reads means the hog was not running */
#define GAP_NS 3000

struct periodic {
	const struct inject_opts *o;
	int (*inject)(struct periodic *p, uint64_t stop_at);
	char cause[64];
	int target;	  /* the CPU the windows are logged on */
	int fd, rx;	  /* the mode's file or socket, and udp's receiver */
	const char *file; /* compact, workq: the file written */
	struct sockaddr_in addr;
	char buf[64];
	void *dbuf; /* disk: an O_DIRECT buffer */
	long blocks;
	unsigned int seed;
};

static void log_window(const struct periodic *p, uint64_t a, uint64_t b, const char *cause)
{
	fprintf(p->o->log, "%llu %llu %d %s\n", (unsigned long long)a, (unsigned long long)b,
		p->target, cause);
}

/* Times the calling thread was preempted so far (it also sleeps in each read, waiting
 * for the IPI's completion: those voluntary switches are part of the injection). */
static long preemptions(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -1;
	return ru.ru_nivcsw;
}

/*
 * One window per stretch the hog really ran: a gap over GAP_NS between two clock
 * reads means it was off its CPU (another task, or an IRQ), and then it did not
 * hold the probe off either.
 */
static int inject_hog(struct periodic *p, uint64_t stop_at)
{
	uint64_t run0 = now_ns(), last = run0, t;
	volatile unsigned long x = 0;

	do {
		for (int i = 0; i < 50; i++)
			x++;
		t = now_ns();
		if (t - last > GAP_NS) {
			log_window(p, run0, last, p->cause);
			run0 = t;
		}
		last = t;
	} while (t < stop_at);
	log_window(p, run0, last, p->cause);
	return 0;
}

/*
 * One window per read: an IPI to TARGET (ipi), or a wait for one completion IRQ
 * (disk); the time between two reads is the sender's. A read during which the
 * reader was preempted is `uncertain`.
 */
static int inject_reads(struct periodic *p, uint64_t stop_at)
{
	int disk = p->dbuf != NULL;

	do {
		long sw = preemptions();
		off_t at = disk ? (off_t)(rand_r(&p->seed) % p->blocks) * 4096 : 0;
		size_t len = disk ? 4096 : 16;
		uint64_t r0 = now_ns(), r1;

		if (pread(p->fd, disk ? p->dbuf : p->buf, len, at) != (ssize_t)len) {
			perror(disk ? "tc-lab-inject: O_DIRECT read" : "tc-lab-inject: cpuid read");
			return 4;
		}
		r1 = now_ns();
		log_window(p, r0, r1, preemptions() == sw ? p->cause : "uncertain");
	} while (now_ns() < stop_at);
	return 0;
}

/* The burst of datagrams is one window. */
static int inject_udp(struct periodic *p, uint64_t stop_at)
{
	uint64_t t0 = now_ns();

	do {
		sendto(p->fd, p->buf, 64, 0, (struct sockaddr *)&p->addr, sizeof(p->addr));
		while (recv(p->rx, p->buf, sizeof(p->buf), 0) > 0)
			;
	} while (now_ns() < stop_at);
	log_window(p, t0, now_ns(), p->cause);
	return 0;
}

/*
 * compact, workq: the write is the window (stat_refresh returns once the work ran
 * on every CPU: schedule_on_each_cpu).
 */
static int inject_write(struct periodic *p, uint64_t stop_at)
{
	uint64_t t0 = now_ns();

	(void)stop_at;
	if (pwrite(p->fd, "1\n", 2, 0) != 2) {
		fprintf(stderr, "tc-lab-inject: %s: %s\n", p->file, strerror(errno));
		return 2;
	}
	log_window(p, t0, now_ns(), p->cause);
	return 0;
}

static int setup_disk(struct periodic *p)
{
	off_t size = 0;

	if (!p->o->file || (p->fd = open(p->o->file, O_RDONLY | O_DIRECT)) < 0 ||
	    (size = lseek(p->fd, 0, SEEK_END)) < (1 << 20) ||
	    posix_memalign(&p->dbuf, 4096, 4096)) {
		fprintf(stderr,
			"tc-lab-inject: disk needs -F FILE of >= 1 MiB opened O_DIRECT: %s\n",
			p->o->file ? strerror(errno) : "no -F");
		return 2;
	}
	p->blocks = size / 4096;
	return 0;
}

static int setup_udp(struct periodic *p)
{
	socklen_t alen = sizeof(p->addr);

	p->addr.sin_family = AF_INET;
	p->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	p->rx = socket(AF_INET, SOCK_DGRAM, 0);
	p->fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (p->rx < 0 || p->fd < 0 || bind(p->rx, (struct sockaddr *)&p->addr, sizeof(p->addr)) ||
	    getsockname(p->rx, (struct sockaddr *)&p->addr, &alen)) {
		perror("tc-lab-inject: udp socket");
		return 2;
	}
	fcntl(p->rx, F_SETFL, O_NONBLOCK);
	return 0;
}

/* Opens what the mode needs; 0, the exit code, or -1 for no such mode. */
static int setup(struct periodic *p)
{
	const struct inject_opts *o = p->o;
	const char *mode = o->mode;
	char path[64];

	p->target = o->target;
	if (!strcmp(mode, "hog")) {
		prctl(PR_SET_NAME, o->comm, 0, 0, 0);
		snprintf(p->cause, sizeof(p->cause), "preemption:%.15s", o->comm);
		p->target = o->cpu;
		p->inject = inject_hog;
		return 0;
	}
	if (!strcmp(mode, "ipi")) {
		prctl(PR_SET_NAME, "lab-ipi", 0, 0, 0);
		snprintf(path, sizeof(path), "/dev/cpu/%d/cpuid", o->target);
		if ((p->fd = open(path, O_RDONLY)) < 0) {
			fprintf(stderr, "tc-lab-inject: %s: %s (modprobe cpuid)\n", path,
				strerror(errno));
			return 2;
		}
		snprintf(p->cause, sizeof(p->cause), "ipi:call_function*");
		p->inject = inject_reads;
		return 0;
	}
	if (!strcmp(mode, "disk")) {
		prctl(PR_SET_NAME, "lab-disk", 0, 0, 0);
		snprintf(p->cause, sizeof(p->cause), "hardirq:*");
		p->inject = inject_reads;
		return setup_disk(p);
	}
	if (!strcmp(mode, "udp")) {
		prctl(PR_SET_NAME, "lab-udp", 0, 0, 0);
		snprintf(p->cause, sizeof(p->cause), "softirq:net_rx");
		p->inject = inject_udp;
		return setup_udp(p);
	}
	if (!strcmp(mode, "compact") || !strcmp(mode, "workq")) {
		int compact = !strcmp(mode, "compact");
		p->file = compact ? "/proc/sys/vm/compact_memory" : "/proc/sys/vm/stat_refresh";
		prctl(PR_SET_NAME, compact ? "lab-compact" : "lab-workq", 0, 0, 0);
		if ((p->fd = open(p->file, O_WRONLY)) < 0) {
			fprintf(stderr, "tc-lab-inject: %s: %s\n", p->file, strerror(errno));
			return 2;
		}
		snprintf(p->cause, sizeof(p->cause), "%s",
			 compact ? "thp-compaction" : "workqueue:refresh_vm_stats");
		if (compact)
			p->target = o->cpu;
		p->inject = inject_write;
		return 0;
	}
	return -1;
}

int run_periodic(const struct inject_opts *o)
{
	struct periodic p = {.o = o, .fd = -1, .rx = -1, .seed = 1};
	uint64_t end, next;
	int err = setup(&p);

	if (err)
		return err;
	if (o->fifo) {
		struct sched_param sp = {.sched_priority = o->fifo};

		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			perror("tc-lab-inject: SCHED_FIFO");
			return 2;
		}
	}
	end = now_ns() + (uint64_t)(o->seconds * 1e9);
	next = now_ns() + (uint64_t)o->period_us * 1000;
	while (!inject_stop && next < end) {
		uint64_t t1;

		sleep_until(next);
		if (inject_stop)
			break;
		err = p.inject(&p, now_ns() + (uint64_t)o->burst_us * 1000);
		if (err)
			return err;
		t1 = now_ns();
		next += (uint64_t)o->period_us * 1000;
		if (next < t1)
			next = t1 + (uint64_t)o->period_us * 1000;
	}
	fclose(o->log);
	return 0;
}
