#!/bin/sh
# Benchmark 2, per-event cost: the pipe storm (bench/storm.c: two threads pinned to one CPU
# ping-pong a byte over pipes, 2 context switches per round trip; bench/README.md)
#   untraced   storm alone
#   traced     tailcause record -o X -- storm: its threads are followed, so every switch back
#              in emits an off-CPU record (2 per round trip)
#   floor      storm alone while tailcause traces something else (record -- sleep): every
#              program is attached, the storm's switches and wake-ups are filtered out
# The storm runs on CPU A, tailcause (its drain thread) and everything else on CPU B.
# Interleaved, the order rotated each round; ns added per traced event = (traced - untraced
# ns per round trip) / records per round trip, paired by round; the median with a
# bootstrap 95 % interval over the rounds, the target judged only where it says so.
# Usage: O=BUILD_DIR top=SRC sh bench/event_cost.sh   (run.sh calls it)
set -eu
. "$top/bench/lib.sh"
RAW=$WORK/event_cost.jsonl
: >"$RAW"

N=${STORM_N:-300000}
ROUNDS=${STORM_ROUNDS:-12}
if [ "$QUICK" = 1 ]; then
	N=${STORM_N:-50000}
	ROUNDS=${STORM_ROUNDS:-3}
fi
CPU_A=${BENCH_CPU_A:-0}
CPU_B=${BENCH_CPU_B:-1}
D=$WORK/event_cost
mkdir -p "$D"
say "event cost: pipe storm, $N round trips on CPU $CPU_A, tailcause on CPU $CPU_B, $ROUNDS rounds"

storm_field() {  # FILE KEY: a key=value of the storm's line
	tr ' ' '\n' <"$1" | awk -F= -v k="$2" '$1 == k { print $2; found = 1 } END { exit !found }'
}

run_untraced() {
	taskset -c "$CPU_B" "$STORM" -c "$CPU_A" -n "$N" >"$D/out" 2>&1
	echo "0 0" >"$D/ev"
}
run_traced() {
	taskset -c "$CPU_B" "$TC" record -o "$D/t.tct" -f --no-progress -- \
		"$STORM" -c "$CPU_A" -n "$N" >"$D/out" 2>&1 || { cat "$D/out" >&2; return 1; }
	set -- $(header "$D/t.tct")
	echo "$2 $3" >"$D/ev"
}
# The floor's recording must not calibrate: its half second on two CPUs would overlap the
# storm (a traced command is calibrated before it starts, so the other configs are clean).
# A build older than the calibration has no such flag.
NOCAL=
"$TC" record --help 2>&1 | grep -q -- --no-calibrate && NOCAL=--no-calibrate
run_floor() {
	rm -f "$D/f.tct" "$D/f.tct.partial"
	taskset -c "$CPU_B" "$TC" record -o "$D/f.tct" -f --no-progress $NOCAL -- sleep 600 \
		>"$D/floor.log" 2>&1 &
	pid=$!
	BG_PIDS="$BG_PIDS $pid"
	# the .partial file appears once every program is attached
	i=0
	while [ ! -e "$D/f.tct.partial" ] && [ "$i" -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.5
	taskset -c "$CPU_B" "$STORM" -c "$CPU_A" -n "$N" >"$D/out" 2>&1
	rc=$?
	stop_bg "$pid"
	[ -e "$D/f.tct" ] || { cat "$D/floor.log" >&2; return 1; }
	set -- $(header "$D/f.tct")
	echo "$2 $3" >"$D/ev"
	return $rc
}

r=1
while [ "$r" -le "$ROUNDS" ]; do
	case $((r % 3)) in
	1) order="untraced traced floor" ;;
	2) order="traced floor untraced" ;;
	0) order="floor untraced traced" ;;
	esac
	for c in $order; do
		# not in $(...): a subshell would hide the background tracer from the cleanup
		"run_$c" || { echo "event cost: $c failed" >&2; exit 1; }
		ev=$(cat "$D/ev")
		rt=$(storm_field "$D/out" round_trips) && ns=$(storm_field "$D/out" ns_per_rt) ||
			{ echo "event cost: no storm line from $c:" >&2; cat "$D/out" >&2; exit 1; }
		set -- $ev
		say "round $r $c: $ns ns per round trip, $1 events, $2 drops"
		jrow "{\"round\": $r, \"config\": \"$c\", \"round_trips\": $rt, \"ns_per_rt\": $ns,\
 \"events\": $1, \"drops\": $2}"
	done
	r=$((r + 1))
done

# Where the time goes: one more traced run with kernel.bpf_stats_enabled, which times every
# BPF program run (it adds its own ~20 ns a run, so this run is not in the figures above).
# The programs' counters are read while the command still sleeps, before they unload.
old=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)
if sysctl -qw kernel.bpf_stats_enabled=1 2>/dev/null; then
	rm -f "$D/done"
	bpftool prog show -j >"$D/progs_before.json" 2>/dev/null || echo '[]' >"$D/progs_before.json"
	taskset -c "$CPU_B" "$TC" record -o "$D/s.tct" -f --no-progress -- sh -c \
		"$STORM -c $CPU_A -n $N >$D/out 2>&1; touch $D/done; sleep 5" >"$D/stats.log" 2>&1 &
	pid=$!
	BG_PIDS="$BG_PIDS $pid"
	i=0
	while [ ! -e "$D/done" ] && [ "$i" -lt 1200 ] && kill -0 "$pid" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	bpftool prog show -j >"$D/progs.json" 2>/dev/null || echo '[]' >"$D/progs.json"
	sysctl -qw kernel.bpf_stats_enabled="$old"
	stop_bg "$pid"
	set -- $(header "$D/s.tct")
	python3 - "$D/progs_before.json" "$D/progs.json" "$(storm_field "$D/out" round_trips)" "$2" \
		>>"$RAW" <<'PY'
import json, sys
before = {p["id"] for p in json.load(open(sys.argv[1]))}
progs, rts, events = json.load(open(sys.argv[2])), int(sys.argv[3]), int(sys.argv[4])
# this run's programs: loaded after the snapshot, named tc_*
mine = [p for p in progs if p["id"] not in before and p.get("name", "").startswith("tc_")]
print(json.dumps({"round": 0, "config": "bpf_stats", "round_trips": rts, "events": events,
                  "progs": {p["name"]: [p.get("run_cnt", 0), p.get("run_time_ns", 0)]
                            for p in mine if p.get("run_cnt")}}))
PY
fi
summarize event_cost
