#!/bin/sh
# Signals to a traced thread (bpf/signal.bpf.c): tc-sigprobe times a one-thread loop
# whose SIGALRM and SIGUSR1 handler burns 100 us and logs its own [entry, exit]. Its
# spikes must be named signal:<SIGNAME> with evidence:
#  (a) SIGALRM from its own interval timer (setitimer): sent by the kernel;
#  (b) SIGUSR1 from another process, tc-sigsend (its pid known), on the tp_btf
#      programs and on their classic twins (--fallback);
#  (c) the same recorded without --signal-ends: no rt_sigreturn program, each delivery
#      an instant flagged "end not traced" before its handler's run, and the report
#      still names the spikes, bounding each handler by its round trip.
# (a) and (b) are recorded with --signal-ends, which times each handler to its end.
# The records (kind signal, the probe's tid, the signal number, the sender, a duration
# that holds the handler's own window) and the report's causes (the signal is the top cause
# of the spikes the handler made, and holds the time it ran) are checked: the test fails
# when the tracer is missing or the attribution is wrong.
set -eu
. "$(dirname "$0")/lib.sh"
need_root_bpf
command -v python3 >/dev/null || skip "needs python3 for the checks"
n=$(nproc)
cpu=$((n - 1))	# the probe's
other=$((n - 2)) # the sender's
BURN=100

