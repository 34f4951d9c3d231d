#!/bin/sh
# A short signal handler on a running thread: tc-sigsend on another CPU sends SIGUSR1
# every 2 ms to tc-sigprobe, a one-thread loop busy in user space whose handler burns
# 2 us. The kernel reaches the running thread with a reschedule IPI (kick_process()) and
# delivers the signal as the thread returns from it to user space: that IPI is the
# signal's delivery, and the spikes it makes with the handler must be signal:SIGUSR1,
# the IPI marked carried_signal, not ipi:reschedule (an IPI that costs more than the
# handler would otherwise take them). Fails where the analyzer credits such an IPI with
# its own cause, and where the signals or their IPIs are not traced.
set -eu
. "$(dirname "$0")/lib.sh"
need_root_bpf
command -v python3 >/dev/null || skip "needs python3 for the checks"
n=$(nproc)
cpu=$((n - 1))	 # the probe's
other=$((n - 2)) # the sender's

taskset -c "$other" "$O/tests/tc-sigprobe" send -P "$TMP/pid" -p 2000 -t 60 >"$TMP/send.txt" &
HOG_PID=$!
"$TC" record -o "$TMP/sig.tct" --signal-ends --no-progress -- taskset -c "$cpu" \
	"$O/tests/tc-sigprobe" probe -s "$TMP/sig.csv" -t 2 -H 2 -P "$TMP/pid" \
	-W "$TMP/sig.win" >"$TMP/rec.txt" 2>&1 ||
	{ cat "$TMP/rec.txt"; fail "record -- tc-sigprobe (tc-sigsend) failed"; }
wait "$HOG_PID" || { cat "$TMP/send.txt"; fail "tc-sigsend sent nothing"; }
HOG_PID=
"$TC" report "$TMP/sig.tct" --samples "$TMP/sig.csv" >"$TMP/sig.txt" 2>&1 ||
	{ cat "$TMP/sig.txt"; fail "report --samples failed"; }
"$TC" report "$TMP/sig.tct" --samples "$TMP/sig.csv" --top 2000 --format json \
	-o "$TMP/sig.json" || fail "the JSON report failed"
python3 tests/system/check_report_json.py docs/report-schema.json "$TMP/sig.json" latency ||
	fail "the JSON report does not match the schema"
python3 - "$TMP/sig" <<'EOF' || { sed -n '/^top spikes/,$p' "$TMP/sig.txt" | head -60; fail "the signals' IPIs are not credited to the signal"; }
import json, sys
base = sys.argv[1]
wins = [l for l in open(base + ".win") if l.split()[3] == "10"]
lat = json.load(open(base + ".json"))["latency"]
# The spikes that hold a SIGUSR1 delivery after a reschedule IPI, by their primary cause.
by = {}
carried = 0
for s in lat["top_spikes"]:
    tl = s["timeline"]
    sig = [e for e in tl if e["kind"] == "signal" and "SIGUSR1" in e["cause"]]
    ipi = [e for e in tl if e["kind"] == "ipi" and "reschedule" in e["detail"]]
    if not sig or not any(i["start_us"] < g["start_us"] for i in ipi for g in sig):
        continue
    by[s["cause"]] = by.get(s["cause"], 0) + 1
    if s["cause"] == "signal:SIGUSR1":
        carried += any(i.get("carried_signal") and i["cause"] == s["cause"] for i in ipi)
held = sum(by.values())
named = by.get("signal:SIGUSR1", 0)
ipis = by.get("ipi:reschedule", 0)
print("%d handler runs; %d spikes hold a SIGUSR1 delivery after a reschedule IPI: %d "
      "signal:SIGUSR1 (%d with the IPI marked carried_signal), %d ipi:reschedule; %s" % (
          len(wins), held, named, carried, ipis,
          ", ".join("%s %d" % kv for kv in sorted(by.items(), key=lambda kv: -kv[1]))))
# (2 s of a signal every 2 ms: ~1000 handler runs; most make a spike)
assert len(wins) >= 200, "only %d handler runs" % len(wins)
assert held >= 100, "only %d spikes hold a signal after its IPI" % held
assert named >= 0.8 * held, "%d of %d such spikes are signal:SIGUSR1" % (named, held)
assert carried >= 0.9 * named, "the IPI marked carried_signal in %d of %d" % (carried, named)
assert ipis <= 0.05 * held, "%d of %d such spikes are ipi:reschedule" % (ipis, held)
EOF
no_leftover_progs
echo "ok"
