#!/bin/sh
# What the host hides, on the real kernel: the calibration before a recording measures the
# tick, IPIs, page faults and device interrupts on both probe CPUs (each costs more than its traced part, and
# the report widens their intervals by the difference, labelled hidden); --no-calibrate
# leaves it out. The steal readings (where the kernel keeps a steal clock) are intervals on
# the probe CPUs that never claim more than their own length, and add up to what
# /proc/stat counted meanwhile. A spike credited to hw-noise has no OS event in its
# timeline, but for what a timer interrupt in it spent in its own code past the top of a
# usual tick's spread (stall_us), and only a recording with every OS tracer attached has
# such spikes. A traced
# command is calibrated too, and the calibration leaves no record in its trace.
set -eu
. "$(dirname "$0")/lib.sh"
need_root_bpf
command -v python3 >/dev/null || skip "needs python3 for the JSON checks"
cpus=$(probe_cpus)

steal_ticks() { # the steal column of /proc/stat for the probe CPUs, summed
	awk -v a="cpu${cpus%,*}" -v b="cpu${cpus#*,}" '$1 == a || $1 == b { s += $9 } END { print s }' /proc/stat
}

before=$(steal_ticks)
"$TC" record -o "$TMP/cal.tct" -n 2M --cpu "$cpus" --no-progress >"$TMP/rec.log" 2>&1 ||
	{ cat "$TMP/rec.log"; fail "record failed"; }
after=$(steal_ticks)
"$TC" dump "$TMP/cal.tct" >"$TMP/dump.txt"
"$TC" report "$TMP/cal.tct" --format json -o "$TMP/cal.json" --top 10000 || fail "report failed"
python3 tests/system/check_report_json.py docs/report-schema.json "$TMP/cal.json" ||
	fail "the JSON report does not match its schema"

python3 - "$TMP/dump.txt" "$TMP/cal.json" "$cpus" "$before" "$after" <<'EOF' || fail "calibration, steal or hw-noise check failed"
import json, sys
dump, rep, cpus, before, after = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
probe = {int(c) for c in cpus.split(",")}
meta, steal = {}, []
for line in open(dump):
    if line.startswith("meta "):
        k, _, v = line[5:].rstrip("\n").partition("=")
        meta[k] = v
    elif line.startswith("event kind=steal "):
        f = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
        steal.append(f)

# calibration: measured, each kind with enough gaps, never cheaper than what is traced
assert meta.get("calib.status", "").startswith("measured"), meta.get("calib.status")
cal = rep["run"]["calibration"]
kinds = {k["kind"]: k for k in cal["kinds"]}
assert "timer" in kinds and "page_fault" in kinds, cal
for k in kinds.values():
    assert k["n"] >= 20, k
    assert k["cost_us"] >= k["traced_us"] > 0, k
    assert k["traced_p90_us"] >= k["traced_us"], k
    assert k["hidden_p10_us"] <= k["hidden_p90_us"], k
    # the widening is the measured hidden cost, not more than what the gaps cost
    assert k["hidden_before_us"] + k["hidden_after_us"] <= k["cost_us"], k
print("calibration:", {n: (k["cost_us"], k["traced_us"], k["n"]) for n, k in kinds.items()})
# device interrupts: the calibration reads its own executable directly, and the disk's
# interrupt lands on some CPU; with every CPU a probe CPU, on a probe CPU
import os
reads = int(meta.get("calib.disk_reads", 0))
if "no direct disk reads" in meta["calib.status"]:
    print("device interrupts: not measured here:", meta["calib.status"])
elif "device interrupts too few to measure" in meta["calib.status"]:
    # the disk answered few reads (busy, or its I/O budget spent), or its interrupts did
    # not fall between the loop's clock reads (a CI run here: 6 gaps in 418 reads, on a
    # single-queue disk whose interrupt lands on a probe CPU; why, not established): the
    # status must say so, with the reads the disk answered
    assert ("%d direct disk reads" % reads) in meta["calib.status"], (reads, meta["calib.status"])
    print("device interrupts: not measured here:", meta["calib.status"])
elif len(probe) == os.cpu_count():
    assert "hardirq" in kinds, "no device interrupt measured: %s gaps, %s direct reads done" % (
        meta.get("calib.hardirq.n"), meta.get("calib.disk_reads"))
else:
    print("device interrupts: measured", meta.get("calib.hardirq.n"), "(the disk's IRQ may be elsewhere)")

# the hidden part of a credit never exceeds the credit, and only calibrated kinds have one
names = {"timer", "ipi", "page_fault", "hardirq"}
for sp in rep["latency"]["top_spikes"]:
    assert sp["hidden_us"] <= sp["excess_us"] + 0.002, sp
    for ev in sp["timeline"]:
        assert ev["hidden_us"] <= ev["credit_us"] + 0.001, ev
        if ev["hidden_us"] > 0:
            assert ev["kind"] in names and ev["kind"] in kinds, ev

# steal: read where the kernel keeps it; intervals on the probe CPUs, each within its span
traced = meta.get("run.steal", "")
if traced.startswith("traced"):
    total = 0
    for f in steal:
        assert int(f["cpu"]) in probe, f
        assert 0 < int(f["aux"]) <= int(f["dur"]), f
        total += int(f["aux"])
    # /proc/stat counts the same clock in 10 ms ticks, per CPU, around the whole command
    ticks_ns = (after - before) * 10_000_000
    assert total <= ticks_ns + 2 * 2 * 10_000_000, (total, ticks_ns)
    print(f"steal: {len(steal)} intervals, {total / 1e6:.3f} ms; /proc/stat {ticks_ns / 1e6:.0f} ms")
