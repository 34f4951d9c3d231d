#!/bin/sh
# Benchmark 3, recorder throughput: how many records per second the recorder writes to a
# trace file with zero ring-buffer drops. The source is the page-fault storm
# (bench/storm.c -m fault: one user page fault, i.e. one TC_EV_PAGE_FAULT record, per page
# read; the cheapest traced event this machine can raise from user space), followed by
# `tailcause record -- storm`, default ring (16M) and drain interval (200 ms):
#   untraced      the storm alone: how fast this machine takes page faults at all
#   rate-R        the storm paced to R faults/s on CPU A, tailcause on CPU B
#   max-1cpu      unpaced on CPU A, tailcause on CPU B
#   max-2cpu      two unpaced storms, one per CPU, tailcause wherever the scheduler puts
#                 it: the highest rate this machine raises, and the drain thread must
#                 win CPU time from the storms
#   max-2cpu-64M-50ms   the same with --ringbuf 64M --drain-ms 50
#   overload      max-1cpu with everything on CPU A and a 64K ring: the drain thread
#                 cannot keep up, drops must be counted in the trace and reported
# Records/s = records in the trace / the storm's running time. The recorder's CPU time
# (GNU time of tailcause less its storms' getrusage and less the set-up cost of a
# `record -- true`) gives its capacity: records per second of its own CPU time.
# Usage: O=BUILD_DIR top=SRC sh bench/throughput.sh   (run.sh calls it)
set -eu
. "$top/bench/lib.sh"
RAW=$WORK/throughput.jsonl
: >"$RAW"

SECS=${TPUT_SECS:-3}
RATES=${TPUT_RATES:-"100000 200000 300000 400000 600000 800000 1000000"}
if [ "$QUICK" = 1 ]; then
	SECS=${TPUT_SECS:-1}
	RATES=${TPUT_RATES:-"100000 400000"}
fi
CPU_A=${BENCH_CPU_A:-0}
CPU_B=${BENCH_CPU_B:-1}
D=$WORK/throughput
mkdir -p "$D"
say "throughput: page-fault storm, $SECS s per run, rates: $RATES, max"

field() {  # FILE KEY: sum of KEY=value over the storm lines in FILE
	tr ' ' '\n' <"$1" | awk -F= -v k="$2" '$1 == k { s += $2; n++ } END { if (!n) exit 1; print s }'
}

# cpu_of FILE: user + system seconds that /usr/bin/time -f '%U %S' wrote to FILE
cpu_of() { awk 'END { print $1 + $2 }' "$1"; }

