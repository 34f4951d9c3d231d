#!/bin/sh
# Kernel work run on the probe CPUs, queued on purpose, must be traced and named by its
# work function. Writing 1 to /proc/sys/vm/stat_refresh runs refresh_vm_stats on every
# CPU through schedule_on_each_cpu (a kworker of each CPU's system workqueue) and waits
# for it; a shell does that every few ms during a shm recording. The trace must hold
# work records on both probe CPUs whose function its ksym meta names refresh_vm_stats,
# run by that CPU's kworker; the report must name the kworkers' preemptions of the
# probe threads by the function (workqueue:refresh_vm_stats), never
# preemption:kworker/*, and a reschedule IPI listed right before such a preemption on its
# CPU (how the writer's CPU brought the kworker in) carries the same name, marked
# woke_preemptor. Again on the classic tracepoints. Fails if the tracer, the recorder's
# symbol table or the naming is wrong, or if the dump or the report spells a kernel
# address (the trace names work functions by id).
set -eu
. "$(dirname "$0")/lib.sh"
need_root_bpf
[ -w /proc/sys/vm/stat_refresh ] || skip "no writable /proc/sys/vm/stat_refresh"
grep -q ' refresh_vm_stats$' /proc/kallsyms || skip "refresh_vm_stats is not in /proc/kallsyms"

