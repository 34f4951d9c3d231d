#!/bin/sh
# Benchmark 8, what the collective records cost an MPI rank (record --iter mpi): one rank
# (Open MPI's singleton, no launcher) calling an 8-byte Allreduce on MPI_COMM_WORLD in a
# loop with no work between (tc-mpiloop N 0 8), timed by the loop itself, per call:
#   untraced   nothing preloaded
#   records    libtailcause-mpi preloaded, writing into a directory on /dev/shm, no tracer
#   uprobe     the same loop under `record --iter uprobe:libmpi:MPI_Allreduce` (a uprobe
#              per call, what marking it without the library takes), less `record -- CMD`
#              (every tracer, no marker), measured alike
# Runs interleave, rounds of untraced, records, traced, uprobe; each cost is the
# configuration's time per call less the untraced runs' around it. Target: records
# <= 100 ns a call.
# Usage: O=BUILD_DIR top=SRC sh bench/coll_cost.sh   (run.sh calls it)
set -eu
. "$top/bench/lib.sh"
RAW=$WORK/coll_cost.jsonl
: >"$RAW"
LOOP=$O/tests/tc-mpiloop
LIB=$O/mpi/libtailcause-mpi.so
[ -x "$LOOP" ] && [ -r "$LIB" ] ||
	{ echo "coll_cost: $LOOP or $LIB missing (make, with libopenmpi-dev)" >&2; exit 2; }

ROUNDS=${COLL_ROUNDS:-5}
N=${COLL_N:-1000000}
NU=${COLL_NU:-100000} # the uprobe's: ~10 us a call
if [ "$QUICK" = 1 ]; then
	ROUNDS=${COLL_ROUNDS:-2}
	N=${COLL_N:-200000}
	NU=${COLL_NU:-20000}
fi
D=$WORK/coll_cost
mkdir -p "$D"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
say "coll_cost: $N (uprobe: $NU) 8-byte Allreduces of one rank on CPU 1, $ROUNDS rounds"

# seconds the loop took, from its own line
took() { sed -n 's/.* in \([0-9.]*\) s$/\1/p' "$1"; }
seq=0
run_one() {  # $c configuration, $n calls
	rm -rf "$D/coll"
	mkdir "$D/coll"
	case $c in
	untraced) taskset -c 1 "$LOOP" "$n" 0 8 >"$D/out" 2>&1 ;;
	records) TAILCAUSE_COLL_DIR=$D/coll TAILCAUSE_COLL_MAX=$((n + 1000)) LD_PRELOAD=$LIB \
		taskset -c 1 "$LOOP" "$n" 0 8 >"$D/out" 2>&1 ;;
	traced) "$TC" record -o "$D/t.tct" -f --no-progress -- taskset -c 1 "$LOOP" "$n" 0 8 \
		>"$D/out" 2>&1 ;;
	uprobe) "$TC" record -o "$D/t.tct" -f --no-progress --iter uprobe:libmpi:MPI_Allreduce -- \
		taskset -c 1 "$LOOP" "$n" 0 8 >"$D/out" 2>&1 ;;
	esac || { cat "$D/out" >&2; exit 1; }
	s=$(took "$D/out")
	[ -n "$s" ] || { echo "coll_cost: no time from $c" >&2; cat "$D/out" >&2; exit 1; }
	seq=$((seq + 1))
	say "round $r $c: $n calls in $s s"
	jrow "{\"seq\": $seq, \"round\": $r, \"config\": \"$c\", \"calls\": $n, \"seconds\": $s}"
}
r=1
while [ "$r" -le "$ROUNDS" ]; do
	n=$N; c=untraced; run_one
	c=records; run_one
	c=untraced; run_one
	n=$NU; c=untraced; run_one
	c=traced; run_one
	c=uprobe; run_one
	c=untraced; run_one
	r=$((r + 1))
done
python3 - "$RAW" "$RES/coll_cost.json" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
ns = lambda x: x["seconds"] * 1e9 / x["calls"]
out = {"bench": "coll_cost", "runs": runs, "rows": []}
per = {}
for i, x in enumerate(runs):
    if x["config"] == "untraced":
        continue
    # the untraced runs of the same size around it
    base = [ns(y) for y in runs[max(0, i - 3):i + 4] if y["config"] == "untraced" and y["calls"] == x["calls"]]
    per.setdefault(x["config"], []).append((ns(x), statistics.mean(base)))
print("  config    ns a call (median)   over untraced (median, min-max)")
rows = {}
for cfg in ("records", "traced", "uprobe"):
    v = per.get(cfg, [])
    over = [a - b for a, b in v]
    rows[cfg] = statistics.median(over)
    out["rows"].append({"config": cfg, "ns_per_call": statistics.median(a for a, _ in v),
                        "over_untraced_ns": rows[cfg], "min": min(over), "max": max(over),
                        "n": len(v)})
    print("  %-8s  %10.1f          %8.1f (%.1f-%.1f)" % (cfg, statistics.median(a for a, _ in v),
                                                        rows[cfg], min(over), max(over)))
marker = rows["uprobe"] - rows["traced"]
out["uprobe_marker_ns"] = marker
out["records_target_met"] = rows["records"] <= 100
print("  the uprobe marker alone (uprobe - traced): %.0f ns a call; the records: %.0f ns"
      " (target <= 100 ns: %s)" % (marker, rows["records"], "met" if rows["records"] <= 100 else "missed"))
json.dump(out, open(sys.argv[2], "w"), indent=1)
PY
