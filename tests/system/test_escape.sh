#!/bin/sh
# A task that names itself with an escape sequence (prctl(PR_SET_NAME), "tc" ESC "[2J")
# preempts the probe: the text report's cause table and spike timelines and `tailcause
# dump` show the name escaped (tc\x1b[2J), the JSON report holds the same text and
# parses, and no raw ESC byte reaches any of them, nor what record prints.
set -eu
. "$(dirname "$0")/lib.sh"
need_root_bpf
[ -x "$O/tests/tc-spin" ] || fail "build $O/tests/tc-spin first (make $O/tests/tc-spin)"

cpus=$(probe_cpus)
pong_cpu=${cpus#*,}
esc=$(printf '\033')
# nice -10: the hog must out-compete whatever else this machine runs on that CPU. It burns
# 1 ms every 10 ms: each wake-up preempts the probe, which still runs most of the time.
nice -n -10 taskset -c "$pong_cpu" "$O/tests/tc-spin" "tc${esc}[2J" 60 1000 10000 &
HOG_PID=$!
sleep 0.2

"$TC" record --cpu "$cpus" -n 300000 --no-progress --no-calibrate -o "$TMP/esc.tct" \
	>"$TMP/record.txt" 2>&1 || { cat "$TMP/record.txt"; fail "tailcause record failed"; }
kill "$HOG_PID"; HOG_PID=
# every spike's timeline: on a shared machine other tasks may own the largest
"$TC" report "$TMP/esc.tct" --top 10000 >"$TMP/report.txt" 2>&1 || fail "report failed"
"$TC" report "$TMP/esc.tct" --format json -o "$TMP/report.json" || fail "report --format json failed"
"$TC" dump "$TMP/esc.tct" >"$TMP/dump.txt" || fail "dump failed"

for f in record.txt report.txt report.json dump.txt; do
	if grep -q "$esc" "$TMP/$f"; then
		grep -n "$esc" "$TMP/$f" | head -3 | cat -v
		fail "a raw ESC byte in $f"
	fi
done

name='tc\x1b[2J'
grep -qF "preemption:$name " "$TMP/report.txt" || {
	cat "$TMP/report.txt"
	fail "the cause table lacks preemption:$name"
}
grep -qF "preempted; $name (pid" "$TMP/report.txt" ||
	fail "no spike timeline shows the off-CPU interval with $name"
grep -qE "^event kind=offcpu .* other=[0-9]+:tc\\\\x1b\\[2J$" "$TMP/dump.txt" ||
	fail "dump does not show the task as $name"
python3 - "$TMP/report.json" "preemption:$name" <<'EOF' || fail "the JSON report"
import json, sys
report = json.load(open(sys.argv[1], encoding="utf-8"))
names = [c["name"] for c in report["latency"]["causes"]]
if sys.argv[2] not in names:
    sys.exit("no cause %s among %s" % (sys.argv[2], names))
EOF
no_leftover_progs
