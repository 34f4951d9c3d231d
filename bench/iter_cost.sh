#!/bin/sh
# Benchmark 6, what record --iter costs a benchmark: Debian's sockperf ping-pong over
# loopback (server and client pinned apart), untraced, recorded by `record -- CMD` (every
# tracer, no markers) and by `record --iter sockperf -- CMD` (the same, and the
# iteration markers: sendto's and recvfrom's tracepoints). Runs interleave, U T U M U T ...,
# each traced run compared with the mean of the untraced runs around it (sockperf's own
# p50 and p99.9, one way); median and spread over the rounds. Also the markers' cost as
# the recorder measured it before each marked run (the report's header).
# Usage: O=BUILD_DIR top=SRC sh bench/iter_cost.sh   (run.sh calls it)
set -eu
. "$top/bench/lib.sh"
RAW=$WORK/iter_cost.jsonl
: >"$RAW"
command -v sockperf >/dev/null || { echo "iter_cost: sockperf missing (scripts/deps.sh)" >&2; exit 2; }

ROUNDS=${ITER_ROUNDS:-7}
SECS=${ITER_SECS:-3}
if [ "$QUICK" = 1 ]; then
	ROUNDS=${ITER_ROUNDS:-2}
	SECS=${ITER_SECS:-1}
fi
D=$WORK/iter_cost
mkdir -p "$D"
PORT=$((17500 + $$ % 400))
taskset -c 0 sockperf server -i 127.0.0.1 -p "$PORT" >"$D/server.log" 2>&1 &
SRV=$!
BG_PIDS="$BG_PIDS $SRV"
sleep 1
say "iter_cost: sockperf ping-pong -t $SECS on CPU 1 (server on CPU 0), $ROUNDS rounds"

client() { taskset -c 1 sockperf ping-pong -i 127.0.0.1 -p "$PORT" -t "$SECS"; }
# p50 p99.9 (us, one way) from sockperf's output
pcts() {
	awk '/percentile 50.000 =/ { p50 = $NF } /percentile 99.900 =/ { p999 = $NF }
		END { if (p50 == "") exit 1; print p50, p999 }' "$1"
}
seq=0
run_one() {  # the configuration is $c
	case $c in
	untraced) client >"$D/out" 2>&1 ;;
	traced) "$TC" record -o "$D/t.tct" -f --no-progress -- sh -c \
		"taskset -c 1 sockperf ping-pong -i 127.0.0.1 -p $PORT -t $SECS" >"$D/out" 2>&1 ;;
	marked) "$TC" record -o "$D/t.tct" -f --no-progress --iter sockperf -- sh -c \
		"taskset -c 1 sockperf ping-pong -i 127.0.0.1 -p $PORT -t $SECS" >"$D/out" 2>&1 ;;
	esac || { cat "$D/out" >&2; exit 1; }
	set -- $(pcts "$D/out") || { echo "iter_cost: no percentiles from $c" >&2; cat "$D/out" >&2; exit 1; }
	cost=null
	if [ "$c" = marked ]; then
		cost=$("$TC" report "$D/t.tct" 2>/dev/null |
			sed -n 's/.*the markers add \([0-9.]*\) usec.*/\1/p' | head -1)
		[ -n "$cost" ] || cost=null
	fi
	seq=$((seq + 1))
	P50=$1
	say "round $r $c: p50 $1 us, p99.9 $2 us${cost:+, marker cost $cost us}"
	jrow "{\"seq\": $seq, \"round\": $r, \"config\": \"$c\", \"p50_us\": $1, \"p999_us\": $2, \"marker_cost_us\": $cost}"
}
r=1
c=untraced; run_one
while [ "$r" -le "$ROUNDS" ]; do
	for c in traced marked; do
		run_one; c=untraced; run_one
	done
	r=$((r + 1))
done
python3 - "$RAW" "$RES/iter_cost.json" "$SECS" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
out = {"bench": "iter_cost", "seconds_per_run": int(sys.argv[3]), "runs": runs, "rows": []}
print("  config   p50 ratio (median, min-max)   p99.9 ratio   marker cost (us, median)")
for cfg in ("traced", "marked"):
    r50, r999, costs = [], [], []
    for i, x in enumerate(runs):
        if x["config"] != cfg or i == 0 or i + 1 >= len(runs):
            continue
        a, b = runs[i - 1], runs[i + 1]
        r50.append(x["p50_us"] / ((a["p50_us"] + b["p50_us"]) / 2))
        r999.append(x["p999_us"] / ((a["p999_us"] + b["p999_us"]) / 2))
        if x["marker_cost_us"] is not None:
            costs.append(x["marker_cost_us"])
    row = {"config": cfg, "p50_ratio": statistics.median(r50), "p50_ratio_min": min(r50),
           "p50_ratio_max": max(r50), "p999_ratio": statistics.median(r999),
           "marker_cost_us": statistics.median(costs) if costs else None, "pairs": len(r50)}
    out["rows"].append(row)
    print("  %-7s  %.3f (%.3f-%.3f)              %.3f         %s" % (
        cfg, row["p50_ratio"], row["p50_ratio_min"], row["p50_ratio_max"], row["p999_ratio"],
        "%.3f" % row["marker_cost_us"] if row["marker_cost_us"] is not None else "-"))
json.dump(out, open(sys.argv[2], "w"), indent=1)
PY
