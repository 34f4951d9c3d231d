#!/bin/sh
# tailcause diff and rank on real recordings: a run with a hog on a probe CPU (it wakes
# every ~30 us and takes the CPU for 10, so about one round trip in 300 waits for it:
# enough to move p99.9) and one without. The diff must find the hog's cause gone and
# p99.9 significantly better, and the inverse with --fail-if-worse must exit 5; a run
# against itself is unchanged everywhere; JSON reports compare like traces; mismatched
# and foreign reports are refused with exit 3 (--strict, schema version, noise); rank
# puts the hog's run first. JSON output matches its schema, HTML pages are well formed.
set -eu
. "$(dirname "$0")/lib.sh"
need_root_bpf
command -v python3 >/dev/null || skip "needs python3 for the JSON checks"
cpus=$(probe_cpus)
B=${cpus#*,}
CHK=tests/system

record() { # record NAME: a shm run of 300k round trips into $TMP/NAME.tct
	"$TC" record -o "$TMP/$1.tct" -n 300k --cpu "$cpus" --no-progress >"$TMP/$1.log" 2>&1 ||
		{ cat "$TMP/$1.log"; fail "record $1 failed"; }
}
record quiet
nice -n -10 taskset -c "$B" "$O/tests/tc-spin" tcdiffhog 60 10 20 &
HOG_PID=$!
sleep 0.2
record hog
kill "$HOG_PID"
HOG_PID=
record quiet2

"$TC" diff "$TMP/hog.tct" "$TMP/quiet.tct" >"$TMP/diff.txt" 2>&1 || { cat "$TMP/diff.txt"; fail "diff exited $?"; }
cat "$TMP/diff.txt"
expect_exit 0 "$TC" diff "$TMP/hog.tct" "$TMP/quiet.tct" --format json -o "$TMP/diff.json"
python3 $CHK/check_report_json.py docs/diff-schema.json "$TMP/diff.json" diff ||
	fail "the diff JSON does not match docs/diff-schema.json"
python3 - "$TMP/diff.json" <<'EOF' || fail "the diff does not see the hog go"
import json, sys
d = json.load(open(sys.argv[1]))
fig = {f["name"]: f for f in d["figures"]}
assert fig["p99.9"]["verdict"] == "better" and fig["p99.9"]["significant"], fig["p99.9"]
assert fig["p99.9"]["ci_hi_us"] < 0, fig["p99.9"]
hog = [c for c in d["causes"] if c["name"] == "preemption:tcdiffhog"]
assert hog and hog[0]["verdict"] == "gone", hog
assert hog[0]["spikes_before"] > 10 and hog[0]["spikes_after"] == 0, hog
EOF

# The inverse got worse: a CI gate exits 5, naming the figure; without the gate, 0.
expect_exit 5 "$TC" diff "$TMP/quiet.tct" "$TMP/hog.tct" --fail-if-worse p99.9
grep -q 'p99.9 got significantly worse' "$TMP/out" || fail "--fail-if-worse does not say what got worse"
expect_exit 0 "$TC" diff "$TMP/quiet.tct" "$TMP/hog.tct"

# A run against itself: every interval holds 0.
expect_exit 0 "$TC" diff "$TMP/quiet.tct" "$TMP/quiet.tct" --format json -o "$TMP/self.json"
python3 - "$TMP/self.json" <<'EOF' || fail "a run against itself is not unchanged"
import json, sys
d = json.load(open(sys.argv[1]))
for f in d["figures"]:
    assert f["name"] == "max" or (f["verdict"] == "unchanged" and f["ci_lo_us"] <= 0 <= f["ci_hi_us"]), f
assert all(c["verdict"] == "unchanged" for c in d["causes"]), d["causes"]
EOF

# JSON reports compare like the traces they came from.
for r in hog quiet quiet2; do
	"$TC" report "$TMP/$r.tct" --format json -o "$TMP/$r.json" || fail "report $r failed"
done
expect_exit 0 "$TC" diff "$TMP/hog.json" "$TMP/quiet.json" --format json -o "$TMP/diffj.json"
python3 - "$TMP/diffj.json" <<'EOF' || fail "the diff of JSON reports does not see the hog go"
import json, sys
d = json.load(open(sys.argv[1]))
assert "histogram" in d["before"]["resampled"], d["before"]
fig = {f["name"]: f for f in d["figures"]}
assert fig["p99.9"]["verdict"] == "better", fig["p99.9"]
assert [c for c in d["causes"] if c["name"] == "preemption:tcdiffhog"][0]["verdict"] == "gone"
EOF
expect_exit 0 "$TC" diff "$TMP/hog.json" "$TMP/quiet.tct" --format html -o "$TMP/diff.html"
python3 tests/check_html.py "$TMP/diff.html" || fail "the diff page is not well formed"

# Bad input: another probe (a warning, exit 3 with --strict), another schema version, a noise
# report, something else.
python3 - "$TMP/quiet.json" "$TMP" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["run"]["probe"] = "verbs"
json.dump(d, open(sys.argv[2] + "/verbs.json", "w"))
d["schema_version"] = 2
json.dump(d, open(sys.argv[2] + "/v2.json", "w"))
EOF
expect_exit 0 "$TC" diff "$TMP/quiet.json" "$TMP/verbs.json"
grep -q 'the probes differ' "$TMP/out" || fail "no warning for runs of different probes"
expect_exit 3 "$TC" diff "$TMP/quiet.json" "$TMP/verbs.json" --strict
expect_exit 3 "$TC" diff "$TMP/quiet.json" "$TMP/v2.json"
grep -q 'schema version 2' "$TMP/out" || fail "another schema version is not named"
expect_exit 3 "$TC" diff "$TMP/quiet.json" tests/golden/command.json
grep -q 'noise report' "$TMP/out" || fail "a noise report is not refused as one"
expect_exit 3 "$TC" diff "$TMP/quiet.json" README.md
[ "$(grep -c '^tailcause:' "$TMP/out")" = 1 ] || { cat "$TMP/out"; fail "not one error line"; }
expect_exit 1 "$TC" diff "$TMP/quiet.json"
expect_exit 1 "$TC" diff "$TMP/quiet.json" "$TMP/hog.json" --fail-if-worse p42

# rank: the hog's run first, by p99.9, the hog among its top causes.
expect_exit 0 "$TC" rank "$TMP/quiet.json" "$TMP/hog.json" "$TMP/quiet2.json" --format json -o "$TMP/rank.json"
python3 $CHK/check_report_json.py docs/rank-schema.json "$TMP/rank.json" rank ||
	fail "the rank JSON does not match docs/rank-schema.json"
python3 - "$TMP/rank.json" "$TMP/hog.json" <<'EOF' || fail "rank does not put the hog's run first"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["nodes"][0]["source"] == sys.argv[2], r["nodes"][0]
# Among its top causes (another process's long preemptions may weigh more).
assert "preemption:tcdiffhog" in [c["name"] for c in r["nodes"][0]["top_causes"]], r["nodes"][0]
EOF
expect_exit 0 "$TC" rank "$TMP/quiet.json" "$TMP/hog.json" --format html -o "$TMP/rank.html"
python3 tests/check_html.py "$TMP/rank.html" || fail "the rank page is not well formed"
expect_exit 0 "$TC" rank "$TMP/quiet.json" "$TMP/verbs.json"
grep -q 'not runs of the same probe' "$TMP/out" || fail "rank does not warn of mixed probes"
expect_exit 3 "$TC" rank "$TMP/quiet.json" "$TMP/verbs.json" --strict
expect_exit 1 "$TC" rank