cpus=$(probe_cpus)
A=${cpus%,*}
B=${cpus#*,}
# The writer's own CPU: one outside the probe's where there is one; else A, where it
# holds the ping thread off itself while the work runs on B.
W=$A
[ "$(nproc)" -ge 3 ] && W=0

# writer N: N writes to stat_refresh, 3 ms apart, from CPU W, in the background.
writer() {
	taskset -c "$W" sh -c "i=0
		while [ \$i -lt $1 ]; do
			echo 1 >/proc/sys/vm/stat_refresh; sleep 0.003; i=\$((i + 1))
		done" &
	HOG_PID=$!
	sleep 0.2
}

# check TRACE_TXT REPORT_JSON: the work records and, with a report, the names.
check() {
	python3 - "$A" "$B" "$W" "$@" <<'PY'
import json, sys
a, b, w = (int(x) for x in sys.argv[1:4])
dump = sys.argv[4]
report = sys.argv[5] if len(sys.argv) > 5 else None

def fail(msg):
    print("FAILED: " + msg)
    sys.exit(1)

meta, works = {}, []
for line in open(dump):
    if line.startswith("meta "):
        k, _, v = line[5:].rstrip("\n").partition("=")
        meta[k] = v
    elif line.startswith("event kind=work "):
        f = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
        works.append(f)
addr = [k[5:] for k, v in meta.items() if k.startswith("ksym.") and v == "refresh_vm_stats"]
if not addr:
    fail("no ksym meta names refresh_vm_stats (%d work records, %d ksym keys)" % (
        len(works), sum(k.startswith("ksym.") for k in meta)))
fn = int(addr[0], 16)
for cpu in (a, b):
    mine = [x for x in works if int(x["aux"]) == fn and int(x["cpu"]) == cpu]
    if len(mine) < 10:
        fail("%d refresh_vm_stats work records on probe CPU %d, expected dozens" % (len(mine), cpu))
    for x in mine:
        if not 0 < int(x["dur"]) < 10000000:
            fail("implausible work duration %s ns on CPU %d" % (x["dur"], cpu))
        if not x["other"].split(":", 1)[1].startswith("kworker/%d:" % cpu):
            fail("refresh_vm_stats on CPU %d run by %s, not that CPU's kworker" % (cpu, x["other"]))
if any(int(x["cpu"]) not in (a, b) for x in works):
    fail("work records from a CPU that is not a probe CPU")
print("trace: %d work records, refresh_vm_stats (id %d) on CPUs %d and %d" % (len(works), fn, a, b))
if not report:
    sys.exit(0)

r = json.load(open(report))["latency"]
if r["spikes"]["count"] > len(r["top_spikes"]):
    print("note: %d spikes, %d listed" % (r["spikes"]["count"], len(r["top_spikes"])))
causes = {c["name"]: c for c in r["causes"]}
c = causes.get("workqueue:refresh_vm_stats")
if not c or c["excess_us"] <= 0:
    fail("no cause workqueue:refresh_vm_stats with excess in the report: %s" % sorted(causes))
named, wrong = 0, []
for s in r["top_spikes"]:
    tl = s["timeline"]
    works_in = [t for t in tl if t["kind"] == "work" and t["cause"] == "workqueue:refresh_vm_stats"]
    # (a spike may be another kworker's preemption, on the other CPU, with the work
    # item elsewhere in its window: what must hold is each preemption the item ran in)
    for o in tl:
        if o["kind"] != "offcpu" or " preempted; kworker/" not in o["detail"]:
            continue
        inside = [t for t in works_in if t["cpu"] == o["cpu"] and
                  o["start_us"] <= t["start_us"] < o["start_us"] + o["dur_us"]]
        if not inside:
            continue
        if o["cause"].startswith("preemption:kworker/"):
            wrong.append("spike #%d: %s holds refresh_vm_stats but is named %s" % (
                s["rank"], o["detail"], o["cause"]))
        elif o["cause"] == "workqueue:refresh_vm_stats":
            named += 1
# The reschedule IPI that brought a kworker in is that preemption's way in: where the
# timeline lists both, the IPI carries the work's name, marked woke_preemptor.
joined = 0
for s in r["top_spikes"]:
    tl = sorted(s["timeline"], key=lambda t: t["start_us"])
    for i, t in enumerate(tl):
        if t["kind"] != "ipi" or not t["detail"].startswith("ipi:reschedule"):
            continue
        nxt = [o for o in tl[i + 1:] if o["kind"] == "offcpu" and o["cpu"] == t["cpu"] and
               " preempted; " in o["detail"]]
        if not nxt or " preempted; kworker/" not in nxt[0]["detail"]:
            continue
        if t["nested"]:
            continue
        if not t["woke_preemptor"] or t["cause"] != nxt[0]["cause"]:
            wrong.append("spike #%d: %s before %s is %s (woke_preemptor %s)" % (
                s["rank"], t["detail"], nxt[0]["detail"], t["cause"], t["woke_preemptor"]))
        elif nxt[0]["cause"].startswith("workqueue:"):
            joined += 1
if wrong:
    fail("kworker preemptions not named by their work: " + "; ".join(wrong[:3]))
print("report: %d reschedule IPIs credited to the kworker preemption they led to" % joined)
if named < 3:
    fail("only %d kworker preemptions in the spikes named workqueue:refresh_vm_stats" % named)
msg = "report: %d kworker preemptions named workqueue:refresh_vm_stats, primary cause of %d spikes" % (
    named, c["spikes"])
# With the writer off the probe CPUs the work is what delays the probe: it must win spikes.
# On two CPUs the writer itself holds the ping thread off for longer (preemption:sh).
if w not in (a, b) and c["spikes"] < 1:
    fail(msg)
print(msg)
PY
}

writer 2000
"$TC" record -o "$TMP/wq.tct" -n 3M --cpu "$cpus" --no-progress >"$TMP/rec.txt" 2>&1 ||
	{ cat "$TMP/rec.txt"; fail "tailcause record failed"; }
"$TC" dump "$TMP/wq.tct" >"$TMP/wq.txt" || fail "dump failed"
grep -q '^meta tracer.workqueue.tc_work_start=attached tp_btf/workqueue_execute_start' "$TMP/wq.txt" ||
	fail "tc_work_start not attached via tp_btf: $(grep tracer.workqueue "$TMP/wq.txt")"
# Every round trip over 1 us one way: each kworker preemption of a probe thread is a
# spike, and the spikes of a busy machine's other tasks do not crowd them out of --top.
"$TC" report "$TMP/wq.tct" --spike 1us --format json --top 10000 -o "$TMP/wq.json" ||
	fail "report failed"
check "$TMP/wq.txt" "$TMP/wq.json"
no_kernel_addresses "$TMP/wq.txt" "$TMP/wq.json"

# The classic twins: the function from the tracepoint's own field.
TAILCAUSE_FORCE_FALLBACK=1 "$TC" record -o "$TMP/tp.tct" -n 1M --cpu "$cpus" --no-progress \
	>"$TMP/rec.txt" 2>&1 || { cat "$TMP/rec.txt"; fail "tailcause record (fallback) failed"; }
kill "$HOG_PID" 2>/dev/null || true
HOG_PID=
"$TC" dump "$TMP/tp.tct" >"$TMP/tp.txt" || fail "dump failed"
grep -q '^meta tracer.workqueue.tc_work_start=attached tp/workqueue/workqueue_execute_start' "$TMP/tp.txt" ||
	fail "tc_work_start not attached to the classic tracepoint under TAILCAUSE_FORCE_FALLBACK"
check "$TMP/tp.txt"
no_kernel_addresses "$TMP/tp.txt"
no_leftover_progs
