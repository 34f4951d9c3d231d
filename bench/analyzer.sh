#!/bin/sh
# Benchmark 4, analyzer: `tailcause report FILE` (read, check, inflate, decode, sort,
# attribute, print) on one core (taskset), timed with /usr/bin/time -v:
#   synthetic-10M / -50M  bench/gen_trace.c: that many events and as many samples, a
#                         verbs-like probe with ~1 % spikes each with its cause, kinds
#                         mixed like a real recording (see gen_trace.c); cached in
#                         BUILD_DIR/bench/work until gen_trace changes; each read whole
#                         (--no-stream) and a segment at a time (--stream), the same report
#   synthetic-1B          with ANALYZER_BILLION=1: a billion samples and 100 M events,
#                         streamed (~3 min to generate, 3.3 GB, ~3 min to report)
#   recorded-storm        the largest trace of the throughput benchmark (page faults of a
#                         followed command: events, no samples)
#   recorded-probe        the shm probe recorded by the disturbance benchmark (samples, few
#                         events)
# Events/s = events in the trace / wall time; records/s counts samples too; peak RSS per
# event and per record. The target (>= 10 M events/s) is judged on the read `report` makes
# by itself (a file of 64 MiB or more a segment at a time); the other read is listed.
# Usage: O=BUILD_DIR top=SRC sh bench/analyzer.sh   (run.sh calls it)
set -eu
. "$top/bench/lib.sh"
RAW=$WORK/analyzer.jsonl
: >"$RAW"

SIZES=${ANALYZER_SIZES:-"10000000 50000000"}
RUNS=${ANALYZER_RUNS:-3}
if [ "$QUICK" = 1 ]; then
	SIZES=${ANALYZER_SIZES:-"1000000 3000000"}
	RUNS=${ANALYZER_RUNS:-2}
fi
CPU=${BENCH_CPU_B:-1}
D=$WORK/analyzer
mkdir -p "$D"

counts() {  # FILE: "samples events drops" of what gen_trace just wrote, beside it
	sed -n 's/^gen_trace events=\([0-9]*\) samples=\([0-9]*\) .*/\2 \1 0/p' "$D/gen" >"$1.counts"
}

name_of() {  # 10000000 -> 10M
	if [ $(($1 % 1000000)) = 0 ]; then echo "$(($1 / 1000000))M"; else echo "$1"; fi
}

run_report() {  # NAME FILE RUNS [ENV=VALUE [REPORT OPTION]]
	# a synthetic trace's counts come from gen_trace (a dump would read it whole)
	if [ -f "$2.counts" ]; then
		set -- "$1" "$2" "$3" "${4:-BENCH=1}" "${5:---no-stream}" $(cat "$2.counts")
	else
		set -- "$1" "$2" "$3" "${4:-BENCH=1}" "${5:---no-stream}" $(header "$2")
	fi
	name=$1 f=$2 runs=$3 envv=$4 mode=$5 samples=$6 events=$7
	i=1
	while [ "$i" -le "$runs" ]; do
		/usr/bin/time -v -o "$D/time" env "$envv" taskset -c "$CPU" "$TC" report "$f" "$mode" \
			>"$D/report" 2>&1 ||
			{ echo "analyzer: report $f failed:" >&2; tail "$D/report" >&2; return 1; }
		wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0
			for (k = 1; k <= n; k++) s = s * 60 + p[k]; print s }' "$D/time")
		user=$(awk -F': ' '/User time/ { print $2 }' "$D/time")
		sys=$(awk -F': ' '/System time/ { print $2 }' "$D/time")
		rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$D/time")
		say "$name run $i: $events events, $samples samples, ${wall} s, max RSS $rss KiB"
		jrow "{\"trace\": \"$name\", \"events\": $events, \"samples\": $samples,\
 \"bytes\": $(stat -c %s "$f"), \"wall_s\": $wall, \"user_s\": $user, \"sys_s\": $sys,\
 \"maxrss_kb\": $rss}"
		i=$((i + 1))
	done
}

for n in $SIZES; do
	f=$WORK/synthetic-$(name_of "$n").tct
	if [ ! -f "$f" ] || [ "$GEN" -nt "$f" ]; then
		say "generating $f"
		"$GEN" -o "$f.tmp" -e "$n" >"$D/gen" && mv "$f.tmp" "$f"
		counts "$f"
	fi
	run_report "synthetic-$(name_of "$n")" "$f" "$RUNS"
	cp "$D/report" "$D/whole.txt"
	run_report "synthetic-$(name_of "$n")+streamed" "$f" "$RUNS" BENCH=1 --stream
	# the same report, but for the line that says it was streamed
	grep -v '^  streamed    ' "$D/report" | cmp -s - "$D/whole.txt" ||
		{ echo "analyzer: the streamed report of $f differs from the whole one" >&2; exit 1; }
	last=$f
done
if [ "${ANALYZER_BILLION:-0}" = 1 ]; then
	f=$WORK/synthetic-1B.tct
	if [ ! -f "$f" ] || [ "$GEN" -nt "$f" ]; then
		say "generating $f (a billion samples)"
		"$GEN" -o "$f.tmp" -e 100000000 -s 1000000000 >"$D/gen" && mv "$f.tmp" "$f"
		counts "$f"
	fi
	run_report synthetic-1B+streamed "$f" 1 BENCH=1 --stream
fi
# Diagnostic, not a target: the same largest trace with glibc asked to back large
# allocations with transparent huge pages (THP is "madvise" on many hosts). On a VM where
# a first touch of a 4K page is dear, this shows what the page faults cost.
run_report "synthetic-$(name_of "$n")+thp-malloc" "$last" 1 GLIBC_TUNABLES=glibc.malloc.hugetlb=1
[ -f "$WORK/recorded_storm.tct" ] && run_report recorded-storm "$WORK/recorded_storm.tct" "$RUNS"
[ -f "$WORK/disturbance/t.tct" ] && run_report recorded-probe "$WORK/disturbance/t.tct" "$RUNS"
summarize analyzer
