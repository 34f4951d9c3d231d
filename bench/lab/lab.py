#!/usr/bin/env python3
"""Attribution accuracy lab: inject known host causes at known moments while the
probe records, then score tailcause's primary cause of every spike against the
ground truth.

    python3 bench/lab/lab.py BUILD_DIR [--cpu A,B] [--rounds R] [-n N]
                             [--only NAME,...] [--out bench/results/lab.json]

Needs root (BPF, SCHED_FIFO, /proc/sys/vm/compact_memory and stat_refresh, lo's
rps_cpus, /dev/cpu/N/cpuid). Each scenario runs its injectors for the whole scenario and
ROUNDS recordings of N round trips (`tailcause record`), each reported with
`tailcause report --format json --top 10000`: every spike is listed as long as a
recording has at most 10000 of them (N = 1M keeps it so; a recording over the
limit is flagged `truncated` in the JSON). Scoring (README.md in this directory):

  injected spike   its [t_start, t_end] overlaps a ground-truth window
  correct          its primary cause is the window's expected cause (either one,
                   where windows of two causes overlap it)
  precision        correct / injected spikes with a primary cause (not unattributed)
  recall           correct / injected spikes
  dominant         the same over the injected spikes the windows cover at least half
                   of the excess of, and whose excess is at least the noise floor: the
                   p90 spike excess of the clean run of the same probe
  chance           the windows moved halfway to the next injection: the spikes there
                   that would pass as dominant (coincidence, printed, not subtracted)
  excluded         spikes overlapping only `uncertain` windows (the sender was
                   preempted during them), not scored
  non-injected     share called unattributed, wrongly blamed on an injected cause,
                   blamed on something else
  clean            no cause may be the primary cause of > 5 % of spikes without
                   evidence (no overlapping interval, or < 50 % explained), and no
                   lab process may be blamed at all (the other lab causes, which any
                   host has, are counted); unattributed and hw-noise name no OS cause
                   and are not held to it (hw-noise's share is printed)
"""
import argparse
import datetime
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time

from score import fmt, score, table

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RPS = "/sys/class/net/lo/queues/rx-0/rps_cpus"


DISK_FILE = "/var/tmp/tc-lab-disk"
PIDFILE = "{tmp}/probe.pid"  # where the 1t probe tells the signal sender its pid

# The 1t probe's own injection, by scenario: fresh-page touches, a SIGUSR1 handler that
# burns 20 us. Windows it logs itself (an injector None in the scenario).
PROBE_ARGS = {
    "1t:page-fault": ["-p", "2000", "-b", "64"],
    "1t:signal": ["-p", "0", "-H", "20", "-P", PIDFILE],
}


def irq_counts():
    """{(irq, cpu): count} and {irq: name} from /proc/interrupts (numbered IRQs only)."""
    lines = open("/proc/interrupts").read().splitlines()
    ncpu = len(lines[0].split())
    counts, names = {}, {}
    for line in lines[1:]:
        head, _, rest = line.partition(":")
        if not head.strip().isdigit():
            continue
        f = rest.split()
        for c in range(min(ncpu, len(f))):
            if f[c].isdigit():
                counts[(int(head), c)] = int(f[c])
        names[int(head)] = f[-1] if f else "?"
    return counts, names


def disk_irq(a, b):
    """(irq, name, cpu) of the IRQ that completes O_DIRECT reads of DISK_FILE on a
    probe CPU (steered to b through smp_affinity where it is elsewhere and allowed),
    or a string saying why there is none."""
    import mmap
    try:
        if not os.path.exists(DISK_FILE) or os.path.getsize(DISK_FILE) < 16 << 20:
            with open(DISK_FILE, "wb") as f:
                f.write(os.urandom(16 << 20))
                os.fsync(f.fileno())
        fd = os.open(DISK_FILE, os.O_RDONLY | os.O_DIRECT)
    except OSError as e:
        return "no O_DIRECT file on a real disk (%s: %s)" % (DISK_FILE, e.strerror)
    buf = mmap.mmap(-1, 4096)

    def busiest():
        before, names = irq_counts()
        for i in range(300):
            os.preadv(fd, [buf], (i * 7919 % 4096) * 4096)
        after, _ = irq_counts()
        d = max(((after[k] - before.get(k, 0), k) for k in after), default=(0, None))
        return d[0], d[1], names
    try:
        n, key, names = busiest()
        if n < 100:
            return "O_DIRECT reads of %s raised no IRQ (%d)" % (DISK_FILE, n)
        irq, cpu = key
        if str(cpu) not in (a, b):
            try:
                with open("/proc/irq/%d/smp_affinity_list" % irq, "w") as f:
                    f.write(b + "\n")
            except OSError as e:
                return ("the disk's IRQ %d (%s) is delivered to CPU %d, not a probe CPU, and "
                        "cannot be moved (smp_affinity: %s)" % (irq, names[irq], cpu, e.strerror))
            n, (irq, cpu), names = busiest()
            if str(cpu) not in (a, b):
                return "the disk's IRQ %d stayed on CPU %d after steering it to %s" % (
                    irq, cpu, b)
        return irq, names[irq], str(cpu)
    finally:
        os.close(fd)


