// SPDX-License-Identifier: BSD-2-Clause
/*
 * inject.c - the attribution lab's injectors: cause one host cause at known
 * moments and log the ground truth, one line per injection window,
 *
 *     t_start_ns t_end_ns cpu cause
 *
 * on CLOCK_MONOTONIC (the clock of the tracers and of the probe's samples).
 *
 *   tc-lab-inject MODE [-o LOG] [-t SECONDS] [-p PERIOD_US] [-b BURST_US]
 *                 [-c CPU] [-T TARGET_CPU] [-n COMM] [-f PRIO] [-H BURN_US] [-P PIDFILE]
 *
 * modes (each waits PERIOD_US, then injects for about BURST_US, until SECONDS
 * have passed or SIGTERM/SIGINT arrives; the first window starts after one period):
 *   hog      spin BURST_US on CPU (pin: -c), comm -n. Logs one window per
 *            stretch it really ran (gaps over 3 us split it). Cause:
 *            preemption:COMM on CPU.
 *   ipi      from CPU, read /dev/cpu/TARGET/cpuid for BURST_US: every read is a
 *            smp_call_function_single to TARGET, logged as its own window.
 *            Cause: ipi:call_function* on TARGET. A read during which the
 *            sender was preempted is logged with cause `uncertain`: its
 *            window holds someone else's time slice, not just the IPI.
 *   disk     from CPU, O_DIRECT 4 KiB reads of -F FILE (at least 1 MiB, on a real
 *            disk) for BURST_US: each read ends with the disk's completion IRQ,
 *            delivered where that IRQ is steered (TARGET), logged as its own
 *            window (`uncertain` when the reader was preempted). Cause:
 *            hardirq:* on TARGET.
 *   udp      from CPU, send 64-byte loopback UDP datagrams for BURST_US (with lo's
 *            RPS steered to TARGET, the NET_RX softirq runs on TARGET; the lab
 *            script sets and restores rps_cpus). Cause: softirq:net_rx on TARGET.
 *   compact  on CPU, write 1 to /proc/sys/vm/compact_memory (compacts every zone;
 *            BURST_US unused: the window is the write). Cause: thp-compaction.
 *   workq    from CPU, write 1 to /proc/sys/vm/stat_refresh: schedule_on_each_cpu
 *            runs refresh_vm_stats on every CPU and waits for it, so the work on
 *            TARGET runs inside the write (BURST_US unused: the window is the
 *            write). Cause: workqueue:refresh_vm_stats on TARGET.
 *   hrtimer  hrtimers on TARGET that wake nobody: from TARGET, arm one one-shot
 *            timerfd per PERIOD_US for SECONDS, then run on CPU and never read
 *            them (a periodic timerfd re-arms only in read(), on the reader's
 *            CPU: never read, it fires once). Each fires once in TARGET's timer
 *            interrupt, running timerfd_tmrproc. Expiries sit a whole number of
 *            milliseconds plus 500 us after TARGET's tick (/proc/timer_list),
 *            so none shares an interrupt with the tick at HZ 100, 250 or 1000.
 *            The window of expiry T is [T, T + BURST_US] (the lab: 50 us; the
 *            callback cannot run before T); written at exit for the expiries
 *            that passed. One descriptor per expiry: as many as RLIMIT_NOFILE
 *            allows (the schedule ends early otherwise, and says so). Cause:
 *            timer:timerfd_tmrproc on TARGET.
 *   probe    a one-thread probe of the lab's own, for `tailcause record -- CMD`
 *            and `report --samples`: on CPU, -N COUNT iterations of a short
 *            fixed loop, each timed and written after the run to -s CSV
 *            (start_ns,end_ns,cpu,tid); with -p PERIOD_US > 0, every PERIOD_US
 *            one iteration also touches -b PAGES fresh anonymous pages, logged
 *            as a window. Cause: page-fault. It leaves the other CPU of a
 *            2-CPU host to the ipi and udp senders. With -H BURN_US, SIGUSR1
 *            runs a handler that burns BURN_US, each run logged as a window
 *            (its own entry to exit). Cause: signal:SIGUSR1. -P PIDFILE: its pid
 *            is written there once the handler is set, for `signal`.
 *   signal   from CPU, every PERIOD_US send SIGUSR1 to the lab probe whose pid
 *            is in -P PIDFILE (a new probe each round: the file is read again
 *            when the last one is gone). Only a process called lab-probe is
 *            signalled, through a pidfd opened before its name was checked: a
 *            reused pid never is. Logs nothing: the probe logs the handler runs.
 *
 * -f PRIO runs any mode at SCHED_FIFO PRIO.
 *
 * The windows are exactly the injection (the spin, the burst of reads or
 * sends, the write); the time the injector itself needs to wake up is not in
 * them. Ground-truth cause names are the lab's expectations, not tailcause's.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/* hog: a gap this long between two clock reads means the hog was not running */
