#!/bin/sh
# Benchmark 5, trace size: one workload, the pipe storm on CPU A (N round trips, 2 context
# switches and ~2 wake-ups each), recorded by each tool for the storm's threads only, with
# the tracepoints tailcause attaches:
#   tailcause   tailcause record -o F -- storm            (.tct: interval records, zstd)
#   perf        perf record -e TP... -m 16M -o F -- storm  (perf.data, per-task)
#   trace-cmd   trace-cmd record -e TP... -b 65536 -F -c -o F storm   (trace.dat v7,
#               compressed as trace-cmd 3 does by default)
# Buffers are large enough that nothing is lost, so each file holds the whole run.
# Events counted in each file (dump header, perf script, trace-cmd report); bytes per
# event in the file, and bytes per storm round trip (the same work for every tool:
# tailcause writes one record per off-CPU interval where the others write the raw
# switch and wake-up events). Then each tool's reader on the same events, on CPU B, the
# median of 3 runs: `tailcause report` (decode and attribute) and `tailcause dump` (decode
# and print each record), `perf script`, `trace-cmd report` (each printing every event).
# Usage: O=BUILD_DIR top=SRC sh bench/trace_size.sh   (run.sh calls it)
set -eu
. "$top/bench/lib.sh"
RAW=$WORK/trace_size.jsonl
: >"$RAW"

N=${SIZE_N:-200000}
[ "$QUICK" = 1 ] && N=${SIZE_N:-30000}
CPU_A=${BENCH_CPU_A:-0}
CPU_B=${BENCH_CPU_B:-1}
D=$WORK/trace_size
mkdir -p "$D"
tracepoints >"$D/tracepoints"
# perf may not sample irq_vectors:irq_work_exit (see disturbance.sh)
PERF_EV=$(grep -vx 'irq_vectors:irq_work_exit' "$D/tracepoints" | sed 's/^/-e /' | tr '\n' ' ')
TCMD_EV=$(sed 's/^/-e /' "$D/tracepoints" | tr '\n' ' ')
TCMD_PRELOAD=$(tracecmd_preload)
say "trace size: pipe storm, $N round trips on CPU $CPU_A, tools on CPU $CPU_B"

rt() { tr ' ' '\n' <"$D/out" | awk -F= '$1 == "round_trips" { print $2 }'; }
# read_s CMD...: the median wall time of 3 runs of CMD on CPU B, its output thrown away
read_s() {
	for _ in 1 2 3; do
		/usr/bin/time -f %e -o "$D/rtime" taskset -c "$CPU_B" "$@" >/dev/null 2>&1 ||
			{ echo "trace size: $* failed" >&2; exit 1; }
		cat "$D/rtime"
	done | sort -n | sed -n 2p
}
row() {  # TOOL FILE EVENTS NOTE READ_S [DUMP_S]
	b=$(stat -c %s "$2")
	say "$1: $b bytes, $3 events, $(rt) round trips, read in $5 s${6:+ (dump $6 s)}"
	jrow "{\"tool\": \"$1\", \"bytes\": $b, \"events\": $3, \"round_trips\": $(rt), \"note\": \"$4\",\
 \"read_s\": $5${6:+, \"dump_s\": $6}}"
}

rm -f "$D"/t.tct "$D"/perf.data "$D"/trace.dat*
taskset -c "$CPU_B" "$TC" record -o "$D/t.tct" -f --no-progress -- \
	"$STORM" -c "$CPU_A" -n "$N" >"$D/out" 2>&1 || { cat "$D/out" >&2; exit 1; }
set -- $(header "$D/t.tct")
row tailcause "$D/t.tct" "$2" "interval records, drops $3" "$(read_s "$TC" report "$D/t.tct")" \
	"$(read_s "$TC" dump "$D/t.tct")"

# shellcheck disable=SC2086
taskset -c "$CPU_B" perf record $PERF_EV -m 16M -o "$D/perf.data" -- \
	"$STORM" -c "$CPU_A" -n "$N" >"$D/out" 2>"$D/perf.log" || { cat "$D/perf.log" >&2; exit 1; }
ev=$(perf script -i "$D/perf.data" 2>/dev/null | wc -l)
lost=$(perf report -i "$D/perf.data" --stats 2>/dev/null | awk '/LOST_SAMPLES events:/ { s += $3 } END { print s + 0 }')
row perf "$D/perf.data" "$ev" "raw tracepoints, lost $lost" \
	"$(read_s perf script -i "$D/perf.data")"

# shellcheck disable=SC2086
env $TCMD_PRELOAD taskset -c "$CPU_B" trace-cmd record $TCMD_EV -b 65536 -F -c \
	-o "$D/trace.dat" "$STORM" -c "$CPU_A" -n "$N" >"$D/tcmd.log" 2>&1 ||
	{ cat "$D/tcmd.log" >&2; exit 1; }
grep '^storm ' "$D/tcmd.log" >"$D/out"
ev=$(trace-cmd report -i "$D/trace.dat" 2>/dev/null | grep -cE '^ *.+ \[[0-9]+\] ' || :)
over=$(trace-cmd report -i "$D/trace.dat" --stat 2>/dev/null | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
row trace-cmd "$D/trace.dat" "$ev" "raw tracepoints, overrun $over" \
	"$(read_s trace-cmd report -i "$D/trace.dat")"
summarize trace_size