# record KIND CONFIG TARGET RINGBUF DRAIN_MS TASKSET_CPU STORM_CMD...
record() {
	kind=$1 cfg=$2 target=$3 ring=$4 drain=$5 cpu=$6
	shift 6
	rm -f "$D/t.tct"
	rc=0
	/usr/bin/time -f '%U %S' -o "$D/time" taskset -c "$cpu" "$TC" record -o "$D/t.tct" -f \
		--no-progress --ringbuf "$ring" --drain-ms "$drain" -- "$@" >"$D/out" 2>&1 || rc=$?
	[ "$rc" = 0 ] && [ -f "$D/t.tct" ] ||
		{ echo "throughput: $cfg: record failed ($rc):" >&2; cat "$D/out" >&2; return 1; }
	set -- $(header "$D/t.tct")
	events=$2 drops=$3
	# the slowest storm's time (max-2cpu runs two): elapsed is per storm, take the longest
	el=$(tr ' ' '\n' <"$D/out" | awk -F= '$1 == "elapsed_ns" && $2 > m { m = $2 } END { print m + 0 }')
	faults=$(field "$D/out" round_trips) || faults=0
	# the recorder's CPU for these records: its whole CPU time (children included, as
	# time counts them), less the storms' own (their getrusage) and the set-up (BASE_CPU)
	drain_ns=$(awk -v t="$(cpu_of "$D/time")" -v s="$(field "$D/out" cpu_ns)" -v b="$BASE_CPU" \
		'BEGIN { v = (t - b) * 1e9 - s; printf "%.0f\n", (v > 0 ? v : 0) }')
	rep=ok
	if ! "$TC" report "$D/t.tct" >"$D/report" 2>&1; then
		rep="failed ($?)"
	elif [ "$drops" != 0 ]; then
		lost=$(grep -Eo '[0-9]+ lost to ring-buffer overrun' "$D/report" | cut -d' ' -f1)
		rep="ok, says ${lost:-NOTHING} lost"
	fi
	say "$cfg: $events records, $drops drops, $faults faults in $el ns, recorder $drain_ns ns CPU," \
		"report $rep"
	jrow "{\"kind\": \"$kind\", \"config\": \"$cfg\", \"target\": $target, \"events\": $events,\
 \"drops\": $drops, \"faults\": $faults, \"elapsed_ns\": $el,\
 \"drain_cpu_s\": $(awk -v n="$drain_ns" 'BEGIN { print n / 1e9 }'),\
 \"ringbuf\": $(size_bytes "$ring"), \"drain_ms\": $drain, \"report\": \"$rep\"}"
	# the largest trace is the analyzer benchmark's recorded trace
	if [ "$drops" = 0 ] && [ "$events" -gt "$(cat "$D/best_events" 2>/dev/null || echo 0)" ]; then
		mv "$D/t.tct" "$WORK/recorded_storm.tct"
		echo "$events" >"$D/best_events"
	fi
}

size_bytes() {  # 16M / 64K -> bytes
	case $1 in
	*K) echo $((${1%K} * 1024)) ;;
	*M) echo $((${1%M} * 1048576)) ;;
	*) echo "$1" ;;
	esac
}

rm -f "$D/best_events"
# the recorder's set-up and tear-down CPU (BPF load and verification, host facts, audit):
# the median of 3 records of a command that does nothing
for i in 1 2 3; do
	/usr/bin/time -f '%U %S' -o "$D/time" "$TC" record -o "$D/t.tct" -f --no-progress -- true \
		>"$D/out" 2>&1
	cpu_of "$D/time"
done | sort -n | sed -n 2p >"$D/base"
BASE_CPU=$(cat "$D/base")
say "recorder set-up: $BASE_CPU s CPU"
# untraced: the machine's own fault rate
taskset -c "$CPU_B" "$STORM" -m fault -c "$CPU_A" -d "$SECS" >"$D/out" 2>&1
say "untraced: $(cat "$D/out")"
jrow "{\"kind\": \"untraced\", \"config\": \"untraced\", \"target\": 0,\
 \"events\": $(field "$D/out" round_trips), \"drops\": 0, \"faults\": $(field "$D/out" round_trips),\
 \"elapsed_ns\": $(field "$D/out" elapsed_ns), \"drain_cpu_s\": 0, \"ringbuf\": 0, \"drain_ms\": 0,\
 \"report\": \"-\"}"

for r in $RATES; do
	record ladder "rate-$r" "$r" 16M 200 "$CPU_B" "$STORM" -m fault -c "$CPU_A" -r "$r" -d "$SECS"
done
record ladder max-1cpu 0 16M 200 "$CPU_B" "$STORM" -m fault -c "$CPU_A" -d "$SECS"
record ladder max-2cpu 0 16M 200 "$CPU_A,$CPU_B" sh -c \
	"$STORM -m fault -c $CPU_A -d $SECS & $STORM -m fault -c $CPU_B -d $SECS; wait"
# the same with a 4x ring and a 4x shorter drain interval: what tuning buys when the storms
# starve the drain thread
record ladder max-2cpu-64M-50ms 0 64M 50 "$CPU_A,$CPU_B" sh -c \
	"$STORM -m fault -c $CPU_A -d $SECS & $STORM -m fault -c $CPU_B -d $SECS; wait"
record overload overload-64K 0 64K 200 "$CPU_A" "$STORM" -m fault -c "$CPU_A" -d "$SECS"
summarize throughput
