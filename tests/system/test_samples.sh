#!/bin/sh
# report --samples: the iterations a user's benchmark timed (tc-bench, pinned
# to a CPU that a hog shares) replace the trace's; the spikes the hog's
# preemptions explain must be blamed on it, preemption:<its comm>, in text and
# JSON. A malformed CSV names its line (exit 3); rows on the wrong clock are
# refused (exit 3).
set -eu
. "$(dirname "$0")/lib.sh"
need_root_bpf
command -v python3 >/dev/null || skip "needs python3 for the JSON checker"
cpu=$(($(nproc) - 1))
csv="$TMP/bench.csv"

nice -n -10 taskset -c "$cpu" "$O/tests/tc-spin" tcsample 30 &
HOG_PID=$!
sleep 0.2
"$TC" record -o "$TMP/t.tct" --no-progress -- taskset -c "$cpu" "$O/tests/tc-bench" "$csv" 2 20 \
	>"$TMP/rec.txt" 2>&1 || { cat "$TMP/rec.txt"; fail "tailcause record -- tc-bench failed"; }
kill "$HOG_PID"; HOG_PID=
rows=$(grep -c '^[0-9]' "$csv")
[ "$rows" -gt 1000 ] || fail "tc-bench wrote only $rows rows"

"$TC" report "$TMP/t.tct" --samples "$csv" >"$TMP/r.txt" 2>&1 || { cat "$TMP/r.txt"; fail "report --samples failed"; }
cat "$TMP/r.txt"
grep -q "^  samples     $csv: $rows iterations" "$TMP/r.txt" || fail "the header does not name the samples"
grep -q 'preemption:tcsample' "$TMP/r.txt" || fail "no spike is blamed on the hog"

# Other tasks may preempt the bench too (a busy machine): every spike the hog's
# preemption explains must be blamed on it, and there must be some.
"$TC" report "$TMP/t.tct" --samples "$csv" --top 100 --format json -o "$TMP/r.json"
python3 tests/system/check_report_json.py docs/report-schema.json "$TMP/r.json" latency ||
	fail "the JSON report does not match the schema"
python3 - "$TMP/r.json" "$rows" <<'EOF' || fail "the JSON report disagrees"
import json, sys
d = json.load(open(sys.argv[1]))
lat = d["latency"]
assert d["run"]["samples_rows"] == int(sys.argv[2]), d["run"]
assert lat["stats"]["one_way"] is False and lat["verdict"] is None
hog = [c for c in lat["causes"] if c["name"] == "preemption:tcsample"]
assert hog and hog[0]["spikes"] >= 1, lat["causes"]
checked = 0
for s in lat["top_spikes"]:
    credit = sum(e["credit_us"] for e in s["timeline"]
                 if e["kind"] == "offcpu" and "; tcsample (pid" in e["detail"])
    if credit >= 0.5 * s["excess_us"]:
        assert s["cause"] == "preemption:tcsample", s
        checked += 1
assert checked >= 1, "no top spike is mostly the hog's preemption"
print("%d spikes blamed on the hog; %d of the top ones checked" % (hog[0]["spikes"], checked))
EOF

# Rows without cpu and tid: the command's threads are taken as the ones that timed them.
cut -d, -f1,2 "$csv" >"$TMP/two.csv"
"$TC" report "$TMP/t.tct" --samples "$TMP/two.csv" >"$TMP/two.txt" || fail "report of 2 columns failed"
grep -q 'preemption:tcsample' "$TMP/two.txt" || fail "without cpu,tid no spike is blamed on the hog"

# Without --samples the same trace is a noise report.
"$TC" report "$TMP/t.tct" >"$TMP/n.txt" || fail "the trace alone does not report"
grep -q '^host noise of the command' "$TMP/n.txt" || fail "no noise report without --samples"

# Errors: a bad line, the wrong clock, a missing file.
sed '5s/.*/12,oops,0,1/' "$csv" >"$TMP/bad.csv"
expect_exit 3 "$TC" report "$TMP/t.tct" --samples "$TMP/bad.csv"
grep -q "bad.csv line 5: end_ns 'oops' is not an unsigned decimal integer" "$TMP/out" ||
	{ cat "$TMP/out"; fail "no line number for a bad row"; }
[ "$(wc -l <"$TMP/out")" = 1 ] || fail "more than one line for one error"
printf '1700000000000000000,1700000000000020000\n' >"$TMP/realtime.csv"
expect_exit 3 "$TC" report "$TMP/t.tct" --samples "$TMP/realtime.csv"
grep -q "none of the 1 rows falls inside the trace" "$TMP/out" || fail "wrong clock not named"
expect_exit 3 "$TC" report "$TMP/t.tct" --samples "$TMP/missing.csv"