def scenarios(a, b, disk):
    """(name, [(injector args, expected-cause pattern)], setup) on probe CPUs a (ping), b (pong).

    On a 2-CPU host every injector runs on a probe CPU: senders (ipi, udp) on the
    ping CPU a so that their effect (IPI, NET_RX via RPS) lands on the pong CPU b.
    setup: None, "rps" (lo's RPS steered to b), ("probe", CPU) (the 1t probe's CPU),
    ("skip", reason). disk: disk_irq()'s answer.
    """
    hog = (["hog", "-c", b, "-p", "20000", "-b", "1000", "-n", "lab-hog"], "preemption:lab-hog")
    fifo = (["hog", "-c", b, "-p", "20000", "-b", "200", "-n", "lab-fifo", "-f", "1"],
            "preemption:lab-fifo")
    # A sender on the ping CPU holds the ping thread off while its IPI or NET_RX
    # lands on the pong CPU: both are the injection, either is a right answer.
    ipi = (["ipi", "-c", a, "-T", b, "-p", "20000", "-b", "200"],
           "ipi:call_function*|preemption:lab-ipi")
    udp = (["udp", "-c", a, "-T", b, "-p", "20000", "-b", "500"],
           "softirq:net_rx|preemption:lab-udp")
    # The writer (SCHED_FIFO on B) takes B from the probe as it enters its write, and holds
    # it until the write first sleeps (draining the LRU caches on every CPU) or compacts:
    # its own time there is the injection too, as a sender's is.
    compact = (["compact", "-c", b, "-p", "250000", "-f", "1"],
               "thp-compaction|preemption:lab-compact")
    # A write of stat_refresh on A runs refresh_vm_stats on every CPU and waits for it;
    # where that wait finds B's item not yet done, a flush barrier (wq_barrier_func,
    # which wakes the writer) runs after it on B: both are work the write queued there.
    workq = (["workq", "-c", a, "-T", b, "-p", "20000"],
             "workqueue:refresh_vm_stats|workqueue:wq_barrier_func|preemption:lab-workq")
    fault = "page-fault"  # the lab probe's own fresh-page touches: no injector process
    # SIGUSR1 from A to the lab probe (its pid in PIDFILE, rewritten each round): the
    # probe's handler logs its own runs, the sender nothing.
    sig = (["signal", "-c", a, "-p", "2000", "-P", PIDFILE], "signal:SIGUSR1")
    # One-shot timerfds armed on B, one every 2 ms, never read: each runs timerfd_tmrproc in
    # B's timer interrupt and wakes nobody. The window is [expiry, expiry + 50 us]: the
    # callback cannot run before its expiry, and runs within ~25 us of it at p99 here.
    hrtimer = (["hrtimer", "-c", a, "-T", b, "-p", "2000", "-b", "50"], "timer:timerfd_tmrproc")

    def fast(inj):  # a 1t round lasts ~0.1 s: inject every 2 ms, not every 20
        argv, expect = inj  # the sender has a CPU to itself: only the effect counts
        return ([x if argv[i - 1] != "-p" else "2000" for i, x in enumerate(argv)],
                "|".join(p for p in expect.split("|") if not p.startswith("preemption:lab-")))

    # The disk's completion IRQ (and the BLOCK softirq it raises) on its CPU t,
    # the reads from the other probe CPU.
    if isinstance(disk, tuple):
        t = disk[2]
        disk_inj = (["disk", "-c", a if t == b else b, "-T", t, "-F", DISK_FILE, "-p", "20000",
                     "-b", "200"], "hardirq:%s|softirq:block|preemption:lab-disk" % disk[1])
        disk_1t = ("probe", t)
    else:
        disk_inj, disk_1t = None, ("skip", disk)

    return [
        ("clean", [], None),
        ("hog-other", [hog], None),
        ("hog-fifo", [fifo], None),
        ("ipi", [ipi], None),
        ("softirq-net-rx", [udp], "rps"),
        ("compaction", [compact], None),
        ("hardirq", [disk_inj] if disk_inj else [], disk_1t if not disk_inj else None),
        ("workqueue", [workq], None),
        ("hog+ipi", [hog, ipi], None),
        ("compaction+softirq", [compact, udp], "rps"),
        # The lab's one-thread probe on B (record -- CMD, report --samples) leaves A
        # to the senders: the IPI or softirq on B is then the only thing in the way.
        ("1t:clean", [], None),
        ("1t:ipi", [fast(ipi)], None),
        ("1t:softirq-net-rx", [fast(udp)], "rps"),
        ("1t:hardirq", [fast(disk_inj)] if disk_inj else [], disk_1t),
        ("1t:workqueue", [fast(workq)], None),
        ("1t:page-fault", [(None, fault)], None),
        ("1t:signal", [sig, (None, sig[1])], None),
        ("1t:hrtimer", [hrtimer], None),
        # A two-process benchmark (tc-waitpair pair: the client on A times sendto..recvfrom
        # round trips to its server on B, record --iter): the client's CPU idles while it
        # waits, so what delays the server is found only through the wait chain. (A sender
        # of IPIs or packets to B would run on A, the client's CPU, on a 2-CPU host: its
        # windows cover too little of a spike to score the chain.)
        ("2p:clean", [], None),
        ("2p:hog-server", [hog], None),
        # tc-waitpair lock: the timed thread on A takes a mutex that a holder thread on B
        # keeps for 50 us at a time; the hog preempts the holder while the other waits.
        ("2p:hog-lock-holder", [hog], None),
    ]


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


