#!/bin/sh
# A trace of a command without samples (record -- CMD) is reported as host
# noise per thread and interval. The command's busy thread shares its CPU with
# a pinned hog, so the hog must lead the noise causes, in text and JSON; the
# other formats must read back too.
set -eu
. "$(dirname "$0")/lib.sh"
need_root_bpf
command -v python3 >/dev/null || skip "needs python3 for the format checkers"
CHK=tests/system
cpu=$(($(nproc) - 1))

# The hog outweighs dd about 9:1 (nice -10 against 0): dd's ~0.5 s of CPU take ~5 s.
nice -n -10 taskset -c "$cpu" "$O/tests/tc-spin" tcnoise 60 &
HOG_PID=$!
sleep 0.2
"$TC" record -o "$TMP/t.tct" --no-progress -- taskset -c "$cpu" \
	sh -c "dd if=/dev/zero of=/dev/null bs=64k count=5000 2>/dev/null; sleep 0.2" \
	>"$TMP/rec.txt" 2>&1 || { cat "$TMP/rec.txt"; fail "tailcause record -- CMD failed"; }
kill "$HOG_PID" 2>/dev/null || fail "the hog ended before the command: the command starved"
HOG_PID=

"$TC" report "$TMP/t.tct" >"$TMP/noise.txt" 2>&1 || { cat "$TMP/noise.txt"; fail "report exited $?"; }
cat "$TMP/noise.txt"
grep -q '^host noise of the command: ' "$TMP/noise.txt" || fail "no noise report"
grep -q '^worst intervals ' "$TMP/noise.txt" || fail "no worst intervals"
grep -qE '^ +[0-9]+ dd ' "$TMP/noise.txt" || fail "the dd thread is not listed"
top=$(sed -n '/^totals by cause/{n;n;p;q}' "$TMP/noise.txt" | awk '{print $1}')
[ "$top" = "preemption:tcnoise" ] || fail "top noise cause is '$top', expected preemption:tcnoise"
sed -n '/^  #1 /,/^$/p' "$TMP/noise.txt" | grep -q 'preemption:tcnoise' ||
	fail "the worst interval does not name the hog"

"$TC" report "$TMP/t.tct" --format json -o "$TMP/noise.json" || fail "report --format json failed"
python3 $CHK/check_report_json.py docs/report-schema.json "$TMP/noise.json" noise ||
	fail "the noise JSON does not match docs/report-schema.json"
python3 - "$TMP/noise.json" <<'EOF' || fail "the noise JSON disagrees with the text"
import json, sys
n = json.load(open(sys.argv[1]))["noise"]
noisy = [c for c in n["causes"] if c["group"] not in ("blocked", "fault")]
assert noisy[0]["name"] == "preemption:tcnoise", noisy[0]
assert any(t["comm"] == "dd" and t["offcpu_us"] > 0 for t in n["threads"]), n["threads"]
assert n["interval_ms"] == 100 and n["worst_intervals"], n
EOF

# A finer interval gives more of them.
"$TC" report "$TMP/t.tct" --interval 10 --format json -o "$TMP/fine.json"
coarse=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["noise"]["intervals"])' "$TMP/noise.json")
fine=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["noise"]["intervals"])' "$TMP/fine.json")
[ "$fine" -ge $((coarse * 5)) ] || fail "--interval 10 gave $fine intervals, 100 ms gave $coarse"

"$TC" report "$TMP/t.tct" --format openmetrics -o "$TMP/noise.prom"
python3 $CHK/check_openmetrics.py "$TMP/noise.prom" tailcause_noise_seconds \
	tailcause_thread_noise_seconds || fail "the noise OpenMetrics does not parse"
"$TC" report "$TMP/t.tct" --format perfetto -o "$TMP/noise.pf.json"
python3 $CHK/check_perfetto.py "$TMP/noise.pf.json" || fail "the noise Perfetto trace is wrong"
"$TC" report "$TMP/t.tct" --format html -o "$TMP/noise.html"
grep -q '<svg id="noise-over-time"' "$TMP/noise.html" || fail "the noise page has no chart"
expect_exit 1 "$TC" report "$TMP/t.tct" --interval 0
