// SPDX-License-Identifier: BSD-2-Clause
/* calibration.c - the calibration threads (see calibration.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <linux/aio_abi.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "calibration.h"
#include "lib/log.h"
#include "probe/probe.h"

#define PAGE	       4096
#define PAGES	       1024 /* fresh pages per CPU: one touch a millisecond */
#define TOUCH_EVERY_NS 1000000ull
#define IPI_EVERY_US   1000
#define LOOP_READS     20000	  /* reads that time the loop itself */
#define READ_EVERY_NS  1000000ull /* a direct read of the disk a millisecond */
#define READ_LEN       4096
#define READ_SPAN      (16u << 20) /* the blocks read in turn: at most the first 16 MiB */
#define GAP_MIN_NS     500	   /* a gap is at least this, and 20 loops */
#define GAP_LOOPS      20

/* One CPU's measurement: the loop thread, and the other CPU's IPI sender. */
struct run {
	struct calibration *c;
	struct tracer *t;
	int cpu, other;
	uint64_t until_ns;
	uint64_t gap_ns;
	atomic_int done;
	int err;
	aio_context_t aio; /* the loop's direct reads of the disk (0: none) */
	void *buf;
	uint64_t off;
	int in_flight;
};

static int add_gap(struct calibration *c, uint64_t s, uint64_t e, uint32_t cpu, uint32_t what,
		   uint32_t tid)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 4096;
		struct tc_gap *g = realloc(c->gaps, cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		c->gaps = g;
		c->cap = cap;
	}
	c->gaps[c->n++] = (struct tc_gap){s, e, cpu, what, tid, 0};
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* The median time between two clock reads of the loop, on this CPU. */
static uint64_t loop_time(void)
{
	uint64_t *d = malloc(LOOP_READS * sizeof(*d)), prev = probe_now_ns(), m;

	if (!d)
		return 0;
	for (size_t i = 0; i < LOOP_READS; i++) {
		uint64_t now = probe_now_ns();

		d[i] = now - prev;
		prev = now;
	}
	qsort(d, LOOP_READS, sizeof(*d), cmp_u64);
	m = d[LOOP_READS / 2];
	free(d);
	return m;
}

/*
 * This program's own executable, opened for direct reads (O_DIRECT: each read goes to
 * the device, past the page cache), and how many of its bytes to read in turn; -1 where
 * its file system reads nothing directly (a memory or network one).
 */
static int exe_direct(uint64_t *span)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_DIRECT | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_size < READ_LEN) {
		close(fd);
		return -1;
	}
	*span = (uint64_t)st.st_size / READ_LEN * READ_LEN;
	if (*span > READ_SPAN)
		*span = READ_SPAN;
	return fd;
}

/*
 * One asynchronous direct read at a time: the disk's device interrupts a CPU when
 * it is done (blk-mq steers it to the submitting CPU where the device has a queue per
 * CPU), so the loop sees what a device interrupt costs without waiting for it.
 */
static void read_disk(struct run *r)
{
	struct io_event ev;
	struct timespec zero = {0, 0};
	struct iocb cb = {0}, *cbs[1] = {&cb};

	if (r->in_flight && syscall(SYS_io_getevents, r->aio, 0, 1, &ev, &zero) == 1) {
		r->in_flight = 0;
		if (ev.res == READ_LEN)
			r->c->disk_reads++;
	}
	if (r->in_flight)
		return;
	cb.aio_fildes = (uint32_t)r->c->disk;
	cb.aio_lio_opcode = IOCB_CMD_PREAD;
	cb.aio_buf = (uint64_t)(uintptr_t)r->buf;
	cb.aio_nbytes = READ_LEN;
	cb.aio_offset = (int64_t)r->off;
	r->off = (r->off + READ_LEN) % r->c->disk_span;
	if (syscall(SYS_io_submit, r->aio, 1, cbs) == 1)
		r->in_flight = 1;
}

/* The loop's context for direct reads, where the disk could be opened; else none. */
static void reads_open(struct run *r)
{
	if (r->c->disk < 0 || posix_memalign(&r->buf, READ_LEN, READ_LEN))
		return;
	if (syscall(SYS_io_setup, 1, &r->aio)) {
		r->aio = 0;
		free(r->buf);
		r->buf = NULL;
	}
}

/* Ends the reads: io_destroy waits for the one in flight (its buffer is the kernel's until then).
 */
static void reads_close(struct run *r)
{
	if (!r->aio)
		return;
	syscall(SYS_io_destroy, r->aio);
	free(r->buf);
}