#define GAP_NS 3000

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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

static void sleep_until(uint64_t t)
{
	struct timespec ts = {(time_t)(t / 1000000000ull), (long)(t % 1000000000ull)};

	while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("tc-lab-inject: sched_setaffinity");
		exit(2);
	}
}

#define MAX_WIN 100000

/* probe -H: SIGUSR1's handler burns this long and keeps its [entry, exit]. */
static uint64_t burn_ns;
static uint64_t sig_win[2 * MAX_WIN];
static volatile long n_sig_win;

static void on_usr1(int sig)
{
	uint64_t t0 = now_ns(), t;
	long i = n_sig_win;

	(void)sig;
	do
		t = now_ns();
	while (t - t0 < burn_ns);
	if (i < 2 * MAX_WIN) {
		sig_win[i] = t0;
		sig_win[i + 1] = t;
		n_sig_win = i + 2;
	}
}

/* probe -H, -P: the handler, then the pid where `signal` looks for it. */
static int probe_signals(const char *pidfile)
{
	struct sigaction sa = {.sa_handler = on_usr1};
	FILE *f;

	memset(sig_win, 0xff, sizeof(sig_win)); /* no page fault in the handler */
	sigemptyset(&sa.sa_mask);
	if (burn_ns && sigaction(SIGUSR1, &sa, NULL)) {
		perror("tc-lab-inject: sigaction");
		return 2;
	}
	if (!pidfile)
		return 0;
	if (!(f = fopen(pidfile, "w")) || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
		perror("tc-lab-inject: pidfile");
		return 2;
	}
	return 0;
}

static int run_probe(int cpu, long count, const char *csv, FILE *log, long period_us, long pages,
		     const char *pidfile)
{
	uint64_t *t = malloc(sizeof(*t) * 2 * (size_t)count), next;
	volatile unsigned long x = 0;
	FILE *out;
	long tid = (long)gettid(), nw = 0;
	static uint64_t win[2 * MAX_WIN]; /* fault windows: logged after the run */

	if (!t || !csv) {
		fprintf(stderr, "tc-lab-inject: probe needs -s CSV (and memory)\n");
		return 1;
	}
	/* No faults of our own in the loop. Not zero: malloc + memset(0) may become a
	 * calloc that leaves fresh pages untouched. */
	memset(t, 0xff, sizeof(*t) * 2 * (size_t)count);
	if (probe_signals(pidfile))
		return 2;
	next = now_ns() + (uint64_t)period_us * 1000;
	for (long i = 0; i < count; i++) {
		uint64_t t0 = now_ns();

		for (int k = 0; k < 100; k++)
			x++;
		if (period_us > 0 && t0 >= next) {
			size_t len = (size_t)pages * 4096;
			char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			uint64_t f0 = now_ns();

			if (p == MAP_FAILED)
				return 4;
			for (size_t off = 0; off < len; off += 4096)
				p[off] = 1;
			if (nw < 2 * MAX_WIN) {
				win[nw++] = f0;
				win[nw++] = now_ns();
			}
			munmap(p, len);
			next = now_ns() + (uint64_t)period_us * 1000;
		}
		t[2 * i] = t0;
		t[2 * i + 1] = now_ns();
	}
	if (burn_ns)
		signal(SIGUSR1, SIG_IGN); /* one still in flight must not kill the probe */
	if (pidfile)
		unlink(pidfile);
	if (!(out = fopen(csv, "w")))
		return 2;
	fprintf(out, "start_ns,end_ns,cpu,tid\n");
	for (long i = 0; i < count; i++)
		fprintf(out, "%llu,%llu,%d,%ld\n", (unsigned long long)t[2 * i],
			(unsigned long long)t[2 * i + 1], cpu, tid);
	fclose(out);
	for (long i = 0; i < nw; i += 2)
		fprintf(log, "%llu %llu %d page-fault\n", (unsigned long long)win[i],
			(unsigned long long)win[i + 1], cpu);
	for (long i = 0; i < n_sig_win; i += 2)
		fprintf(log, "%llu %llu %d signal:SIGUSR1\n", (unsigned long long)sig_win[i],
			(unsigned long long)sig_win[i + 1], cpu);
	fclose(log);
	return 0;
}