FOREIGN = ("tailcause", "tc-spin", "tc-ipi", "tc-bench")


def foreign_probes():
    """Other tailcause probes and test hogs running now (another user's `make test`):
    their threads spin on the same CPUs and would be the lab's noise."""
    me = os.getpid()
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == me:
            continue
        try:
            argv0 = open("/proc/%s/cmdline" % pid, "rb").read().split(b"\0")[0].decode()
        except OSError:
            continue
        if os.path.basename(argv0) in FOREIGN:
            found.append("%s:%s" % (pid, os.path.basename(argv0)))
    return found


def wait_quiet(limit):
    """Wait up to LIMIT seconds for no foreign probe; return those still running."""
    t = time.monotonic()
    while True:
        f = foreign_probes()
        if not f or time.monotonic() - t > limit:
            return f
        time.sleep(0.5)


def percentiles(values):
    v = sorted(values)
    pick = lambda q: v[min(len(v) - 1, int(q * len(v)))]
    return {"p50": pick(0.5), "p99": pick(0.99), "p99_9": pick(0.999)}


def untraced_stats(args, name, inj, probe_cpu, tmp):
    """p50/p99/p99.9 of an untraced run of the scenario's probe, in the units of the
    report's stats (shm: one way, µs; the 1t probe: per iteration, µs)."""
    if name.startswith("1t:"):
        csv = os.path.join(tmp, "untraced.csv")
        sh([inj, "probe", "-c", probe_cpu, "-N", args.n1, "-s", csv, "-o", os.devnull,
            "-p", "0"], stdout=subprocess.DEVNULL, timeout=60)
        with open(csv) as f:
            next(f)
            d = [(int(b) - int(a)) / 1000.0 for a, b, *_ in (line.split(",") for line in f)]
        os.unlink(csv)
        return percentiles(d)
    out = subprocess.run([os.path.join(args.build, "tailcause"), "lat", "--probe", "shm",
                          "--cpu", "%s,%s" % (args.a, args.b), "-n", args.n],
                         check=True, capture_output=True, text=True, timeout=60).stdout
    for i, line in enumerate(out.splitlines()):
        if line.lstrip().startswith("#bytes"):
            f = out.splitlines()[i + 1].split()
            return {"p50": float(f[4]), "p99": float(f[7]), "p99_9": float(f[8])}
    raise RuntimeError("no statistics in tailcause lat's output")


def read_windows(gt_files, injectors):
    """The injectors' logs: (t0, t1, expected pattern; None: uncertain, the spike is not
    scored), sorted."""
    windows = []
    for gt, (_, expect) in zip(gt_files, injectors):
        for line in open(gt):
            t0, t1, _cpu, cause = line.split()
            windows.append((int(t0), int(t1), None if cause == "uncertain" else expect))
    return sorted(windows)