# check NAME SIGNO SIGNAME SENDER_PID SENDER_COMM [bounded]: the trace NAME.tct, its samples
# and the handler's windows against each other. SENDER_PID 0: the kernel sent it. bounded:
# recorded without --signal-ends.
check() {
	"$TC" dump "$TMP/$1.tct" >"$TMP/$1.dump"
	"$TC" report "$TMP/$1.tct" --samples "$TMP/$1.csv" >"$TMP/$1.txt" 2>&1 ||
		{ cat "$TMP/$1.txt"; fail "$1: report --samples failed"; }
	"$TC" report "$TMP/$1.tct" --samples "$TMP/$1.csv" --top 2000 --format json \
		-o "$TMP/$1.json" || fail "$1: JSON report failed"
	python3 tests/system/check_report_json.py docs/report-schema.json "$TMP/$1.json" latency ||
		fail "$1: the JSON report does not match the schema"
	python3 - "$TMP/$1" "$2" "$3" "$4" "$5" "$BURN" "${6:-exact}" <<'EOF' || { sed -n '/^spikes/,/^top/p' "$TMP/$1.txt"; cat "$TMP/send.txt" 2>/dev/null; fail "$1: the signals are not traced or not blamed"; }
import json, sys
base, signo, name, sender, comm, burn, ends = sys.argv[1:]
signo, sender, burn_ns = int(signo), int(sender), int(burn) * 1000
rows = [l for l in open(base + ".csv") if l[0].isdigit()]
tid = int(rows[0].split(",")[3])
wins = sorted((int(a), int(b)) for a, b, _, s in (l.split() for l in open(base + ".win"))
              if int(s) == signo)
# (2 s of a signal every 2 ms: ~1000; one run of 1 s had 70, the thread or its sender
# off its CPU most of it)
span = (int(rows[-1].split(",")[1]) - int(rows[0].split(",")[0])) / 1e9
assert len(wins) >= 200, "only %d handler windows in %d iterations over %.3f s" % (
    len(wins), len(rows), span)
recs = []
for line in open(base + ".dump"):
    f = line.split()
    if f[0] != "event" or f[1] != "kind=signal":
        continue
    kv = dict(x.split("=", 1) for x in f[2:])
    recs.append(kv)
mine = [r for r in recs if int(r["tid"]) == tid and int(r["arg"]) == signo]
assert len(mine) >= 0.95 * len(wins), "%d signal records of tid %d for %d handler runs" % (
    len(mine), tid, len(wins))
if ends == "bounded":
    # No handler end traced: each delivery an instant flagged TC_SIGNAL_END_UNTRACED (4),
    # the handler's run after it; the record stands for [delivery, the next one).
    assert all(int(r["dur"]) == 0 and int(r["flags"]) & 4 for r in mine if not int(r["flags"]) & 2), \
        "a record with a duration or without the flag without --signal-ends"
    starts = sorted(int(r["start"]) for r in mine)
    mine_spans = [(a, b) for a, b in zip(starts, starts[1:] + [1 << 62])]
else:
    mine_spans = None
# Every handler run is inside its record: from the delivery to rt_sigreturn.
spans = mine_spans or sorted((int(r["start"]), int(r["start"]) + int(r["dur"])) for r in mine)
inside, j = 0, 0
for a, b in wins:
    while j < len(spans) and spans[j][1] < b:
        j += 1
    if j < len(spans) and spans[j][0] <= a and b <= spans[j][1]:
        inside += 1
assert inside >= 0.95 * len(wins), "%d of %d handler runs inside a signal record" % (
    inside, len(wins))
durs = sorted(int(r["dur"]) for r in mine)
med = durs[len(durs) // 2]
assert ends == "bounded" or burn_ns <= med <= burn_ns + 30000, \
    "median handler %d ns for %d ns burned" % (med, burn_ns)
# The sender: the process and its comm, or the kernel (flags TC_SIGNAL_KERNEL, pid 0).
# Never a wrong one; not seen (pid 0, no flag) only where the generation was not traced: a
# host that hides a task of its own hides what its interrupts do meanwhile (seen here).
# (flags 2, TC_SIGNAL_NO_HANDLER: one delivered once the probe ignores it at its end, as
# it is where a tracer stops it, as the sanitizer build's leak checker does at exit)
seen = 0
for r in mine:
    who, _, c = r["other"].partition(":")
    kernel = int(r["flags"]) & 1
    if int(who) == 0 and not kernel:
        continue
    seen += 1
    if sender:
        assert int(who) == sender and c == comm and not kernel, r
    else:
        assert int(who) == 0 and kernel, r
assert seen >= 0.95 * len(mine), "the sender of only %d of %d records seen" % (seen, len(mine))
# The report: the signal is the primary cause of most spikes the handler made (at least
# half as many as it ran), it holds the time the handler ran, and it is the top cause of
# the spikes the handler runs cover. Not necessarily of the whole report: on a shared
# machine a neighbour's disk or build may make more spikes (seen: softirq:block) or a
# larger excess (a 5 ms preemption by cc1) in the same second.
d = json.load(open(base + ".json"))
lat = d["latency"]
causes = sorted((c for c in lat["causes"] if c["name"] != "unattributed"),
                key=lambda c: -c["spikes"])
top = causes[0]["name"]
causes = [c for c in causes if c["name"] == "signal:" + name]
assert causes and causes[0]["spikes"] >= 0.5 * len(wins), (causes[:1], len(wins))
# (the time it ran: a handler preempted inside ran its burn and no more, the preemption is
# the preemption's)
ran_us = sum(min(b - a, burn_ns) for a, b in wins) / 1000
assert causes[0]["excess_us"] >= 0.8 * ran_us, "%s holds %.0f us of the %.0f us the handler ran" % (
    causes[0]["name"], causes[0]["excess_us"], ran_us)
# The spikes the handler made: those that hold a whole run of it whose burn is more than
# half the spike's excess (100 us of burn in an iteration of a few). Not those the
# handler covers half of: a SIGALRM comes from a timer interrupt in the same iteration,
# which costs 14-37 us here (the calibration), so that share moved with the VM from one
# run to the next (57 to 371 spikes). Nor those where the host took more than the handler
# ran (a tick of 37 us inside a 30 us handler's run, or steal, was their primary cause in
# one CI run: 356 of 431): there the handler did not make the spike, and another cause
# may rightly be first.
per_iter = 2 if lat["stats"]["one_way"] else 1  # credits are whole iterations
hit = right = 0
for s in lat["top_spikes"]:
    if any(s["t_start_ns"] <= a and b <= s["t_end_ns"] and
           min(b - a, burn_ns) / 1000 > 0.5 * per_iter * s["excess_us"] for a, b in wins
           if a < s["t_end_ns"] and s["t_start_ns"] < b):
        hit += 1
        right += s["cause"] == "signal:" + name
        if s["cause"] == "signal:" + name:
            ev = [e for e in s["timeline"] if e["kind"] == "signal"]
            assert ev and ev[0]["credit_us"] > 0, s
            want = ("sent by %s (pid %d)" % (comm, sender)) if sender else "sent by the kernel"
            assert want in ev[0]["detail"], ev[0]
assert hit >= 100 and right >= 0.9 * hit, "%d of %d handler spikes blamed on the signal" % (
    right, hit)
print("%s: %d handler runs (%.0f us), %d records (median %.1f us), %d spikes %s (%.0f us), "
      "%d of %d handler spikes its; top cause by spikes %s" % (
          base.rsplit("/", 1)[1], len(wins), ran_us, len(mine), med / 1000, causes[0]["spikes"],
          causes[0]["name"], causes[0]["excess_us"], right, hit, top))
EOF
}

# (a) SIGALRM every 2 ms from its own interval timer.
"$TC" record -o "$TMP/alrm.tct" --no-progress --signal-ends -- taskset -c "$cpu" "$O/tests/tc-sigprobe" probe \
	-s "$TMP/alrm.csv" -t 2 -H "$BURN" -a 2000 -W "$TMP/alrm.win" >"$TMP/rec.txt" 2>&1 ||
	{ cat "$TMP/rec.txt"; fail "record -- tc-sigprobe (setitimer) failed"; }
check alrm 14 SIGALRM 0 -
# The same trace's noise report (no samples): the handlers are the thread's signal noise,
# every run counted, timed at least as long as the handler's own burn in each run and no
# longer than their records (delivery to rt_sigreturn). Not the runs' whole length: an
# interrupt inside a run is that interrupt's noise (the timer's cost 14-37 us on these VMs;
# 1.4 ms of 500 runs in one CI run).
"$TC" report "$TMP/alrm.tct" --format json -o "$TMP/alrm-noise.json" ||
	fail "alrm: the noise report failed"
python3 tests/system/check_report_json.py docs/report-schema.json "$TMP/alrm-noise.json" noise ||
	fail "alrm: the noise report does not match the schema"
python3 - "$TMP/alrm" "$BURN" <<'EOF' || fail "alrm: the noise report does not count the handlers"
import json, sys
base, burn_ns = sys.argv[1], int(sys.argv[2]) * 1000
wins = [(int(a), int(b)) for a, b, _, s in (l.split() for l in open(base + ".win")) if int(s) == 14]
recs = [dict(x.split("=", 1) for x in l.split()[2:]) for l in open(base + ".dump")
        if l.startswith("event kind=signal ")]
rec_us = sum(int(r["dur"]) for r in recs if int(r["arg"]) == 14) / 1000
ran_us = sum(min(b - a, burn_ns) for a, b in wins) / 1000
noise = json.load(open(base + "-noise.json"))["noise"]
c = [c for c in noise["causes"] if c["name"] == "signal:SIGALRM"]
assert c, "no signal:SIGALRM among %s" % [x["name"] for x in noise["causes"]]
c = c[0]
assert c["group"] == "signal", c
assert c["count"] >= 0.95 * len(wins), "%d handlers counted of %d runs" % (c["count"], len(wins))
assert 0.95 * ran_us <= c["time_us"] <= rec_us + 1, \
    "handlers' noise %.0f us, their burn %.0f us, their records %.0f us" % (c["time_us"], ran_us, rec_us)
print("alrm noise: signal:SIGALRM %d, %.0f us (burn %.0f us, records %.0f us)" % (
    c["count"], c["time_us"], ran_us, rec_us))
EOF

# (b) SIGUSR1 every 2 ms from tc-sigsend on the other CPU, once on each program kind;
# (c) once without --signal-ends.
for mode in btf fallback bounded; do
	flag=--signal-ends
	[ "$mode" = fallback ] && flag="--signal-ends --fallback"
	[ "$mode" = bounded ] && flag=
	rm -f "$TMP/pid"
	taskset -c "$other" "$O/tests/tc-sigprobe" send -P "$TMP/pid" -p 2000 -t 60 >"$TMP/send.txt" &
	HOG_PID=$!
	# shellcheck disable=SC2086
	"$TC" record -o "$TMP/usr1-$mode.tct" $flag --no-progress -- taskset -c "$cpu" \
		"$O/tests/tc-sigprobe" probe -s "$TMP/usr1-$mode.csv" -t 2 -H "$BURN" -P "$TMP/pid" \
		-W "$TMP/usr1-$mode.win" >"$TMP/rec.txt" 2>&1 ||
		{ cat "$TMP/rec.txt"; fail "record -- tc-sigprobe (tc-sigsend) failed"; }
	wait "$HOG_PID" || { cat "$TMP/send.txt"; fail "tc-sigsend sent nothing"; }
	sender=$HOG_PID
	HOG_PID=
	if [ "$mode" = fallback ]; then
		"$TC" dump "$TMP/usr1-$mode.tct" | grep -q "^meta tracer.signal.tc_signal_deliver=attached tp/signal/signal_deliver" ||
			fail "--fallback did not record with the classic signal programs"
	fi
	if [ "$mode" = bounded ]; then
		"$TC" dump "$TMP/usr1-$mode.tct" | grep -q "^meta tracer.signal.tc_signal_return=not attached: needs --signal-ends" ||
			fail "without --signal-ends the rt_sigreturn program's row does not say why it is not attached"
		check "usr1-$mode" 10 SIGUSR1 "$sender" tc-sigsend bounded
	else
		check "usr1-$mode" 10 SIGUSR1 "$sender" tc-sigsend
	fi
done
no_leftover_progs
echo "ok"