/* A pidfd for the pid in pidfile if that process is a lab probe, else -1. */
static int open_probe(const char *pidfile)
{
	char path[64], comm[32] = "";
	FILE *f = fopen(pidfile, "r");
	int pid = 0, fd;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &pid) != 1 || pid <= 0) {
		fclose(f);
		return -1;
	}
	fclose(f);
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0)
		return -1;
	/* After the pidfd: it holds the process whose name this is, or one that is gone. */
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f || !fgets(comm, sizeof(comm), f) || strcmp(comm, "lab-probe\n")) {
		if (f)
			fclose(f);
		close(fd);
		return -1;
	}
	fclose(f);
	return fd;
}

/* signal: SIGUSR1 to the current lab probe every period, until SECONDS or SIGTERM. */
static int run_signal(const char *pidfile, long period_us, double seconds, FILE *log)
{
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9), next = now_ns();
	int fd = -1;

	if (!pidfile) {
		fprintf(stderr, "tc-lab-inject: signal needs -P PIDFILE\n");
		return 1;
	}
	while (!stop && next < end) {
		next += (uint64_t)period_us * 1000;
		sleep_until(next);
		if (fd < 0)
			fd = open_probe(pidfile);
		if (fd >= 0 && syscall(SYS_pidfd_send_signal, fd, SIGUSR1, NULL, 0)) {
			close(fd); /* that probe is gone: the next one's pid comes */
			fd = -1;
		}
	}
	fclose(log);
	return 0;
}

/* The next expiry of cpu's tick from /proc/timer_list, or 0 when it does not say. */
static uint64_t next_tick(int cpu)
{
	FILE *f = fopen("/proc/timer_list", "re");
	char line[256], want[32];
	unsigned long long at = 0;
	int in_cpu = 0, tick = 0;

	if (!f)
		return 0;
	snprintf(want, sizeof(want), "cpu: %d\n", cpu);
	while (!at && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "cpu: ", 5))
			in_cpu = !strcmp(line, want);
		else if (in_cpu && strstr(line, ", tick_"))
			tick = 1; /* tick_nohz_handler, tick_sched_timer */
		else if (tick && sscanf(line, " # expires at %llu-", &at) != 1)
			tick = 0;
	}
	fclose(f);
	return at;
}

static int run_hrtimer(int cpu, int target, double seconds, long period_us, long window_us,
		       FILE *log)
{
	uint64_t period = (uint64_t)period_us * 1000, first, tick;
	long want = (long)(seconds * 1e6 / (double)period_us), n;
	struct rlimit rl;

	if (target < 0 || cpu < 0 || period_us <= 0 || want <= 0) {
		fprintf(stderr, "tc-lab-inject: hrtimer needs -c CPU, -T TARGET and -p > 0\n");
		return 1;
	}
	/* One descriptor per expiry: as many as the hard limit allows. */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	n = getrlimit(RLIMIT_NOFILE, &rl) ? 1000 : (long)rl.rlim_cur - 64;
	if (n < want)
		fprintf(stderr, "tc-lab-inject: %ld of %ld expiries (RLIMIT_NOFILE)\n", n, want);
	n = n < want ? n : want;
	pin(target); /* an hrtimer is queued on the CPU that starts it */
	first = now_ns() + 300000000ull;
	tick = next_tick(target);
	if (tick > first)
		tick = 0; /* unknown: the kernel aligns the tick to its period (no skew_tick) */
	first = tick + ((first - tick) / 1000000ull + 1) * 1000000ull + 500000ull;
	for (long k = 0; k < n; k++) {
		uint64_t t = first + (uint64_t)k * period;
		struct itimerspec its = {
			.it_value = {(time_t)(t / 1000000000ull), (long)(t % 1000000000ull)}};
		int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);

		if (fd < 0 || timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL)) {
			perror("tc-lab-inject: timerfd");
			return 2;
		}
	}
	pin(cpu);
	/* Keep the descriptors (closing one cancels its timer) while they fire. */
	sleep_until(first + (uint64_t)n * period);
	for (long k = 0; k < n && first + (uint64_t)k * period <= now_ns(); k++)
		fprintf(log, "%llu %llu %d timer:timerfd_tmrproc\n",
			(unsigned long long)(first + (uint64_t)k * period),
			(unsigned long long)(first + (uint64_t)k * period +
					     (uint64_t)window_us * 1000),
			target);
	fclose(log);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: tc-lab-inject hog|ipi|disk|udp|compact|workq|hrtimer|probe|signal [-o LOG] "
		"[-t SECONDS] [-p PERIOD_US] [-b BURST_US] [-c CPU] [-T TARGET_CPU] "
		"[-n COMM] [-f PRIO] [-F FILE] [-N COUNT -s CSV] [-H BURN_US] [-P PIDFILE]\n");
	exit(1);
}

