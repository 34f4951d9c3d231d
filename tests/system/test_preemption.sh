#!/bin/sh
# A CPU hog pinned to a probe CPU must show up as the primary cause of the
# spikes: preemption:<hog's comm>, in `run` and again in `report` of the
# kept trace. Fails if attribution names anything else.
set -eu
. "$(dirname "$0")/lib.sh"
need_root_bpf

cpus=$(probe_cpus)
pong_cpu=${cpus#*,}
# nice -10: the hog must out-compete whatever else this machine runs on that CPU.
nice -n -10 taskset -c "$pong_cpu" "$O/tests/tc-spin" tchog 600 &
HOG_PID=$!
sleep 0.2

"$TC" run --cpu "$cpus" -n 3M --no-progress -o "$TMP/hog.tct" >"$TMP/run.txt" 2>&1 ||
	{ cat "$TMP/run.txt"; fail "tailcause run failed"; }
kill "$HOG_PID"; HOG_PID=
cat "$TMP/run.txt"

# The first row of the cause table is the cause with the most excess.
top_cause() { sed -n '/^  cause  *spikes/{n;p;q}' "$1" | awk '{print $1}'; }
[ "$(top_cause "$TMP/run.txt")" = "preemption:tchog" ] ||
	fail "top cause is '$(top_cause "$TMP/run.txt")', expected preemption:tchog"
grep -q '^  #1 ' "$TMP/run.txt" || fail "no top spike listed"
# The largest spikes carry the evidence: the off-CPU interval with the hog. (Only
# most of them: on a shared machine another busy task may own one of the three.)
top3=$(sed -n '/^  #1 /,/^  #4 /p' "$TMP/run.txt")
[ "$(echo "$top3" | grep -c 'cause preemption:tchog')" -ge 2 ] ||
	fail "fewer than 2 of the 3 largest spikes are blamed on preemption:tchog"
echo "$top3" | grep -q 'preempted; tchog' ||
	fail "the largest spikes' timelines lack the off-CPU interval with tchog"

# The kept trace reports the same.
"$TC" report "$TMP/hog.tct" >"$TMP/report.txt" || fail "report of the kept trace failed"
[ "$(top_cause "$TMP/report.txt")" = "preemption:tchog" ] || fail "report disagrees with run"
[ "$(stat -c %a "$TMP/hog.tct")" = 600 ] || fail "trace file mode is not 0600"
no_leftover_progs
