#!/bin/sh
# What runs on the SMT sibling of a probe CPU, on the real kernel: a hog pinned to
# the sibling during a shm recording must appear in the trace as sibling records on
# that CPU, tagged with the probe CPU beside it and the hog's name, covering most of
# the run (the hog sleeps 100 us every millisecond: a run is recorded when it ends);
# the trace says which CPUs were followed (run.smt_siblings), and no spike the hog's
# runs overlap is called hw-noise (a sibling that ran is an event the tracers saw).
# Needs a probe CPU whose sibling hardware thread is not a probe CPU.
set -eu
. "$(dirname "$0")/lib.sh"
need_root_bpf
command -v python3 >/dev/null || skip "needs python3 to read the topology and the trace"
cpus=$(probe_cpus)

# The first sibling of a probe CPU that is not a probe CPU itself, as "PROBE SIBLING".
pair=
for p in $(echo "$cpus" | tr ',' ' '); do
	f=/sys/devices/system/cpu/cpu$p/topology/thread_siblings_list
	[ -r "$f" ] || continue
	for s in $(python3 -c '
import sys
out = []
for part in open(sys.argv[1]).read().strip().split(","):
    lo, _, hi = part.partition("-")
    out += range(int(lo), int(hi or lo) + 1)
print(" ".join(map(str, out)))' "$f"); do
		case ",$cpus," in *",$s,"*) continue ;; esac
		pair="$p $s"
		break
	done
	[ -n "$pair" ] && break
done
[ -n "$pair" ] || skip "no SMT: no probe CPU ($cpus) has a sibling hardware thread that is" \
	"not a probe CPU (thread_siblings_list)"
set -- $pair
P=$1 S=$2

taskset -c "$S" "$O/tests/tc-spin" tcsibling 600 900 100 &
HOG_PID=$!
sleep 0.5
"$TC" record --cpu "$cpus" -n 5M --no-progress -o "$TMP/smt.tct" >"$TMP/smt.log" 2>&1 ||
	{ cat "$TMP/smt.log"; fail "record failed"; }
kill "$HOG_PID"
HOG_PID=
"$TC" dump "$TMP/smt.tct" >"$TMP/smt.txt" || fail "dump failed"
"$TC" report "$TMP/smt.tct" --format json --top 10000 -o "$TMP/smt.json" || fail "report failed"

python3 - "$TMP/smt.txt" "$TMP/smt.json" "$P" "$S" <<'PY' || fail "see above"
import json, sys
dump, report, P, S = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
meta, runs, first, last = {}, [], None, None
for line in open(dump):
    if line.startswith("meta "):
        k, _, v = line[5:].rstrip("\n").partition("=")
        meta[k] = v
    elif line.startswith("event "):
        f = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
        start = int(f["start"])
        first = start if first is None else first
        last = start
        if (f["kind"] == "sibling" and int(f["cpu"]) == S and int(f["arg"]) == P
                and f["other"].endswith(":tcsibling")):
            runs.append((start, start + int(f["dur"])))
bad = []
if "%d:%d" % (P, S) not in meta.get("run.smt_siblings", "").split(","):
    bad.append("run.smt_siblings is %r, not listing %d:%d" % (meta.get("run.smt_siblings"), P, S))
span, sib = (last or 0) - (first or 0), sum(e - s for s, e in runs)
print("sibling records of tcsibling on CPU %d beside %d: %.1f ms of a %.1f ms trace"
      % (S, P, sib / 1e6, span / 1e6))
if not span or sib < 0.5 * span:
    bad.append("the hog on the sibling covers under half of the trace")
d = json.load(open(report))
noisy = [sp for sp in d["latency"]["top_spikes"] if sp["cause"] == "hw-noise"
         and any(s < sp["t_end_ns"] and sp["t_start_ns"] < e for s, e in runs)]
if noisy:
    bad.append("%d spikes the sibling's runs overlap called hw-noise" % len(noisy))
for b in bad:
    print("FAILED:", b)
sys.exit(1 if bad else 0)
PY
echo "ok: the sibling's hog is traced beside probe CPU $P"