def one_round(args, name, injectors, tmp, r, probe_cpu, gt_files, rounds):
    """Round r of a scenario recorded and reported: its figures appended to rounds, the lab
    probe's own windows to the last ground-truth file; returns its spikes."""
    tc = os.path.join(args.build, "tailcause")
    inj = os.path.join(args.build, "bench", "lab", "tc-lab-inject")
    trace = os.path.join(tmp, "%s.%d.tct" % (name, r))
    rep = trace + ".json"
    untraced = None
    if not injectors and not name.startswith("2p:"):  # clean: an untraced run first
        untraced = untraced_stats(args, name, inj, probe_cpu, tmp)
    if name.startswith("1t:"):
        csv = trace + ".csv"
        pgt = trace + ".gt"
        own = [x.format(tmp=tmp) for x in PROBE_ARGS.get(name, ["-p", "0"])]
        sh([tc, "record", "-o", trace, "-f", "--no-progress", "--", inj, "probe",
            "-c", probe_cpu, "-N", args.n1, "-s", csv, "-o", pgt] + own,
           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        sh([tc, "report", trace, "--samples", csv, "--format", "json", "--top",
            "10000", "-o", rep], timeout=60)
        if injectors and injectors[-1][0] is None:
            with open(pgt) as src, open(gt_files[-1], "a") as dst:
                dst.write(src.read())
        os.unlink(csv)
        os.unlink(pgt)
    elif name.startswith("2p:"):
        pair = os.path.join(args.build, "tests", "tc-waitpair")
        mode, spec = ("lock", "syscall:getpid") if "lock" in name else \
            ("pair", "syscall:sendto:recvfrom")
        sh([tc, "record", "-o", trace, "-f", "--no-progress", "--iter", spec, "--", pair,
            mode, str(args.pair_seconds), args.b, args.a], stdout=subprocess.DEVNULL,
           stderr=subprocess.DEVNULL, timeout=60)
        sh([tc, "report", trace, "--format", "json", "--top", "10000", "-o", rep],
           timeout=60)
    else:
        sh([tc, "record", "-o", trace, "-f", "--cpu", "%s,%s" % (args.a, args.b),
            "-n", args.n, "--no-progress"], stdout=subprocess.DEVNULL,
           stderr=subprocess.DEVNULL, timeout=60)
        sh([tc, "report", trace, "--format", "json", "--top", "10000", "-o", rep],
           timeout=60)
    d = json.load(open(rep))
    lat = d["latency"]
    rounds.append({"count": lat["spikes"]["count"], "listed": len(lat["top_spikes"]),
                   "threshold_us": lat["spikes"]["threshold_us"],
                   "median_us": lat["stats"]["typical"],
                   "lost_events": d["trace"]["lost_events"],
                   "traced": {k: lat["stats"][k] for k in ("p50", "p99", "p99_9")},
                   "untraced": untraced})
    os.unlink(trace)
    os.unlink(rep)
    return [(s["t_start_ns"], s["t_end_ns"], s["cause"], s["explained_pct"],
             s["timeline_events"], s["excess_us"]) for s in lat["top_spikes"]]


def run_scenario(args, name, injectors, setup, tmp, floor_us):
    inj = os.path.join(args.build, "bench", "lab", "tc-lab-inject")
    gt_files, procs, spikes, rounds, contended = [], [], [], [], []
    rps_old = None
    probe_cpu = setup[1] if isinstance(setup, tuple) else args.b
    load_before = open("/proc/loadavg").read().split()[:3]
    t_begin = time.monotonic()
    try:
        if setup == "rps":
            rps_old = open(RPS).read().strip()
            with open(RPS, "w") as f:
                f.write("%x\n" % (1 << int(args.b)))
        for i, (argv, _) in enumerate(injectors):
            gt = os.path.join(tmp, "%s.gt%d" % (name, i))
            gt_files.append(gt)
            if argv is None:  # windows logged by the lab probe itself, per round
                open(gt, "w").close()
                continue
            procs.append(subprocess.Popen([inj] + [str(x).format(tmp=tmp) for x in argv] +
                                          ["-t", str(args.max_seconds), "-o", gt]))
        time.sleep(0.3)
        for r in range(args.rounds):
            if time.monotonic() - t_begin > args.max_seconds - 8:
                break  # keep the scenario within its bound
            busy = wait_quiet(args.quiet_wait)
            if busy:
                contended.append({"round": r, "running": busy})
            spikes += one_round(args, name, injectors, tmp, r, probe_cpu, gt_files, rounds)
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            p.wait()
        if rps_old is not None:
            with open(RPS, "w") as f:
                f.write(rps_old + "\n")
    load_after = open("/proc/loadavg").read().split()[:3]
    res = score(name, injectors, read_windows(gt_files, injectors), spikes, rounds,
                load_before, load_after, time.monotonic() - t_begin, floor_us)
    res["contended_rounds"] = contended
    return res


def print_verdicts(results):
    """Each scenario's line beside the table: what a clean run blamed, or where the
    injected spikes went."""
    for r in results:
        if "skipped" in r:
            continue
        if "clean_ok" in r:
            print("%s: largest cause %s, largest without evidence %s, hw-noise %s, lab causes"
                  " blamed %d: %s; overhead (traced / untraced, median of rounds) p50 %s,"
                  " p99 %s, p99.9 %s"
                  % (r["scenario"], r["max_cause_share"], r["max_share_without_evidence"],
                     r["hw_noise_share"], r["lab_causes_blamed"],
                     "ok" if r["clean_ok"] else "MISSED",
                     r["overhead"]["p50"], r["overhead"]["p99"], r["overhead"]["p99_9"]))
        else:
            print("%s: injected spikes blamed on %s; dominant ones on %s; in %d windows"
                  " between the injections (chance), %d spikes pass as dominant: %s" % (
                      r["scenario"], r["injected_causes"], r["dominant_causes"],
                      r["control_windows"], r["chance_dominant_spikes"],
                      r["chance_dominant_causes"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--cpu", default=None, help="probe CPUs A,B (default: the last two)")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("-n", default="1M", help="round trips per round of the shm probe")
    ap.add_argument("--n1", default="1000000", help="iterations per round of the 1t probe")
    ap.add_argument("--pair-seconds", type=float, default=2,
                    help="seconds per round of the two-process benchmark (2p:)")
    ap.add_argument("--max-seconds", type=float, default=38,
                    help="bound of one scenario (18 scenarios: under 12 min)")
    ap.add_argument("--only", default=None)
    ap.add_argument("--quiet-wait", type=float, default=10,
                    help="seconds to wait before a round for other tailcause probes to end")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "lab.json"))
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("lab: needs root (BPF, SCHED_FIFO, compact_memory, rps_cpus)")
    if args.cpu:
        args.a, args.b = args.cpu.split(",")
    else:
        n = os.cpu_count()
        args.a, args.b = str(n - 2), str(n - 1)
    if not os.path.exists("/dev/cpu/%s/cpuid" % args.b):
        subprocess.run(["modprobe", "cpuid"], check=False)
    results = []
    cpu_model = ""
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu_model = line.split(":", 1)[1].strip()
            break

    def write():  # after every scenario: an interrupted run keeps what it measured
        out = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(
                   timespec="seconds"),
               "host": {"kernel": platform.release(), "cpus": os.cpu_count(),
                        "cpu_model": cpu_model},
               "probe_cpus": [int(args.a), int(args.b)], "iterations_per_round": args.n,
               "scenarios": results}
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
        with open(args.out + ".tmp", "w") as f:
            json.dump(out, f, indent=1)
        os.rename(args.out + ".tmp", args.out)

    # The noise floor of each probe: the p90 excess of the spikes of its clean run
    # (90 % of the spikes of a run without injection are that small).
    floors = {}
    wanted = lambda name: not args.only or name in args.only.split(",")
    disk = disk_irq(args.a, args.b) if wanted("hardirq") or wanted("1t:hardirq") else "not run"
    with tempfile.TemporaryDirectory(prefix="tc-lab.") as tmp:
        for name, injectors, setup in scenarios(args.a, args.b, disk):
            if not wanted(name):
                continue
            if isinstance(setup, tuple) and setup[0] == "skip":
                print("lab: %s skipped: %s" % (name, setup[1]), file=sys.stderr, flush=True)
                results.append({"scenario": name, "skipped": setup[1]})
                write()
                continue
            family = name[:2] if name[:3] in ("1t:", "2p:") else "shm"
            if family not in floors and injectors:
                print("lab: no clean run of the %s probe before %s: noise floor 0" % (
                    family, name), file=sys.stderr)
            print("lab: %s ..." % name, file=sys.stderr, flush=True)
            r = run_scenario(args, name, injectors, setup, tmp, floors.get(family, 0.0))
            if not injectors:
                floors[family] = r["spike_excess_p90_us"]
            results.append(r)
            write()
            print("lab: %s: %d spikes, %d injected, precision %s, recall %s (%.0f s)" % (
                name, r["spikes"], r["injected_spikes"], fmt(r["precision"]), fmt(r["recall"]),
                r["seconds"]), file=sys.stderr, flush=True)
    print(table(results))
    print_verdicts(results)
    print("lab: wrote %s" % args.out)


if __name__ == "__main__":
    main()