/* Reads the clock until r->until_ns; a gap or a touch of a fresh page becomes a tc_gap. */
static int measure_loop(struct run *r, uint32_t tid, char *pages)
{
	uint64_t prev = probe_now_ns(), next_touch = prev + TOUCH_EVERY_NS;
	uint64_t next_read = prev + READ_EVERY_NS;
	size_t touched = 0;
	int err = 0;

	while (!err && prev < r->until_ns) {
		uint64_t now = probe_now_ns();

		if (now - prev > r->gap_ns)
			err = add_gap(r->c, prev, now, (uint32_t)r->cpu, TC_GAP_LOOP, tid);
		if (r->aio && now >= next_read) {
			read_disk(r); /* its system calls are not a gap: the clock is read after */
			next_read = probe_now_ns() + READ_EVERY_NS;
			now = probe_now_ns();
		}
		if (now >= next_touch && touched < PAGES) {
			uint64_t a = probe_now_ns(), b;

			pages[touched++ * PAGE] = 1;
			b = probe_now_ns();
			err = err ?: add_gap(r->c, a, b, (uint32_t)r->cpu, TC_GAP_TOUCH, tid);
			next_touch = b + TOUCH_EVERY_NS;
			now = probe_now_ns();
		}
		prev = now;
	}
	return err;
}

static void *loop_main(void *arg)
{
	struct run *r = arg;
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	char *pages = MAP_FAILED;

	r->err = probe_pin_self(r->cpu);
	r->err = r->err ?: tracer__add_tid(r->t, tid, TC_ROLE_PROBE);
	if (!r->err) {
		pages = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (pages == MAP_FAILED)
			r->err = -errno;
	}
	if (!r->err) {
		/* one 4 KiB fault per touch, as the probe's and most programs' pages fault */
		madvise(pages, PAGES * PAGE, MADV_NOHUGEPAGE);
		if (!r->c->loop_ns)
			r->c->loop_ns = loop_time();
		r->gap_ns = GAP_LOOPS * r->c->loop_ns;
		if (r->gap_ns < GAP_MIN_NS)
			r->gap_ns = GAP_MIN_NS;
		reads_open(r);
		r->err = measure_loop(r, tid, pages);
		reads_close(r);
	}
	if (pages != MAP_FAILED)
		munmap(pages, PAGES * PAGE);
	atomic_store(&r->done, 1);
	return NULL;
}

/* Interrupts the loop's CPU with an IPI every millisecond until it is done. */
static void *ipi_main(void *arg)
{
	struct run *r = arg;

	if (probe_pin_self(r->other))
		return NULL;
	while (!atomic_load(&r->done)) {
		if (r->c->ipis && syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0))
			r->c->ipis = 0;
		usleep(IPI_EVERY_US);
	}
	return NULL;
}

static int measure_cpu(struct tracer *t, struct calibration *c, int cpu, int other, unsigned int ms)
{
	struct run r = {.c = c, .t = t, .cpu = cpu, .other = other};
	pthread_t loop, ipi;
	int err;

	r.until_ns = probe_now_ns() + (uint64_t)ms * 1000000ull;
	err = -pthread_create(&loop, NULL, loop_main, &r);
	if (err)
		return err;
	err = -pthread_create(&ipi, NULL, ipi_main, &r);
	if (err) {
		atomic_store(&r.done, 1);
		pthread_join(loop, NULL);
		return err;
	}
	pthread_join(loop, NULL);
	pthread_join(ipi, NULL);
	return r.err;
}

int calibration_measure(struct tracer *t, const int cpu[2], unsigned int ms, struct calibration *c)
{
	int err;

	memset(c, 0, sizeof(*c));
	c->ipis = !syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0);
	if (!c->ipis)
		log_dbg("calibration: membarrier: %s: no IPIs measured", strerror(errno));
	c->disk = exe_direct(&c->disk_span);
	if (c->disk < 0)
		log_dbg("calibration: the executable cannot be read directly: no device interrupts");
	err = measure_cpu(t, c, cpu[0], cpu[1], ms);
	err = err ?: measure_cpu(t, c, cpu[1], cpu[0], ms);
	if (c->disk >= 0)
		close(c->disk);
	c->disk = -1;
	if (err)
		log_err("calibration: %s", strerror(-err));
	return err;
}

void calibration__free(struct calibration *c)
{
	free(c->gaps);
	memset(c, 0, sizeof(*c));
}

/* ---- in a recording ------------------------------------------------------------------- */

#define CALIB_MS 250	 /* per probe CPU */
#define TAP_MAX	 1000000 /* records kept at most (a calibration makes a few thousand) */

int calib_tap_keep(struct calib_tap *tap, const struct tc_event *e)
{
	int taken;

	if (!atomic_load(&tap->on))
		return 0;
	pthread_mutex_lock(&tap->lock);
	taken = atomic_load(&tap->on) && tap->only;
	if (atomic_load(&tap->on) && tap->n < TAP_MAX) {
		if (tap->n == tap->cap) {
			size_t cap = tap->cap ? 2 * tap->cap : 8192;
			struct tc_event *ev = realloc(tap->ev, cap * sizeof(*ev));

			if (ev) {
				tap->ev = ev;
				tap->cap = cap;
			}
		}
		if (tap->n < tap->cap)
			tap->ev[tap->n++] = *e;
	}
	pthread_mutex_unlock(&tap->lock);
	return taken;
}