else:
    assert not steal, traced
    print("steal: not traced here:", traced)

# hw-noise only with complete coverage, and only on spikes with no OS event, but for the
# part of a timer interrupt's own code past the top of a usual tick's spread (stall_us)
cov = rep["latency"]["coverage"]
os_kinds = lambda sp: [e for e in sp["timeline"] if e["kind"] not in ("steal", "lost")]
for sp in rep["latency"]["top_spikes"]:
    if sp["hw_noise_us"] > 0:
        assert cov["complete"], cov
    if sp["hw_noise_us"] - sp["stall_us"] > 0.002:
        assert not os_kinds(sp), sp
    if sp["stall_us"] > 0 and sp["timeline_events"] == len(sp["timeline"]):  # all listed
        top = kinds["timer"]["traced_p90_us"]
        past = sum(max(0.0, e["dur_us"] - top) for e in sp["timeline"]
                   if e["kind"] == "timer" and not e["nested"])
        assert sp["stall_us"] <= past + 0.002, (top, sp)
    if sp["unexplained"] == "tracing-incomplete":
        assert not cov["complete"] and not os_kinds(sp), sp
print("coverage:", cov, "hw-noise spikes:", sum(1 for s in rep["latency"]["top_spikes"] if s["cause"] == "hw-noise"))
EOF

# --no-calibrate: nothing measured, nothing widened
"$TC" record -o "$TMP/nocal.tct" -n 200k --cpu "$cpus" --no-progress --no-calibrate >"$TMP/rec.log" 2>&1 ||
	{ cat "$TMP/rec.log"; fail "record --no-calibrate failed"; }
"$TC" dump "$TMP/nocal.tct" | grep -q '^meta calib.status=not measured: --no-calibrate$' ||
	fail "--no-calibrate is not said in the trace"
! "$TC" dump "$TMP/nocal.tct" | grep -q '^meta calib.timer' || fail "--no-calibrate still measured"
"$TC" report "$TMP/nocal.tct" | grep -q 'calibration not measured: --no-calibrate' ||
	fail "the report does not say the run was not calibrated"

# A traced command: measured on two CPUs before it is let run, and none of the
# calibration's own records (its threads' page faults, its IPIs) in the trace.
"$TC" record -o "$TMP/cmd.tct" --no-progress -- sleep 0.3 >"$TMP/rec.log" 2>&1 ||
	{ cat "$TMP/rec.log"; fail "record -- sleep failed"; }
"$TC" dump "$TMP/cmd.tct" >"$TMP/cmd.txt" || fail "dump of the command's trace failed"
python3 - "$TMP/cmd.txt" <<'EOF2' || fail "the command's calibration: see above"
import sys
import collections
meta, threads, faults, ipis, ipi_at, cmd_at, first = {}, set(), [], 0, [], [], 1 << 64
for line in open(sys.argv[1]):
    if line.startswith("meta "):
        k, _, v = line[5:].rstrip("\n").partition("=")
        meta[k] = v
    elif line.startswith("thread "):
        threads.add(int(line.split()[1].split("=")[1]))
    elif line.startswith("event kind=page_fault "):
        faults.append(int(line.split(" tid=")[1].split()[0]))
    elif line.startswith("event kind=ipi "):
        ipis += 1
        f = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
        ipi_at.append((int(f["start"]), f["cpu"], f["arg"], f["flags"]))
    if line.startswith("event "):
        at = int(line.split(" start=")[1].split()[0])
        first = min(first, at)
        cmd_at.append((at, int(line.split(" tid=")[1].split()[0])))
print("command trace:", meta.get("calib.status"), "| faults", len(faults), "| IPIs", ipis)
assert meta.get("calib.status", "").startswith("measured on CPUs"), meta.get("calib.status")
assert int(meta.get("calib.timer.n", 0)) > 0 and int(meta.get("calib.page_fault.n", 0)) > 0
stray = [t for t in faults if t not in threads]
assert not stray, "%d page faults of threads the trace does not hold (the calibration's)" % len(stray)
# The calibration sends ~500 IPIs to a probe CPU, all before the command is let run: those
# are the ones that must not be here. After its first record the machine's own IPIs are
# (a busy machine sends hundreds in 0.3 s): counted, not judged.
target = int(meta["run.target_pid"])
began = min((at for at, tid in cmd_at if tid == target), default=None)
assert began is not None, "no record of the command (pid %d) itself" % target
before = [x for x in ipi_at if x[0] < began]
print("IPIs before the command's first record: %d; after: %d" % (len(before), ipis - len(before)))
assert len(before) < 100, "%d IPIs before the command's first record (cpu, vector, flags: %s; from %.3f to %.3f s after the trace's first record)" % (
    len(before), dict(collections.Counter(x[1:] for x in before)), (min(before)[0] - first) / 1e9,
    (max(before)[0] - first) / 1e9)
EOF2
echo "ok: a traced command is calibrated, and the calibration's records are not its trace"
