#!/bin/sh
# Benchmark 9, the collectives' stragglers named for the right reason (record --iter mpi):
# Open MPI, two ranks of tc-mpiloop (work, then an 8-byte Allreduce) on CPUs 0 and 1,
#   hog     a real-time hog 1 ms every 20 ms on rank 1's CPU: rank 1 must be the top
#           straggler, and of its late instances (its step before a spike) the share the
#           hog is the cause of is the figure (target >= 95 %)
#   clean   no hog: no rank late more often than chance (two-sided binomial test of the
#           late instances' split between the two ranks; p < 0.01 is a rank named more
#           often than chance)
# ROUNDS runs of each, alternating. Two CPUs cannot host a 4-rank run without two ranks
# sharing a CPU, which is a cause of its own; that variant needs a bigger machine.
# Usage: O=BUILD_DIR top=SRC sh bench/coll_stragglers.sh   (run.sh calls it)
set -eu
. "$top/bench/lib.sh"
RAW=$WORK/coll_stragglers.jsonl
: >"$RAW"
LOOP=$O/tests/tc-mpiloop
SPIN=$O/tests/tc-spin
[ -x "$LOOP" ] && [ -x "$SPIN" ] && command -v mpirun >/dev/null ||
	{ echo "coll_stragglers: needs mpirun, $LOOP and $SPIN (make test builds them)" >&2; exit 2; }
ROUNDS=${COLL_ROUNDS:-3}
STEPS=${COLL_STEPS:-10000}
[ "$QUICK" = 1 ] && ROUNDS=1 && STEPS=3000
D=$WORK/coll_stragglers
mkdir -p "$D"
say "coll_stragglers: 2 ranks x $STEPS steps of 200 us, hog and clean, $ROUNDS rounds"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	for c in hog clean; do
		if [ "$c" = hog ]; then
			chrt -f 10 taskset -c 1 "$SPIN" tcmpihog 120 1000 20000 &
			HOG=$!
			BG_PIDS="$BG_PIDS $HOG"
			sleep 0.2
		fi
		"$TC" record -o "$D/m.tct" -f --no-progress --iter mpi -- mpirun --allow-run-as-root \
			--oversubscribe -np 2 --bind-to core --map-by core "$LOOP" "$STEPS" 200 8 \
			>"$D/rec.log" 2>&1 || { cat "$D/rec.log" >&2; exit 1; }
		[ "$c" = hog ] && kill "$HOG" 2>/dev/null
		"$TC" report "$D/m.tct" --format json -o "$D/m.json" 2>/dev/null
		python3 - "$D/m.json" "$c" "$r" >>"$RAW" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["latency"]["collectives"]
rows = {s["rank"]: s for s in c["stragglers"]}
out = {"config": sys.argv[2], "round": int(sys.argv[3]), "instances": c["instances"],
       "late": c["late"], "ranks": {str(k): {"last": v["last"], "late": v["late"],
       "top_cause": v["top_cause"], "top_cause_late": v["top_cause_late"]} for k, v in rows.items()},
       "top_rank": c["stragglers"][0]["rank"] if c["stragglers"] else None}
print(json.dumps(out))
PY
		say "round $r $c: $(tail -1 "$RAW")"
	done
	r=$((r + 1))
done
python3 - "$RAW" "$RES/coll_stragglers.json" <<'PY'
import json, math, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
def binom_p(k, n):  # two-sided, p = 1/2
    if n == 0:
        return 1.0
    lo = min(k, n - k)
    tail = sum(math.comb(n, i) for i in range(0, lo + 1)) / 2 ** n
    return min(1.0, 2 * tail)
out = {"bench": "coll_stragglers", "runs": runs, "rows": []}
print("  config  round  top rank  late r0/r1   hog share of rank 1's late   p (split by chance)")
for x in runs:
    r0, r1 = x["ranks"].get("0", {}), x["ranks"].get("1", {})
    l0, l1 = r0.get("late", 0), r1.get("late", 0)
    share = (r1.get("top_cause_late", 0) / l1 if l1 and r1.get("top_cause") == "preemption:tcmpihog"
             else 0.0)
    p = binom_p(l0, l0 + l1)
    row = {"config": x["config"], "round": x["round"], "top_rank": x["top_rank"], "late0": l0,
           "late1": l1, "hog_share": share if x["config"] == "hog" else None, "p_chance": p}
    out["rows"].append(row)
    print("  %-6s  %5d  %8s  %5d/%-5d  %s   %.3g" % (x["config"], x["round"], x["top_rank"], l0, l1,
          "%.3f" % share if x["config"] == "hog" else "  -  ", p))
json.dump(out, open(sys.argv[2], "w"), indent=1)
PY
