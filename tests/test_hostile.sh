#!/bin/sh
# Hostile input files, no root: a few bytes each that announce sizes or counts far beyond
# what they hold (tests/make_hostile.py writes them: the 288-byte trace of sixteen empty
# 60 MiB SAMPLES blocks, a comm table and an INDEX of millions of entries in a few hundred
# KiB, 770 KB of one-member JSON objects, JSON nested a million deep, a CSV and a -U
# log of numbers beyond any count), and devices for files (/dev/zero). Each command that
# reads one refuses it with exit 3, within 60 s, and peaks at no more than 64 MiB above
# what the same build takes to report a small valid trace: the sanitizer build's shadow
# and allocator count on both sides, and in a plain build the limit is below the 128 MiB
# a report of the 288-byte file may take.
# Usage: tests/test_hostile.sh BUILD_DIR
set -eu
O=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
TC=$(cd "$O" && pwd)/tailcause
cd "$top"
command -v python3 >/dev/null || { echo "skipped: no python3 (it writes the files, measures the RSS)"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
F=tests/fixtures
bad=0 n=0

# peak LIMIT CMD...: "RSS_KIB EXIT" of CMD, its peak resident set (its own, as a child);
# killed where it passes LIMIT KiB (0: none) or runs 60 s (exit "killed", "timeout"), so
# that a regression fails fast and leaves the machine its memory
peak() {
	python3 - "$@" <<'EOF'
import resource, subprocess, sys, time
limit, cmd = int(sys.argv[1]), sys.argv[2:]
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
start, rc = time.monotonic(), None
while rc is None:
    try:
        rc = p.wait(timeout=0.02)
    except subprocess.TimeoutExpired:
        try:
            with open("/proc/%d/status" % p.pid) as f:
                rss = [int(l.split()[1]) for l in f if l.startswith("VmRSS:")][0]
        except (OSError, IndexError):
            continue
        if limit and rss > limit or time.monotonic() - start > 60:
            p.kill()
            p.wait()
            rc = "killed" if limit and rss > limit else "timeout"
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, rc)
EOF
}

python3 tests/make_hostile.py "$TMP"
[ "$(wc -c <"$TMP/trace-288.tct")" = 288 ] || { echo "FAILED: the 288-byte trace is not"; exit 1; }
set -- $(peak 0 "$TC" report "$F/probe-2k-v3.tct")
[ "$2" = 0 ] || { echo "FAILED: the report of $F/probe-2k-v3.tct exited $2"; exit 1; }
base=$1
limit=$((base + 65536))
echo "a small valid trace's report: $base KiB; the limit: $limit KiB"

# refused WHAT CMD...: CMD exits 3 within the limit
refused() {
	what=$1
	shift
	n=$((n + 1))
	set -- $(peak "$limit" "$@")
	if [ "$2" = killed ] || [ "$1" -gt "$limit" ]; then
		echo "FAILED: $what: $1 KiB, above $limit (exit: $2)"
		bad=$((bad + 1))
	elif [ "$2" != 3 ]; then
		echo "FAILED: $what: exit $2 (want 3), $1 KiB"
		bad=$((bad + 1))
	else
		echo "ok: $what: $1 KiB"
	fi
}

for t in trace-288 trace-48 trace-comms; do
	refused "report $t" "$TC" report "$TMP/$t.tct"
	refused "report --stream $t" "$TC" report "$TMP/$t.tct" --stream
done
refused "dump trace-288" "$TC" dump "$TMP/trace-288.tct"
refused "diff trace-288" "$TC" diff "$TMP/trace-288.tct" "$F/hog.tct"
refused "report --peer trace-288" "$TC" report "$F/probe-2k-v3.tct" --peer "$TMP/trace-288.tct"
refused "top trace-288" "$TC" top "$TMP/trace-288.tct"
refused "report --stream trace-index" "$TC" report "$TMP/trace-index.tct" --stream
refused "report /dev/zero" "$TC" report /dev/zero
"$TC" report "$F/hog.tct" --format json >"$TMP/hog.json"
refused "diff objects.json" "$TC" diff "$TMP/objects.json" "$TMP/hog.json"
refused "diff deep.json" "$TC" diff "$TMP/deep.json" "$TMP/hog.json"
refused "report --samples huge.csv" "$TC" report "$F/bench.tct" --samples "$TMP/huge.csv"
refused "report --samples /dev/zero" "$TC" report "$F/bench.tct" --samples /dev/zero
refused "report --iter-log huge.U" "$TC" report "$F/perftest-first.tct" --iter-log "$TMP/huge.U"
refused "report --iter-log /dev/zero" "$TC" report "$F/perftest-first.tct" --iter-log /dev/zero

[ "$bad" = 0 ] || { echo "$bad of $n hostile inputs not refused in bounds"; exit 1; }
echo "$n hostile inputs refused, each within $limit KiB"
