#!/bin/sh
# The thread a spike waited for (core/attrib/wait_chain.h): tc-waitpair's client, pinned to
# one CPU, times sendto..recvfrom round trips to its server on the other, while tc-spin
# (tchog) wakes every 20 ms on the *server's* CPU and burns 1 ms there. The client's own CPU
# is idle while it waits, so only the chain (who woke the client, and what delayed that
# task meanwhile) can name the hog:
#  (a) pair: the server a child of the traced command, traced from its start;
#  (b) serve/client: the server a process of its own, traced only from its first waking of
#      the client on (followed in the kernel: a wakeup record flagged "traced from here on");
#  (c) lock: a thread pool of two, the timed thread blocking on a mutex that the holder
#      thread (tcholder, on the hog's CPU) keeps for 50 us of work at a time, half the time.
# (a) and (b) must have at least 50 spikes (of ~200 hog bursts) whose primary is
# preemption:tchog, (c) at least 25 (the holder has the lock for half of the bursts); each
# with the chain in its JSON report (depth 1: the waker woke the timed thread) and an interval
# of the waker's (chain_depth 1) credited to tchog, the chain listed in the text and HTML
# reports and drawn as flow arrows in the Perfetto export: the test fails when the waking
# is not recorded, the waker not followed or the chain not weighed or shown.
set -eu
. "$(dirname "$0")/lib.sh"
need_root_bpf
command -v python3 >/dev/null || skip "needs python3 for the checks"
n=$(nproc)
client=$((n - 1))
server=$((n - 2))
SECS=4

# check NAME WAKER MIN: the report of $TMP/NAME.tct names the hog through the chain, in at least
# MIN spikes, WAKER the first link.
check() {
	"$TC" report "$TMP/$1.tct" >"$TMP/$1.txt" 2>&1 || { cat "$TMP/$1.txt"; fail "$1: report failed"; }
	"$TC" report "$TMP/$1.tct" --top 10000 --format json -o "$TMP/$1.json" ||
		fail "$1: JSON report failed"
	python3 tests/system/check_report_json.py docs/report-schema.json "$TMP/$1.json" latency ||
		fail "$1: the JSON report does not match the schema"
	python3 - "$TMP/$1.json" "$2" "$3" <<'PY' || { sed -n '/^spikes/,/^top/p' "$TMP/$1.txt"; fail "$1: the hog on the server's CPU is not named through the chain"; }
import json, sys
r = json.load(open(sys.argv[1]))["latency"]
hog = [s for s in r["top_spikes"] if s["cause"] == "preemption:tchog"]
assert len(hog) >= int(sys.argv[3]), "%d spikes named preemption:tchog" % len(hog)
for s in hog:
    waker = [c for c in s["chain"] if c["depth"] == 1]
    assert waker and waker[0]["comm"] == sys.argv[2], s["chain"]
    mine = [e for e in s["timeline"] if e["chain_depth"] == 1 and e["cause"] == "preemption:tchog"]
    assert mine and sum(e["credit_us"] for e in mine) > 0, s["timeline"]
print("%s: %d spikes named preemption:tchog through the chain" % (sys.argv[1], len(hog)))
PY
	grep -q "waited on $2" "$TMP/$1.txt" || fail "$1: the text report lists no chain"
	"$TC" report "$TMP/$1.tct" --format html -o "$TMP/$1.html" || fail "$1: HTML report failed"
	grep -q "waited on $2" "$TMP/$1.html" || fail "$1: the HTML report lists no chain"
	"$TC" report "$TMP/$1.tct" --format perfetto -o "$TMP/$1.pf.json" ||
		fail "$1: Perfetto export failed"
	python3 tests/system/check_perfetto.py "$TMP/$1.pf.json" --latency --min-flows "$3" ||
		fail "$1: the Perfetto export lacks the chain's flow arrows"
}

nice -n -10 taskset -c "$server" "$O/tests/tc-spin" tchog 120 1000 19000 &
HOG_PID=$!

# (a) the server a child of the command
"$TC" record -o "$TMP/pair.tct" --no-progress --iter syscall:sendto:recvfrom -- \
	"$O/tests/tc-waitpair" pair "$SECS" "$server" "$client" >"$TMP/rec.txt" 2>&1 ||
	{ cat "$TMP/rec.txt"; fail "record (pair) failed"; }
check pair tcserver 50

# (b) the server a process of its own: followed from its first waking of the client
"$O/tests/tc-waitpair" serve "$TMP/sock" "$SECS" "$server" &
srv=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -S "$TMP/sock" ] && break; sleep 0.1; done
"$TC" record -o "$TMP/apart.tct" --no-progress --iter syscall:sendto:recvfrom -- \
	"$O/tests/tc-waitpair" client "$TMP/sock" "$SECS" "$client" >"$TMP/rec.txt" 2>&1 ||
	{ cat "$TMP/rec.txt"; kill "$srv" 2>/dev/null; fail "record (apart) failed"; }
wait "$srv" || true
"$TC" dump "$TMP/apart.tct" | grep -q "kind=wakeup .*flags=2 other=$srv:tcserver" ||
	fail "apart: the server was not followed from its first waking of the client"
# the server calls sendto and recvfrom too: followed for the chain, it marks no iteration
"$TC" report "$TMP/apart.tct" 2>&1 | grep -q "iterations from [0-9]* marks of 1 thread" ||
	fail "apart: the followed server's calls were marked as the command's iterations"
check apart tcserver 50

# (c) a lock holder preempted: the timed thread's futex wait, ended by the holder's unlock
"$TC" record -o "$TMP/lock.tct" --no-progress --iter syscall:getpid -- \
	"$O/tests/tc-waitpair" lock "$SECS" "$server" "$client" >"$TMP/rec.txt" 2>&1 ||
	{ cat "$TMP/rec.txt"; fail "record (lock) failed"; }
check lock tcholder 25
no_leftover_progs
echo "ok"
