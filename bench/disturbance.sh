#!/bin/sh
# Benchmark 1, probe disturbance: the shm probe (`tailcause lat`) untraced, traced by
# tailcause (record + report, every tracer on, default ring and drain interval), and run
# while perf record, a bpftrace script printing each event and trace-cmd record record the
# same tracepoints system-wide. Many short rounds, each running every configuration once
# in an order rotated round by round; every run counts. Per percentile, the ratio of each
# configuration to the untraced run of its round, and of tailcause to each peer, with a
# bootstrap 95 % interval over the rounds: "less disturbance than X" only where the
# interval says so (bench/summarize.py).
# Usage: O=BUILD_DIR top=SRC sh bench/disturbance.sh   (run.sh calls it)
set -eu
. "$top/bench/lib.sh"
RAW=$WORK/disturbance.jsonl
: >"$RAW"

N=${DISTURB_N:-1000000}
ROUNDS=${DISTURB_ROUNDS:-12}
SETTLE=2
if [ "$QUICK" = 1 ]; then
	N=${DISTURB_N:-300000}
	ROUNDS=${DISTURB_ROUNDS:-4}
	SETTLE=1
fi
CPUS=${BENCH_CPUS:-0,1}
D=$WORK/disturbance
mkdir -p "$D"

# perf and bpftrace may not open irq_vectors:irq_work_exit: the kernel forbids sampling it
# (TRACE_EVENT_PERF_PERM: a sample would raise irq_work, an endless loop); trace-cmd records it.
tracepoints >"$D/tracepoints"
grep -vx 'irq_vectors:irq_work_exit' "$D/tracepoints" >"$D/tracepoints.perf"
PERF_EV=$(sed 's/^/-e /' "$D/tracepoints.perf" | tr '\n' ' ')
TCMD_EV=$(sed 's/^/-e /' "$D/tracepoints" | tr '\n' ' ')
{
	printf '%s\n' 'BEGIN { printf("ready\n"); }'
	while read -r tp; do
		printf 'tracepoint:%s { printf("%%llu %%d %%d %%s\\n", nsecs, cpu, tid, probe); }\n' "$tp"
	done <"$D/tracepoints.perf"
} >"$D/events.bt"
say "disturbance: $N round trips on CPUs $CPUS, $ROUNDS rounds," \
	"$(wc -l <"$D/tracepoints") tracepoints"

lat() { "$TC" lat --probe shm -n "$N" --cpu "$CPUS" >"$D/out" 2>&1; }

# A tracer started in the background (output in LOG), ready once READY (a regex) is in
# WATCH; then lat runs, and the tracer is stopped with SIGINT and waited for.
with_tracer() {  # LOG WATCH READY CMD...
	log=$1 watch=$2 ready=$3
	shift 3
	"$@" >"$log" 2>&1 &
	pid=$!
	BG_PIDS="$BG_PIDS $pid"
	if ! wait_for "$watch" "$ready" 120 "$pid"; then
		echo "disturbance: $1 did not start:" >&2
		cat "$log" >&2
		stop_bg "$pid"
		return 1
	fi
	sleep "$SETTLE"	# let the tracer settle (perf: synthesizing the running tasks; first buffers)
	lat
	rc=$?
	stop_bg "$pid"
	return $rc
}

run_untraced() { lat && echo 0 >"$D/ev"; }
run_tailcause() {
	"$TC" record -o "$D/t.tct" -f --no-progress --probe shm -n "$N" --cpu "$CPUS" >"$D/rec" 2>&1 &&
		"$TC" report "$D/t.tct" >"$D/out" 2>&1 || { cat "$D/rec" "$D/out" >&2; return 1; }
	set -- $(header "$D/t.tct")
	echo "$2 $3" >"$D/ev"
}
run_perf() {
	rm -f "$D/perf.data"
	# shellcheck disable=SC2086
	with_tracer "$D/perf.log" "$D/perf.log" started \
		sh -c "echo started; exec perf record -a $PERF_EV -o $D/perf.data" || return 1
	awk '/samples\)/ { gsub(/[()]/, ""); for (i = 1; i <= NF; i++) if ($i == "samples") n = $(i - 1) }
		END { print n + 0 }' "$D/perf.log" >"$D/ev"
}
run_bpftrace() {
	rm -f "$D/bt.out"
	with_tracer "$D/bt.log" "$D/bt.out" '^ready' bpftrace -o "$D/bt.out" "$D/events.bt" ||
		return 1
	echo $(($(wc -l <"$D/bt.out") - 2)) >"$D/ev"
}
run_tracecmd() {
	rm -f "$D/trace.dat"
	# shellcheck disable=SC2086
	with_tracer "$D/tcmd.log" "$D/tcmd.log" 'Hit Ctrl' env $TCMD_PRELOAD stdbuf -oL \
		trace-cmd record $TCMD_EV -o "$D/trace.dat" || return 1
	trace-cmd report -i "$D/trace.dat" 2>/dev/null | grep -cE '^ *.+ \[[0-9]+\] ' >"$D/ev" || :
}

TCMD_PRELOAD=$(tracecmd_preload)

# One run of configuration $1: its statistics become one row (seq: running number).
seq=0
run_one() {
	c=$1
	t0=$(date +%s)
	# not in $(...): a subshell would hide the background tracer from the cleanup
	case $c in
	untraced) run_untraced ;;
	tailcause) run_tailcause ;;
	perf) run_perf ;;
	bpftrace) run_bpftrace ;;
	trace-cmd) run_tracecmd ;;
	esac || { echo "disturbance: $c failed" >&2; cat "$D/out" >&2; exit 1; }
	ev=$(cat "$D/ev")
	s=$(stats "$D/out") || { echo "disturbance: no statistics from $c:" >&2; cat "$D/out" >&2; exit 1; }
	seq=$((seq + 1))
	set -- $s $ev
	say "round $r $c: p50 $3 p99 $5 p99.9 $6 p99.99 $7 avg $4 ns, events ${8:-0}" \
		"($(($(date +%s) - t0)) s)"
	jrow "{\"seq\": $seq, \"round\": $r, \"config\": \"$c\", \"n\": $N, \"min_ns\": $1,\
 \"max_ns\": $2, \"p50_ns\": $3, \"avg_ns\": $4, \"p99_ns\": $5, \"p999_ns\": $6,\
 \"p9999_ns\": $7, \"events\": ${8:-0}, \"drops\": ${9:-0}}"
}

# The host moves this VM's vCPUs now and then, and the probe's p50 jumps between modes
# for tens of seconds, whatever runs: short rounds, each of every configuration, keep the
# runs of one round close in time, and the rotation spreads each over the round's slots.
CONFIGS="untraced tailcause perf bpftrace trace-cmd"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	set -- $CONFIGS
	k=$(((r - 1) % $#))
	for c in $(echo $CONFIGS $CONFIGS | cut -d' ' -f$((k + 1))-$((k + $#))); do
		run_one "$c"
	done
	r=$((r + 1))
done
summarize disturbance