int main(int argc, char **argv)
{
	const char *mode, *log_path = NULL, *comm = "lab-hog";
	double seconds = 10;
	long period_us = 50000, burst_us = 2000;
	int cpu = -1, target = -1, fifo = 0, opt, fd = -1, rx = -1;
	struct sockaddr_in addr = {0};
	socklen_t alen = sizeof(addr);
	char cause[64], buf[64] = {0};
	FILE *log = stdout;
	uint64_t end, next;
	volatile unsigned long x = 0;
	long count = 1000000, blocks = 0;
	const char *csv = NULL, *file = NULL, *pidfile = NULL;
	void *dbuf = NULL;
	unsigned int seed = 1;

	if (argc < 2)
		usage();
	mode = argv[1];
	optind = 2;
	while ((opt = getopt(argc, argv, "o:t:p:b:c:T:n:f:N:s:F:H:P:")) != -1) {
		switch (opt) {
		case 'o':
			log_path = optarg;
			break;
		case 't':
			seconds = atof(optarg);
			break;
		case 'p':
			period_us = atol(optarg);
			break;
		case 'b':
			burst_us = atol(optarg);
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'T':
			target = atoi(optarg);
			break;
		case 'n':
			comm = optarg;
			break;
		case 'f':
			fifo = atoi(optarg);
			break;
		case 'N':
			count = atol(optarg);
			break;
		case 's':
			csv = optarg;
			break;
		case 'F':
			file = optarg;
			break;
		case 'H':
			burn_ns = (uint64_t)atol(optarg) * 1000;
			break;
		case 'P':
			pidfile = optarg;
			break;
		default:
			usage();
		}
	}
	if (log_path && !(log = fopen(log_path, "w"))) {
		perror("tc-lab-inject: log");
		return 2;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	pin(cpu);

	if (!strcmp(mode, "hog")) {
		prctl(PR_SET_NAME, comm, 0, 0, 0);
		snprintf(cause, sizeof(cause), "preemption:%.15s", comm);
		target = cpu;
	} else if (!strcmp(mode, "ipi")) {
		char path[64];

		prctl(PR_SET_NAME, "lab-ipi", 0, 0, 0);
		snprintf(path, sizeof(path), "/dev/cpu/%d/cpuid", target);
		if ((fd = open(path, O_RDONLY)) < 0) {
			fprintf(stderr, "tc-lab-inject: %s: %s (modprobe cpuid)\n", path,
				strerror(errno));
			return 2;
		}
		snprintf(cause, sizeof(cause), "ipi:call_function*");
	} else if (!strcmp(mode, "disk")) {
		off_t size;

		prctl(PR_SET_NAME, "lab-disk", 0, 0, 0);
		if (!file || (fd = open(file, O_RDONLY | O_DIRECT)) < 0 ||
		    (size = lseek(fd, 0, SEEK_END)) < (1 << 20) ||
		    posix_memalign(&dbuf, 4096, 4096)) {
			fprintf(stderr,
				"tc-lab-inject: disk needs -F FILE of >= 1 MiB opened "
				"O_DIRECT: %s\n",
				file ? strerror(errno) : "no -F");
			return 2;
		}
		blocks = size / 4096;
		snprintf(cause, sizeof(cause), "hardirq:*");
	} else if (!strcmp(mode, "udp")) {
		prctl(PR_SET_NAME, "lab-udp", 0, 0, 0);
		addr.sin_family = AF_INET;
		addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		rx = socket(AF_INET, SOCK_DGRAM, 0);
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (rx < 0 || fd < 0 || bind(rx, (struct sockaddr *)&addr, sizeof(addr)) ||
		    getsockname(rx, (struct sockaddr *)&addr, &alen)) {
			perror("tc-lab-inject: udp socket");
			return 2;
		}
		fcntl(rx, F_SETFL, O_NONBLOCK);
		snprintf(cause, sizeof(cause), "softirq:net_rx");
	} else if (!strcmp(mode, "compact")) {
		prctl(PR_SET_NAME, "lab-compact", 0, 0, 0);
		snprintf(cause, sizeof(cause), "thp-compaction");
		target = cpu;
	} else if (!strcmp(mode, "workq")) {
		prctl(PR_SET_NAME, "lab-workq", 0, 0, 0);
		if ((fd = open("/proc/sys/vm/stat_refresh", O_WRONLY)) < 0) {
			perror("tc-lab-inject: /proc/sys/vm/stat_refresh");
			return 2;
		}
		snprintf(cause, sizeof(cause), "workqueue:refresh_vm_stats");
	} else if (!strcmp(mode, "hrtimer")) {
		prctl(PR_SET_NAME, "lab-hrtimer", 0, 0, 0);
		return run_hrtimer(cpu, target, seconds, period_us, burst_us, log);
	} else if (!strcmp(mode, "probe")) {
		prctl(PR_SET_NAME, "lab-probe", 0, 0, 0);
		return run_probe(cpu, count, csv, log, period_us, burst_us, pidfile);
	} else if (!strcmp(mode, "signal")) {
		prctl(PR_SET_NAME, "lab-signal", 0, 0, 0);
		return run_signal(pidfile, period_us, seconds, log);
	} else {
		usage();
	}

	if (fifo) {
		struct sched_param sp = {.sched_priority = fifo};

		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			perror("tc-lab-inject: SCHED_FIFO");
			return 2;
		}
	}
#define LOG(a, b)                                                                                  \
	fprintf(log, "%llu %llu %d %s\n", (unsigned long long)(a), (unsigned long long)(b),        \
		target, cause)
	end = now_ns() + (uint64_t)(seconds * 1e9);
	next = now_ns() + (uint64_t)period_us * 1000;
	while (!stop && next < end) {
		uint64_t t0, t1, stop_at;

		sleep_until(next);
		if (stop)
			break;
		t0 = now_ns();
		stop_at = t0 + (uint64_t)burst_us * 1000;
		if (!strcmp(mode, "hog")) {
			/* One window per stretch the hog really ran: a gap over GAP_NS
			 * between two clock reads means it was off its CPU (another task,
			 * or an IRQ), and then it did not hold the probe off either. */
			uint64_t run0 = t0, last = t0, t;

			do {
				for (int i = 0; i < 50; i++)
					x++;
				t = now_ns();
				if (t - last > GAP_NS) {
					LOG(run0, last);
					run0 = t;
				}
				last = t;
			} while (t < stop_at);
			LOG(run0, last);
			goto logged;
		} else if (!strcmp(mode, "ipi")) {
			/* One window per read: each is one IPI to TARGET, and the
			 * time between two reads is the sender's, not an IPI's. */
			do {
				long sw = preemptions();
				uint64_t r0 = now_ns(), r1;

				if (pread(fd, buf, 16, 0) != 16) {
					perror("tc-lab-inject: cpuid read");
					return 4;
				}
				r1 = now_ns();
				if (preemptions() == sw)
					LOG(r0, r1);
				else
					fprintf(log, "%llu %llu %d uncertain\n",
						(unsigned long long)r0, (unsigned long long)r1,
						target);
			} while (now_ns() < stop_at);
			goto logged;
		} else if (!strcmp(mode, "disk")) {
			/* One window per read: each waits for one completion IRQ. */
			do {
				long sw = preemptions();
				off_t at = (off_t)(rand_r(&seed) % blocks) * 4096;
				uint64_t r0 = now_ns(), r1;

				if (pread(fd, dbuf, 4096, at) != 4096) {
					perror("tc-lab-inject: O_DIRECT read");
					return 4;
				}
				r1 = now_ns();
				if (preemptions() == sw)
					LOG(r0, r1);
				else
					fprintf(log, "%llu %llu %d uncertain\n",
						(unsigned long long)r0, (unsigned long long)r1,
						target);
			} while (now_ns() < stop_at);
			goto logged;
		} else if (!strcmp(mode, "udp")) {
			do {
				sendto(fd, buf, 64, 0, (struct sockaddr *)&addr, sizeof(addr));
				while (recv(rx, buf, sizeof(buf), 0) > 0)
					;
			} while (now_ns() < stop_at);
		} else if (!strcmp(mode, "compact")) {
			int c = open("/proc/sys/vm/compact_memory", O_WRONLY);

			if (c < 0 || write(c, "1\n", 2) != 2) {
				perror("tc-lab-inject: compact_memory");
				return 2;
			}
			close(c);
		} else if (!strcmp(mode, "workq")) {
			/* returns once the work ran on every CPU (schedule_on_each_cpu) */
			if (pwrite(fd, "1\n", 2, 0) != 2) {
				perror("tc-lab-inject: stat_refresh");
				return 2;
			}
		}
		t1 = now_ns();
		LOG(t0, t1);
	logged:
		t1 = now_ns();
		next += (uint64_t)period_us * 1000;
		if (next < t1)
			next = t1 + (uint64_t)period_us * 1000;
	}
	fclose(log);
	return 0;
}
