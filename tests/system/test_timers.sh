#!/bin/sh
# Timer callbacks and NMIs on a probe CPU, caused here on purpose during shm
# recordings on CPUs A,B.
#
# Timers: tc-timers arms one-shot timerfds on B, one every 2 ms (a periodic
# timerfd that is never read fires once: it re-arms in read(), on the
# reader's CPU), then leaves B and never reads them: each runs timerfd_tmrproc
# in B's timer interrupt and wakes nobody. The trace must hold a timer_fn
# record on B for nearly every expiry the recording spans, starting at or
# after it, named timerfd_tmrproc by the recorder's kernel-symbol table, and
# the tick's callbacks; the report must call the interrupts that ran it
# timer:timerfd_tmrproc and the ticks timer:tick, and keep plain `timer` for
# interrupts in which no callback ran at all. Both tracer paths: tp_btf and
# the classic tracepoints. Neither the dump nor the report may spell a kernel
# address: the trace names its callbacks by id (core/trace/func_ids.h).
#
# NMIs: perf sampling on hardware cycles on B, where this machine has a
# hardware PMU: nmi records on B named perf_event_nmi_handler, and the `nmi`
# cause. Without one (a VM without a virtual PMU) that part says why it is
# skipped; the timer part still counts.
set -eu
. "$(dirname "$0")/lib.sh"
need_root_bpf
cpus=$(probe_cpus)
A=${cpus%,*}
B=${cpus#*,}
PERIOD_US=2000
TIMERS_PID=
stop_timers() { [ -n "$TIMERS_PID" ] && kill "$TIMERS_PID" 2>/dev/null || true; TIMERS_PID=; }
trap 'stop_timers; cleanup' EXIT

# arm NAME: timerfds on B for 20 s, the schedule ("first period count") in $TMP/NAME.sched
arm() {
	"$O/tests/tc-timers" "$B" "$A" "$PERIOD_US" 10000 >"$TMP/$1.sched" &
	TIMERS_PID=$!
	for _ in $(seq 50); do
		[ -s "$TMP/$1.sched" ] && return 0
		kill -0 "$TIMERS_PID" 2>/dev/null || fail "tc-timers failed"
		sleep 0.1
	done
	fail "tc-timers did not arm its timers within 5 s"
}

# record NAME: a shm recording on A,B with the timers armed, dumped and reported
record() {
	name=$1
	shift
	arm "$name"
	"$@" "$TC" record --cpu "$cpus" -n 10M --no-progress -o "$TMP/$name.tct" \
		>"$TMP/$name.log" 2>&1 || { cat "$TMP/$name.log"; fail "record $name failed"; }
	stop_timers
	"$TC" dump "$TMP/$name.tct" >"$TMP/$name.txt" || fail "dump $name failed"
	"$TC" report "$TMP/$name.tct" --format json --top 10000 -o "$TMP/$name.json" ||
		fail "report $name failed"
	no_kernel_addresses "$TMP/$name.txt" "$TMP/$name.json"
}

# check NAME PATH: the trace and the report of recording NAME (PATH: tp_btf or tp/timer)
check() {
	grep -q "^meta tracer.timer.tc_hrtimer_entry=attached $2/hrtimer_expire_entry" \
		"$TMP/$1.txt" || fail "$1: the hrtimer program is not attached via $2"
	python3 - "$TMP/$1.txt" "$TMP/$1.json" "$TMP/$1.sched" "$B" <<'PY' || fail "$1: see above"
import bisect, json, sys
dump, report, sched, B = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
first, period, count = map(int, open(sched).read().split())
TICK = ("tick_nohz_handler", "tick_sched_timer", "tick_nohz_highres_handler")
ksym, ev = {}, []
for line in open(dump):
    if line.startswith("meta ksym."):
        k, v = line[len("meta ksym."):].rstrip("\n").split("=", 1)
        ksym[int(k, 16)] = v
    elif line.startswith("event "):
        f = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
        ev.append((f["kind"], int(f["cpu"]), int(f["start"]), int(f["dur"]), int(f["arg"]),
                   int(f["aux"])))
bad = []
fn_b = [e for e in ev if e[0] == "timer_fn" and e[1] == B]
tfd = sorted(e[2] for e in fn_b if ksym.get(e[5]) == "timerfd_tmrproc")
ticks = [e for e in fn_b if ksym.get(e[5]) in TICK]
if any(e[4] != 1 for e in fn_b if ksym.get(e[5]) in ("timerfd_tmrproc",) + TICK):
    bad.append("an hrtimer callback not recorded as one (arg != 1)")
# The span the recording traced on B: its first and last timer interrupts.
irq_b = sorted(e[2] for e in ev if e[0] == "timer" and e[1] == B)
if len(irq_b) < 2:
    sys.exit("no local timer interrupts traced on CPU %d" % B)
lo, hi = irq_b[0] + 10 ** 7, irq_b[-1] - 10 ** 7
due = [first + k * period for k in range(count) if lo <= first + k * period <= hi]
# Each callback takes the earliest expiry not yet taken at or before its start (none
# runs early; a late interrupt, the vCPU held off, runs several at once); an expiry
# 50 ms old without one was missed.
matched = p = 0
for s in tfd:
    while p < len(due) and due[p] < s - 5 * 10 ** 7:
        p += 1
    if p < len(due) and due[p] <= s:
        matched += 1
        p += 1
print("CPU %d: %d expiries due in the traced span, %d timerfd_tmrproc callbacks matched "
      "(%d in all), %d tick callbacks" % (B, len(due), matched, len(tfd), len(ticks)))
if len(due) < 100:
    bad.append("the recording spanned only %d expiries (too short to tell)" % len(due))
elif matched < 0.9 * len(due):
    bad.append("only %d of %d expiries have their timerfd_tmrproc callback" % (matched, len(due)))
span_ms = (hi - lo) / 1e6
if len(ticks) < span_ms / 20:
    bad.append("%d tick callbacks in %.0f ms" % (len(ticks), span_ms))
# The report: timer interrupts on B named by their callbacks, plain `timer` only for one
# that ran none (callback starts on B, by time).
fn_starts = sorted(e[2] for e in fn_b)
d = json.load(open(report))
causes = {c["name"]: c for c in d["latency"]["causes"]}
for want in ("timer:tick", "timer:timerfd_tmrproc"):
    if want not in causes or causes[want]["class"] != "timer":
        bad.append("no cause %s of class timer in the report" % want)
names, plain_with_fn = {}, 0
for sp in d["latency"]["top_spikes"]:
    for it in sp["timeline"]:
        if it["kind"] != "timer" or it["cpu"] != B:
            continue
        names[it["cause"]] = names.get(it["cause"], 0) + 1
        if it["cause"] == "timer":
            s = sp["t_start_ns"] + round(it["start_us"] * 1000)
            j = bisect.bisect_left(fn_starts, s - 2)
            plain_with_fn += j < len(fn_starts) and fn_starts[j] < s + it["dur_us"] * 1000
print("timer interrupts on CPU %d in the spikes' timelines:" % B, names)
if names.get("timer:timerfd_tmrproc", 0) < 10 or names.get("timer:tick", 0) < 10:
    bad.append("fewer than 10 interrupts named timer:timerfd_tmrproc or timer:tick")
if plain_with_fn:
    bad.append("%d interrupts that ran a callback still called plain `timer`" % plain_with_fn)
if names.get("timer", 0) * 10 > sum(names.values()):
    bad.append("plain `timer` for over a tenth of the interrupts")
for b in bad:
    print("FAILED:", b)
sys.exit(1 if bad else 0)
PY
}

record btf
check btf tp_btf
record tp env TAILCAUSE_FORCE_FALLBACK=1
check tp tp/timer

# A command's noise report names the timer interrupts on its CPU by their callbacks too:
# a busy loop on B with the timers armed loses time to timer:timerfd_tmrproc (once for
# nearly every expiry while it ran there) and timer:tick, and little to a plain `timer`
# no callback named.
arm cmd
"$TC" record --no-progress -o "$TMP/cmd.tct" -- taskset -c "$B" "$O/tests/tc-spin" tcnoise 3 \
	>"$TMP/cmd.log" 2>&1 || { cat "$TMP/cmd.log"; fail "record -- tc-spin failed"; }
stop_timers
"$TC" report "$TMP/cmd.tct" --format json -o "$TMP/cmd.json" || fail "the noise report failed"
python3 - "$TMP/cmd.json" "$PERIOD_US" <<'PY' || fail "cmd: the noise report does not name the timers"
import json, sys
noise = json.load(open(sys.argv[1]))["noise"]
causes = {c["name"]: c for c in noise["causes"]}
# One timerfd's expiries while the command ran on B: its 3 s less the time it was off its
# CPU (an interrupt there while another task ran is that task's noise, not the command's)
expiries = sum(t["run_us"] for t in noise["threads"]) / int(sys.argv[2])
fd, tick = causes.get("timer:timerfd_tmrproc"), causes.get("timer:tick")
assert fd and fd["group"] == "irq" and fd["count"] >= 0.8 * expiries, \
    "timer:timerfd_tmrproc %s for %d expiries; causes %s" % (fd, expiries, sorted(causes))
assert tick and tick["count"] >= 100, "timer:tick %s" % tick
timed = sum(c["time_us"] for c in causes.values() if c["class"] == "timer")
plain = causes.get("timer", {"time_us": 0})["time_us"]
assert plain <= 0.1 * timed, "%.0f of %.0f us of timer noise named by no callback" % (plain, timed)
print("cmd noise: timer:timerfd_tmrproc %d (%.0f us), timer:tick %d (%.0f us), plain timer %.0f us" % (
    fd["count"], fd["time_us"], tick["count"], tick["time_us"], plain))
PY

# NMIs: perf sampling on hardware cycles raises one per sample on B.
if [ ! -d /sys/bus/event_source/devices/cpu ] && [ ! -d /sys/bus/event_source/devices/cpu_core ]; then
	echo "skipped (NMI part): no hardware PMU here ($(dmesg 2>/dev/null |
		grep -m1 -o 'Performance Events: .*' || echo 'no cpu event source'));" \
		"perf sampling raises no NMIs"
