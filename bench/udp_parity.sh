#!/bin/sh
# Benchmark 7, parity of the udp probe with Debian's sockperf ping-pong, built for
# exactly this measurement, on the same path: loopback UDP, 14-byte messages (sockperf's
# smallest), the answering side on CPU 0 and the timing side on CPU 1, both untraced.
#   blocking   sockperf server/ping-pong on one socket (a blocking recvfrom() per message) against
#              tailcause lat --probe udp (a blocking recv())
#   busy-poll  the same with --nonblocked (spinning recvfrom()) against --busy-poll
# Rounds interleave S T S T ...; each tailcause run is compared with the mean of the
# sockperf runs around it (t_typical, the median one way, and p99.9). Target: the median
# t_typical ratio within 0.90-1.10.
# Usage: O=BUILD_DIR top=SRC sh bench/udp_parity.sh   (run.sh calls it)
set -eu
. "$top/bench/lib.sh"
RAW=$WORK/udp_parity.jsonl
: >"$RAW"
command -v sockperf >/dev/null || { echo "udp_parity: sockperf missing (scripts/deps.sh)" >&2; exit 2; }

ROUNDS=${UDP_ROUNDS:-5}
SECS=${UDP_SECS:-3}
N=${UDP_N:-100000}
if [ "$QUICK" = 1 ]; then
	ROUNDS=${UDP_ROUNDS:-2}
	SECS=${UDP_SECS:-1}
	N=${UDP_N:-30000}
fi
D=$WORK/udp_parity
mkdir -p "$D"
PORT=$((17900 + $$ % 400))
say "udp_parity: sockperf -t $SECS and tailcause -n $N, 14-byte messages, $ROUNDS rounds per mode"

# p50 p99.9 (us, one way) from sockperf's output
sockperf_pcts() {
	awk '/percentile 50.000 =/ { p50 = $NF } /percentile 99.900 =/ { p999 = $NF }
		END { if (p50 == "") exit 1; print p50, p999 }' "$1"
}
tc_pcts() {
	awk '/t_typical\[usec\]/ { getline; print $5, $9; found = 1 } END { exit !found }' "$1"
}
seq=0
run_one() {  # $mode $tool
	flags=""
	[ "$mode" = busy-poll ] && flags=--nonblocked
	case $tool in
	sockperf)
		# shellcheck disable=SC2086
		taskset -c 0 sockperf server -i 127.0.0.1 -p "$PORT" $flags >"$D/srv.log" 2>&1 &
		SRV=$!
		BG_PIDS="$BG_PIDS $SRV"
		sleep 0.5
		# shellcheck disable=SC2086
		taskset -c 1 sockperf ping-pong -i 127.0.0.1 -p "$PORT" $flags -m 14 \
			-t "$SECS" >"$D/out" 2>&1 || { cat "$D/out" >&2; exit 1; }
		kill "$SRV" 2>/dev/null || :
		wait "$SRV" 2>/dev/null || :
		set -- $(sockperf_pcts "$D/out") ;;
	tailcause)
		bp=""
		[ "$mode" = busy-poll ] && bp=--busy-poll
		# shellcheck disable=SC2086
		"$TC" lat --probe udp --loopback -c 1,0 -s 14 -n "$N" $bp >"$D/out" 2>&1 ||
			{ cat "$D/out" >&2; exit 1; }
		set -- $(tc_pcts "$D/out") ;;
	esac
	seq=$((seq + 1))
	say "round $r $mode $tool: t_typical $1 us, p99.9 $2 us"
	jrow "{\"seq\": $seq, \"round\": $r, \"mode\": \"$mode\", \"tool\": \"$tool\", \"p50_us\": $1, \"p999_us\": $2}"
}
for mode in blocking busy-poll; do
	r=1
	tool=sockperf; run_one
	while [ "$r" -le "$ROUNDS" ]; do
		tool=tailcause; run_one
		tool=sockperf; run_one
		r=$((r + 1))
	done
done
python3 - "$RAW" "$RES/udp_parity.json" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
out = {"bench": "udp_parity", "runs": runs, "rows": []}
print("  mode       t_typical ratio tailcause/sockperf (median, min-max)   p99.9 ratio   verdict")
for mode in ("blocking", "busy-poll"):
    m = [x for x in runs if x["mode"] == mode]
    r50, r999 = [], []
    for i, x in enumerate(m):
        if x["tool"] != "tailcause" or i == 0 or i + 1 >= len(m):
            continue
        a, b = m[i - 1], m[i + 1]
        r50.append(x["p50_us"] / ((a["p50_us"] + b["p50_us"]) / 2))
        r999.append(x["p999_us"] / ((a["p999_us"] + b["p999_us"]) / 2))
    med = statistics.median(r50)
    row = {"mode": mode, "p50_ratio": med, "p50_ratio_min": min(r50), "p50_ratio_max": max(r50),
           "p999_ratio": statistics.median(r999), "pairs": len(r50),
           "within_10pct": 0.90 <= med <= 1.10}
    out["rows"].append(row)
    print("  %-9s  %.3f (%.3f-%.3f)                                  %.3f         %s" % (
        mode, med, row["p50_ratio_min"], row["p50_ratio_max"], row["p999_ratio"],
        "within +-10 %" if row["within_10pct"] else "OUTSIDE +-10 %"))
json.dump(out, open(sys.argv[2], "w"), indent=1)
PY
