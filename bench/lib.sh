# bench/lib.sh - what the benchmark scripts share; sourced, not run.
# Expects O (the build directory, absolute) and top (the source tree) to be set.
# shellcheck shell=sh

TC=$O/tailcause
STORM=$O/bench/storm
GEN=$O/bench/gen_trace
WORK=$O/bench/work
QUICK=${BENCH_QUICK:-0}
# a smoke run (BENCH_QUICK=1) keeps the real figures in bench/results untouched
RES=$top/bench/results
[ "$QUICK" = 1 ] && RES=$WORK/results-quick
mkdir -p "$RES" "$WORK"

# Background processes this script started, killed on exit (by pid, never by name).
BG_PIDS=""
bench_cleanup() {
	for p in $BG_PIDS; do
		kill -INT "$p" 2>/dev/null || :
	done
	sleep 0.5
	for p in $BG_PIDS; do
		kill -KILL "$p" 2>/dev/null || :
	done
}
trap bench_cleanup EXIT
trap 'exit 130' INT TERM

# say TEXT: a progress line on stderr (the tables go to stdout)
say() { printf '  .. %s\n' "$*" >&2; }

# jrow JSON: appends one run to the benchmark's raw file
jrow() { printf '%s\n' "$1" >>"$RAW"; }

# stats FILE: "min max typical avg p99 p999 p9999" in ns one way from a perftest-style
# table (tailcause lat / report print usec with 3 decimals: 1 ns resolution)
stats() {
	awk '/t_typical\[usec\]/ { getline
		v = sprintf("%.0f %.0f %.0f %.0f %.0f %.0f", $3 * 1000, $4 * 1000, $5 * 1000,
			$6 * 1000, $8 * 1000, $9 * 1000); getline
		printf "%s %.0f\n", v, $2 * 1000; found = 1; exit }
		END { if (!found) exit 1 }' "$1"
}

# header FILE: "samples events drops" from `tailcause dump` of a trace
header() {
	"$TC" dump "$1" 2>/dev/null | awk 'NR == 1 { print $3, $5, $11; exit }'
}

# wait_for FILE PATTERN SECONDS [PID]: until FILE contains PATTERN (extended regex);
# 1 on timeout or when process PID is gone
wait_for() {
	i=0
	while [ "$i" -lt $(($3 * 10)) ]; do
		grep -Eq "$2" "$1" 2>/dev/null && return 0
		[ -z "${4:-}" ] || kill -0 "$4" 2>/dev/null || return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# stop_bg PID: SIGINT, then wait for it (it writes its data on the way out)
stop_bg() {
	kill -INT "$1" 2>/dev/null || :
	wait "$1" 2>/dev/null || :
	BG_PIDS=$(echo "$BG_PIDS" | tr ' ' '\n' | grep -vx "$1" | tr '\n' ' ')
}

# tracepoints: the tracepoints tailcause attaches on this kernel, as sys:name, one a line
# (from `tailcause probes`; the subsystem looked up in tracefs)
tracepoints() {
	"$TC" probes 2>/dev/null | awk '$3 == "attached" { print $4 }' |
		while IFS=/ read -r kind a b; do
			case $kind in
			tp) echo "$a:$b" ;;
			tp_btf | raw_tp)
				d=$(ls -d /sys/kernel/tracing/events/*/"$a" 2>/dev/null | head -1)
				[ -n "$d" ] && echo "$(basename "$(dirname "$d")"):$a" ;;
			esac
		done
}

# summarize NAME: prints the benchmark's table and writes bench/results/NAME.json
summarize() {
	python3 "$top/bench/summarize.py" "$1" "$RAW" "$RES/$1.json"
}

# tracecmd_preload: "LD_PRELOAD=<shim>" where trace-cmd would die on a kernel that refuses
# writes to /proc/sys/kernel/ftrace_enabled (see ftrace_shim.c), else nothing
tracecmd_preload() {
	if ! (echo 1 >/proc/sys/kernel/ftrace_enabled) 2>/dev/null; then
		echo "LD_PRELOAD=$O/bench/ftrace_shim.so"
	fi
}
