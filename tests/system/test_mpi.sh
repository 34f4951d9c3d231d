#!/bin/sh
# record --iter mpi: Debian's Open MPI, unmodified, two ranks on one host running a
# training step's loop (tc-mpiloop: work, then an Allreduce). The collective records come
# from libtailcause-mpi, preloaded into the ranks through the command's environment.
# With a real-time duty-cycled hog on one rank's CPU, that rank is the top straggler and
# the hog is the cause of its late steps; every call of every rank is in the trace, the
# JSON matches the schema; a rank killed mid-run is named, and its calls until then kept.
set -eu
. "$(dirname "$0")/lib.sh"

expect_exit 1 "$TC" record -o "$TMP/x.tct" --iter mpi
grep -q "^tailcause: record: --iter marks a traced command's iterations" "$TMP/out" ||
	fail "--iter mpi without a command not refused"

need_root_bpf
command -v mpirun >/dev/null || skip "needs Open MPI's mpirun (scripts/deps.sh test installs openmpi-bin)"
if [ ! -x "$O/tests/tc-mpiloop" ] || [ ! -r "$O/mpi/libtailcause-mpi.so" ]; then
	skip "needs the MPI build (make builds it where mpicc is installed: libopenmpi-dev)"
fi
MPIRUN="mpirun --allow-run-as-root --oversubscribe -np 2 --bind-to core --map-by core"

# Without the library beside the binary, or where TAILCAUSE_MPI_LIB says: one line, exit 2.
TAILCAUSE_MPI_LIB=/nonexistent expect_exit 2 "$TC" record -o "$TMP/x.tct" --no-progress \
	--iter mpi -- true
grep -q "^tailcause: --iter mpi: TAILCAUSE_MPI_LIB=/nonexistent: No such file" "$TMP/out" ||
	fail "a missing records library not named"

# A command that is not an MPI program: the noise report, saying why.
"$TC" record -o "$TMP/none.tct" --no-progress --iter mpi -- sleep 0.2 >/dev/null 2>&1 ||
	fail "record --iter mpi of a command without MPI failed"
"$TC" report "$TMP/none.tct" >"$TMP/none.txt" 2>&1 || { cat "$TMP/none.txt"; fail "report failed"; }
grep -q "recorded no collective call (0 rank files)" "$TMP/none.txt" ||
	fail "a command without MPI not said"

# The hog: 1 ms every 20 ms at real-time priority on the second rank's CPU (the last
# probe CPU; Open MPI binds rank r to core r here).
# shellcheck disable=SC2046 # two CPU numbers
set -- $(probe_cpus | tr , ' ')
B=$2
chrt -f 10 taskset -c "$B" "$O/tests/tc-spin" tcmpihog 60 1000 20000 &
HOG_PID=$!
sleep 0.2
# shellcheck disable=SC2086 # mpirun and its options
"$TC" record -o "$TMP/m.tct" --no-progress --iter mpi -- $MPIRUN "$O/tests/tc-mpiloop" 10000 200 8 \
	>"$TMP/rec.log" 2>&1 || { tail -20 "$TMP/rec.log"; fail "record --iter mpi failed"; }
kill "$HOG_PID"; HOG_PID=
for d in /dev/shm/tailcause-coll.*; do
	[ ! -e "$d" ] || fail "the records' directory $d was left behind"
done
"$TC" dump "$TMP/m.tct" >"$TMP/dump.txt"
grep -qx "meta coll.ranks=2" "$TMP/dump.txt" || fail "not two rank files read"
grep -qx "meta coll.records=22000" "$TMP/dump.txt" ||
	fail "not every call recorded: $(grep '^meta coll' "$TMP/dump.txt" | tr '\n' ' ')"
grep -qx "meta coll.unfinished=none" "$TMP/dump.txt" || fail "a rank is said not to have finished"
# the rank on the hog's CPU, from its calls (event kind=coll ... cpu=C ... other=RANK:BYTES)
hog_rank=$(awk -v b="cpu=$B" '$2 == "kind=coll" && $5 == b {
	for (i = 1; i <= NF; i++) if ($i ~ /^other=/) { split(substr($i, 7), r, ":"); print r[1]; exit } }' \
	"$TMP/dump.txt")
[ -n "$hog_rank" ] || fail "no rank's calls were entered on CPU $B"

"$TC" report "$TMP/m.tct" >"$TMP/m.txt" 2>&1 || { cat "$TMP/m.txt"; fail "report failed"; }
sed -n '/^collectives/,/^top /p' "$TMP/m.txt"
"$TC" report "$TMP/m.tct" --format json -o "$TMP/m.json"
python3 tests/system/check_report_json.py docs/report-schema.json "$TMP/m.json" latency ||
	fail "the JSON report does not match the schema"
python3 - "$TMP/m.json" "$hog_rank" <<'PY' || fail "the straggler is not the hog's rank, or not for the hog"
import json, sys
c = json.load(open(sys.argv[1]))["latency"]["collectives"]
hog = int(sys.argv[2])
assert c["calls"] == 22000 and c["instances"] == 12000 and c["incomplete"] == 0, c
top = c["stragglers"][0]
print(f"top straggler: rank {top['rank']}, last {top['last']}, late {top['late']}, "
      f"{top['late_us']:.0f} us, {top['top_cause']}")
assert top["rank"] == hog, f"rank {top['rank']} is the top straggler, the hog is on rank {hog}'s CPU"
assert top["top_cause"] == "preemption:tcmpihog", top
assert top["late"] >= 10, top
PY

# A rank killed mid-run: its calls until then are kept, and it is named.
"$TC" record -o "$TMP/k.tct" --no-progress --iter mpi -- sh -c \
	"$MPIRUN $O/tests/tc-mpiloop 200000 100 8 & sleep 2; pkill -KILL -o -f '^$O/tests/tc-mpiloop'; wait" \
	>"$TMP/rec.log" 2>&1 || true
"$TC" dump "$TMP/k.tct" >"$TMP/k.txt" || fail "the trace of a killed run does not read"
grep -q "^meta coll.unfinished=[01] (pid" "$TMP/k.txt" || fail "a killed rank is not named"
[ "$(grep '^meta coll.records=' "$TMP/k.txt" | cut -d= -f2)" -gt 100 ] ||
	fail "a killed run's calls were not kept"
"$TC" report "$TMP/k.tct" >"$TMP/k.rep" 2>&1 || { cat "$TMP/k.rep"; fail "report of a killed run failed"; }
grep -q "did not reach MPI_Finalize" "$TMP/k.rep" || fail "the report does not say a rank died"
no_leftover_progs
echo "PASS record --iter mpi: the hog's rank is the straggler, for the hog"