elif ! command -v perf >/dev/null; then
	echo "skipped (NMI part): perf is not installed"
else
	perf record -e cycles -C "$B" -F 2000 -o "$TMP/perf.data" -- sleep 30 \
		>"$TMP/perf.log" 2>&1 &
	PERF_PID=$!
	sleep 1
	kill -0 "$PERF_PID" 2>/dev/null || { cat "$TMP/perf.log"; fail "perf record failed"; }
	"$TC" record --cpu "$cpus" -n 5M --no-progress -o "$TMP/nmi.tct" >"$TMP/nmi.log" 2>&1 ||
		{ kill -INT "$PERF_PID"; cat "$TMP/nmi.log"; fail "record nmi failed"; }
	kill -INT "$PERF_PID"
	wait "$PERF_PID" || true
	"$TC" dump "$TMP/nmi.tct" >"$TMP/nmi.txt" || fail "dump nmi failed"
	"$TC" report "$TMP/nmi.tct" --format json --top 10000 -o "$TMP/nmi.json" ||
		fail "report nmi failed"
	no_kernel_addresses "$TMP/nmi.txt" "$TMP/nmi.json"
	python3 - "$TMP/nmi.txt" "$TMP/nmi.json" "$B" <<'PY' || fail "nmi: see above"
import json, sys
dump, report, B = sys.argv[1], sys.argv[2], int(sys.argv[3])
ksym, nmi = {}, []
for line in open(dump):
    if line.startswith("meta ksym."):
        k, v = line[len("meta ksym."):].rstrip("\n").split("=", 1)
        ksym[int(k, 16)] = v
    elif line.startswith("event kind=nmi "):
        f = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
        nmi.append((int(f["cpu"]), int(f["arg"]), ksym.get(int(f["aux"])), int(f["dur"])))
perf = [n for n in nmi if n[0] == B and n[2] == "perf_event_nmi_handler" and n[1] == 1]
print("%d NMI records, %d by perf_event_nmi_handler on CPU %d, handled" % (len(nmi), len(perf), B))
causes = [c["name"] for c in json.load(open(report))["latency"]["causes"]]
bad = []
if len(perf) < 100:
    bad.append("fewer than 100 handled perf NMIs traced on CPU %d" % B)
if any(n[3] <= 0 or n[3] > 10 ** 7 for n in perf):
    bad.append("implausible NMI durations")
if "nmi" not in causes:
    bad.append("no nmi cause in the report")
for b in bad:
    print("FAILED:", b)
sys.exit(1 if bad else 0)
PY
fi
no_leftover_progs