void calib_tap__free(struct calib_tap *tap)
{
	free(tap->ev);
	tap->ev = NULL;
	tap->n = tap->cap = 0;
}

static int set_status(struct tc_trace *out, const char *fmt, const char *a, const char *b,
		      const char *c)
{
	char buf[256];

	snprintf(buf, sizeof(buf), fmt, a, b, c);
	return trace__set_meta(out, "calib.status", buf);
}

/*
 * Why device interrupts were not measured, for the status: no direct reads, or too few
 * of them done (one at a time: a disk the host keeps busy, or one with an I/O budget
 * spent, answers few in 250 ms); "" where they were.
 */
static void disk_status(const struct calibration *cal, const struct tc_calibration *res, char *buf,
			size_t len)
{
	if (!cal->disk_reads)
		snprintf(buf, len, " (no direct disk reads: no device interrupts)");
	else if (!calibrate_kind(res, TC_EV_HARDIRQ))
		snprintf(buf, len, " (device interrupts too few to measure: %u direct disk reads)",
			 cal->disk_reads);
	else
		buf[0] = '\0';
}

/* ---- the exit floor ---------------------------------------------------------------------- */

#define EXIT_TRIES 2000 /* cpuids timed: the minimum is one with nothing else in it */

#if defined(__x86_64__)
static void cpuid0(void)
{
	unsigned int a = 0, b, c = 0, d;

	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d)::"memory");
}

/* The shortest of EXIT_TRIES clock-read pairs around a cpuid, less the shortest pair alone. */
static void *exit_floor_main(void *arg)
{
	uint64_t *out = arg, bare = UINT64_MAX, with = UINT64_MAX;

	if (probe_pin_self((int)*out)) {
		*out = 0;
		return NULL;
	}
	for (int i = 0; i < EXIT_TRIES; i++) {
		uint64_t t0 = probe_now_ns(), t1 = probe_now_ns(), t2;

		cpuid0();
		t2 = probe_now_ns();
		bare = t1 - t0 < bare ? t1 - t0 : bare;
		with = t2 - t1 < with ? t2 - t1 : with;
	}
	*out = with > bare ? with - bare : 0;
	return NULL;
}
#endif

/*
 * What a cpuid costs on cpu, the cheapest exit to the hypervisor on a VM (KVM, Xen,
 * Hyper-V and VMware intercept it unconditionally); 0 where unmeasured (not x86-64).
 * On bare metal cpuid does not exit: the analyzer uses the floor only where the trace
 * names a hypervisor (calibrate.h).
 */
static uint64_t exit_floor(int cpu)
{
	uint64_t floor_ns = (uint64_t)cpu;

#if defined(__x86_64__)
	{
		pthread_t th;

		if (pthread_create(&th, NULL, exit_floor_main, &floor_ns))
			return 0;
		pthread_join(th, NULL);
		return floor_ns;
	}
#else
	(void)floor_ns;
	return 0;
#endif
}

int calibration_record(struct tracer *t, const int cpu[2], struct calib_tap *tap,
		       void (*drained)(void *ctx), void *ctx, struct tc_trace *out)
{
	struct calibration cal;
	struct tc_calibration res;
	struct tc_trace *seen;
	char cpus[32], disk[96];
	int err;

	snprintf(cpus, sizeof(cpus), "%d,%d", cpu[0], cpu[1]);
	pthread_mutex_lock(&tap->lock);
	tap->n = 0;
	atomic_store(&tap->on, 1);
	pthread_mutex_unlock(&tap->lock);
	err = calibration_measure(t, cpu, CALIB_MS, &cal);
	drained(ctx);
	pthread_mutex_lock(&tap->lock);
	atomic_store(&tap->on, 0);
	pthread_mutex_unlock(&tap->lock);
	if (err) {
		calibration__free(&cal);
		return set_status(out, "failed on CPUs %s: %s%s", cpus, strerror(-err), "");
	}
	seen = trace__new();
	if (!seen || trace__add_events(seen, tap->ev, tap->n)) {
		trace__free(seen);
		calibration__free(&cal);
		return -ENOMEM;
	}
	trace__sort(seen);
	err = calibrate_run(seen, NULL, cal.gaps, cal.n, cal.loop_ns, &res);
	res.exit_floor_ns = exit_floor(cpu[0]);
	err = err ?: calibrate_store(out, &res);
	err = err ?: trace__set_metaf(out, "calib.disk_reads", "%u", cal.disk_reads);
	disk_status(&cal, &res, disk, sizeof(disk));
	err = err
		      ?: set_status(out, "measured on CPUs %s for 2 x 250 ms%s%s", cpus, disk,
				    cal.ipis ? "" : " (no IPIs: membarrier refused)");
	trace__free(seen);
	calibration__free(&cal);
	calib_tap__free(tap);
	return err;
}
