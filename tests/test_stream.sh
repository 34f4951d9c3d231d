#!/bin/sh
# The streamed report (report --stream, core/stream/analyze_stream.h) against the whole one, no
# root and no BPF: on every probe fixture, read a segment of N round trips at a time for
# several N (down to 7, so that spikes, their intervals, steal and lost windows straddle
# many cuts), the text, JSON, HTML and OpenMetrics reports must be the whole trace's byte
# for byte, but for the line that says the trace was streamed. A truncated trace streams to
# what its whole read gives. What streaming cannot do is refused with one line, exit 1.
# Usage: tests/test_stream.sh BUILD_DIR
set -eu
O=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
TC=$(cd "$O" && pwd)/tailcause
cd "$top"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
bad=0 n=0

fail() {
	echo "FAILED: $*"
	bad=$((bad + 1))
}

# The report without the streamed line (text), field and meta key (JSON) or fact (HTML).
strip() {
	grep -v '^  streamed    \|"streamed": \|"report.streamed": \|<tr><td>streamed</td>' "$1" |
		sed 's/,$//' >"$2"
}

same() { # trace, format, segment
	n=$((n + 1))
	"$TC" report "$1" --format "$2" >"$TMP/whole" 2>"$TMP/err" || {
		fail "$1 $2: the whole report exited $?: $(head -2 "$TMP/err")"
		return
	}
	"$TC" report "$1" --format "$2" --stream="$3" >"$TMP/streamed" 2>"$TMP/err" || {
		fail "$1 $2 --stream=$3 exited $?: $(head -2 "$TMP/err")"
		return
	}
	[ "$2" = openmetrics ] || grep -q 'streamed' "$TMP/streamed" ||
		fail "$1 $2 --stream=$3: it does not say it streamed"
	strip "$TMP/whole" "$TMP/w"
	strip "$TMP/streamed" "$TMP/s"
	cmp -s "$TMP/w" "$TMP/s" || {
		fail "$1 $2 --stream=$3 differs from the whole report:"
		diff -u "$TMP/w" "$TMP/s" | head -30
	}
}

for f in probe-2k probe-2k-v2 probe-2k-v3 hog lost; do
	for seg in 7 500 65536; do
		same "tests/fixtures/$f.tct" text "$seg"
	done
	same "tests/fixtures/$f.tct" json 333
	same "tests/fixtures/$f.tct" openmetrics 333
	same "tests/fixtures/$f.tct" html 7
done
# A stretch (--from/--to), with its events a second either side: the same.
for args in "--from 2ms --to 5ms --top 2" "--from 1ms" "--to 3ms --format json" \
	"--from 1ms --to 4ms --format html"; do
	n=$((n + 1))
	# shellcheck disable=SC2086 # the options' words
	"$TC" report tests/fixtures/hog.tct $args >"$TMP/whole"
	# shellcheck disable=SC2086
	"$TC" report tests/fixtures/hog.tct $args --stream=100 >"$TMP/streamed"
	strip "$TMP/whole" "$TMP/w"
	strip "$TMP/streamed" "$TMP/s"
	cmp -s "$TMP/w" "$TMP/s" || {
		fail "hog $args --stream=100 differs:"
		diff -u "$TMP/w" "$TMP/s" | head -20
	}
done
# What reads a stretch whole (Perfetto) reads the stretch's blocks alone: the stretch's
# round trips, no more, no fewer.
n=$((n + 1))
"$TC" report tests/fixtures/hog.tct --from 2ms --to 5ms --format perfetto >"$TMP/pf.json"
want=$("$TC" report tests/fixtures/hog.tct --from 2ms --to 5ms | sed -n 's/.*stretch .*: \([0-9]*\) of the .*/\1/p')
got=$(python3 -c 'import json, sys
print(sum(e.get("cat") == "round_trip" for e in json.load(open(sys.argv[1]))["traceEvents"]))' "$TMP/pf.json")
[ -n "$want" ] && [ "$got" = "$want" ] || fail "the stretch's Perfetto trace: $got round trips, not $want"
n=$((n + 1))
rc=0
"$TC" report tests/fixtures/hog.tct --from 1h --stream >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" = 3 ] && grep -q 'no round trip from +3600.000 s' "$TMP/err" ||
	fail "an empty stretch: exit $rc, $(cat "$TMP/err")"

# The rule's own percentile and fewer spikes shown: still the same.
n=$((n + 1))
"$TC" report tests/fixtures/hog.tct --spike p99.9 --top 1 >"$TMP/whole"
"$TC" report tests/fixtures/hog.tct --spike p99.9 --top 1 --stream=64 >"$TMP/streamed"
strip "$TMP/whole" "$TMP/w"
strip "$TMP/streamed" "$TMP/s"
cmp -s "$TMP/w" "$TMP/s" || fail "hog --spike p99.9 --top 1 --stream=64 differs"

# A trace cut short streams to what its whole read says (up to its last whole block):
# here cut inside its END block, after the samples.
n=$((n + 1))
size=$(wc -c <tests/fixtures/hog.tct)
head -c $((size - 6)) tests/fixtures/hog.tct >"$TMP/cut.tct"
"$TC" report "$TMP/cut.tct" >"$TMP/whole" 2>/dev/null || fail "the cut trace's whole report failed"
"$TC" report "$TMP/cut.tct" --stream=100 >"$TMP/streamed" 2>/dev/null ||
	fail "the cut trace's streamed report failed"
grep -q truncated "$TMP/streamed" || fail "the cut trace's streamed report does not say truncated"
strip "$TMP/whole" "$TMP/w"
strip "$TMP/streamed" "$TMP/s"
cmp -s "$TMP/w" "$TMP/s" || fail "the cut trace streams to another report"

# Refused, one line, exit 1 (usage): what needs the whole trace.
refused() { # what, then the report's arguments
	what=$1
	shift
	n=$((n + 1))
	rc=0
	"$TC" report "$@" --stream >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" = 1 ] || fail "$what: exit $rc, not 1"
	[ "$(wc -l <"$TMP/err")" = 1 ] && grep -q 'tailcause: report .*--stream' "$TMP/err" ||
		fail "$what: not one clear line: $(cat "$TMP/err")"
}
refused perfetto tests/fixtures/hog.tct --format perfetto
refused noise tests/fixtures/command.tct
refused iterations tests/fixtures/perftest-first.tct
refused samples tests/fixtures/bench.tct --samples tests/fixtures/bench.csv
# --no-stream reads it whole (as a small trace is by default).
n=$((n + 1))
"$TC" report tests/fixtures/hog.tct --no-stream >"$TMP/out"
grep -q '^  streamed' "$TMP/out" && fail "--no-stream streamed"
n=$((n + 1))
rc=0
"$TC" report tests/fixtures/hog.tct --stream=0 >/dev/null 2>"$TMP/err" || rc=$?
[ "$rc" = 1 ] || fail "--stream=0: exit $rc, not 1"

[ "$bad" = 0 ] || {
	echo "$bad of $n stream cases failed"
	exit 1
}
echo "$n stream cases passed"
