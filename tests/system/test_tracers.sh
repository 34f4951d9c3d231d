#!/bin/sh
# Each tracer, driven by the event it exists for, caused here on purpose:
# the trace must hold it with plausible fields. Uses `record -- CMD` (which
# follows the command's threads and the CPUs they run on) and `dump`.
set -eu
. "$(dirname "$0")/lib.sh"
need_root_bpf
cpus=$(probe_cpus)
A=${cpus%,*}
B=${cpus#*,}

rec() { # rec NAME CMD... : record CMD into $TMP/NAME.tct and dump it to $TMP/NAME.txt
	name=$1; shift
	"$TC" record -o "$TMP/$name.tct" --no-progress -- "$@" >"$TMP/$name.log" 2>&1 ||
		{ cat "$TMP/$name.log"; fail "record -- $* failed"; }
	"$TC" dump "$TMP/$name.tct" >"$TMP/$name.txt" || fail "dump $name failed"
}
count() { grep -c "^event kind=$2 " "$TMP/$1.txt" || true; }
# field NAME KIND FIELD: the values of FIELD in the KIND events of trace NAME
field() { grep "^event kind=$2 " "$TMP/$1.txt" | tr ' ' '\n' | sed -n "s/^$3=//p"; }

# Hard IRQs with their names: O_DIRECT writes and reads of a file on a real disk,
# run on the CPU the disk's interrupts are delivered to (a command's CPUs are the
# ones it runs on). A file, not the raw device: opening that may be forbidden.
dir=/var/tmp
disk=$(findmnt -no SOURCE --target "$dir" | sed 's|/dev/||; s|[0-9]*$||')
irq_cpu=$A
vdev=$(basename "$(readlink -f "/sys/block/$disk/device" 2>/dev/null)" 2>/dev/null || true)
irq=$(grep -m1 " $vdev-req" /proc/interrupts 2>/dev/null | cut -d: -f1 | tr -d ' ' || true)
if [ -n "$irq" ] && [ -r "/proc/irq/$irq/effective_affinity_list" ]; then
	irq_cpu=$(cut -d, -f1 "/proc/irq/$irq/effective_affinity_list" | cut -d- -f1)
fi
if [ -b "/dev/$disk" ]; then
	f="$dir/tailcause-test.$$"
	rec disk taskset -c "$irq_cpu" sh -c "dd if=/dev/zero of=$f bs=4k count=2000 oflag=direct,sync &&
		dd if=$f of=/dev/null bs=4k iflag=direct; rm -f $f"
	grep -q 'exited with status' "$TMP/disk.log" && { cat "$TMP/disk.log"; fail "the O_DIRECT I/O failed"; }
	[ "$(count disk hardirq)" -gt 0 ] || fail "no hard IRQ traced during O_DIRECT I/O"
	field disk hardirq dur | awk '$1 <= 0 || $1 > 1000000000 { bad = 1 } END { exit bad }' ||
		fail "implausible hard IRQ durations"
	if [ -n "$irq" ]; then
		field disk hardirq arg | grep -qx "$irq" || fail "no hard IRQ of the disk ($irq, $vdev-req)"
	fi
	grep -q '^irq [0-9]* ' "$TMP/disk.txt" || fail "no IRQ names stored"
	grep -q '^counter kind=1 ' "$TMP/disk.txt" || fail "no IRQ placement counters stored"
else
	echo "note: no block device behind $dir ($disk); hard-IRQ names checked via counters only"
fi

# NET_RX softirqs: loopback UDP traffic.
rec udp taskset -c "$A" python3 -c '
import socket
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); r.bind(("127.0.0.1", 0))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(20000):
    s.sendto(b"x" * 64, r.getsockname()); r.recv(64)
'
field udp softirq arg | grep -qx 3 || fail "no NET_RX (vector 3) softirq traced for loopback UDP"

# RPS: lo's receive work steered from A to B arrives there by an IPI that runs RPS's
# trigger (flags=1). The command touches B first, so B is one of its CPUs.
rps=/sys/class/net/lo/queues/rx-0/rps_cpus
if [ -w "$rps" ] && { [ -d /sys/kernel/tracing/events/csd ] || [ -d /sys/kernel/debug/tracing/events/csd ]; }; then
	rps_old=$(cat "$rps")
	printf '%x\n' $((1 << B)) >"$rps"
	rec rps sh -c "taskset -c $B true; taskset -c $A python3 -c '
import socket
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); r.bind((\"127.0.0.1\", 0))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(20000):
    s.sendto(b\"x\" * 64, r.getsockname()); r.recv(64)
'" || { echo "$rps_old" >"$rps"; exit 1; }
	echo "$rps_old" >"$rps"
	grep "^event kind=ipi " "$TMP/rps.txt" | grep " cpu=$B " | grep -q ' flags=1 ' ||
		fail "no RPS kick (IPI with flags=1) traced on CPU $B"
else
	echo "note: no csd tracepoints or RPS here; RPS kick check not run"
fi

# Queued wake-ups: a thread on B blocked in read, woken 500 times from A while B idles, is
# woken through B's wake list: a call-function IPI that runs the scheduler's queued
# wake-ups (sched_ttwu_pending: flags=2). A wake-up that finds B polling in idle needs no
# IPI; 2 ms apart, most find it halted.
if [ -d /sys/kernel/tracing/events/csd ] || [ -d /sys/kernel/debug/tracing/events/csd ]; then
	rec ttwu sh -c "taskset -c $B true; taskset -c $A python3 -c '
import os, time
r, w = os.pipe()
if os.fork() == 0:
    os.close(w)
    os.sched_setaffinity(0, {$B})
    while os.read(r, 1):
        pass
    os._exit(0)
for _ in range(500):
    time.sleep(0.002)
    os.write(w, b\"x\")
os.close(w)
os.wait()
'"
	n_ttwu=$(grep "^event kind=ipi " "$TMP/ttwu.txt" | grep " cpu=$B " | grep -c ' flags=2 ' || true)
	[ "$n_ttwu" -gt 0 ] || fail "no queued wake-up (IPI with flags=2) traced on CPU $B"
	echo "ok: $n_ttwu queued wake-ups by IPI on CPU $B"
else
	echo "note: no csd tracepoints here; queued wake-up check not run"
fi

# IPIs: expedited membarriers from CPU A interrupt a spinning thread on CPU B.
rec ipi "$O/tests/tc-ipi" "$A" "$B" 20000
[ "$(count ipi ipi)" -gt 0 ] || fail "no IPI traced during membarrier storms"
field ipi ipi cpu | grep -qx "$B" || fail "no IPI traced on the interrupted CPU $B"
# The send is traced (ipi_send_cpu, kernels >= 6.6): aux = when, before the handler ran.
if [ -d /sys/kernel/tracing/events/ipi ] || [ -d /sys/kernel/debug/tracing/events/ipi ]; then
	grep "^event kind=ipi " "$TMP/ipi.txt" | tr ' ' '\n' | grep -E '^(start|aux)=' | paste - - |
		awk -F'[=\t]' '$4 > 0 && $4 < $2 && $2 - $4 < 10000000 { n++ } END { exit !(n > 0) }' ||
		fail "no IPI with its send time (aux) before its handler"
fi
[ "$(count ipi timer)" -gt 0 ] || fail "no local timer interrupt traced"

# Page faults: first touches of fresh memory by the command's thread.
rec fault python3 -c 'b = bytearray(32 << 20)'
[ "$(count fault page_fault)" -gt 1000 ] || fail "too few page faults for 32 MiB of fresh memory"
# A fault that maps a fresh page ends at its RSS change: most of them are timed.
timed=$(field fault page_fault dur | awk '$1 > 0 { n++ } END { print n + 0 }')
[ "$timed" -gt 1000 ] || fail "only $timed page faults with a duration (fresh pages change the RSS)"
field fault page_fault dur | awk '$1 > 1000000000 { bad = 1 } END { exit bad }' ||
	fail "implausible page-fault durations"
# A read of a fresh page maps the zero page: no RSS change, so that fault stays an
# instant, even though an munmap changes the RSS right after it returned. The loop's own
# faults only: its thread's, a read (error code without the write bit) where it read and a
# write where it wrote. The same addresses may be written before or after the loop, by the C
# runtime or, in a sanitizer build, by the leak checker's thread at exit: faults that map a
# page, rightly timed. A kernel that maps a fresh page on a read fault (tc-faults measures
# it: zero_page 0) changes the RSS inside those too: then they are timed, rightly.
rec zero "$O/tests/tc-faults" 200
python3 - "$TMP/zero.log" "$TMP/zero.txt" <<'PY' || fail "zero-page faults got the RSS change of a later munmap, or write faults no duration"
import sys
want, tid, zero_page = {}, None, True
for line in open(sys.argv[1]):
    kind, _, arg = line.partition(" ")
    if kind in ("written", "read"):
        want[int(arg, 16)] = kind
    elif kind == "tid":
        tid = arg.strip()
    elif kind == "zero_page":
        zero_page = arg.strip() == "1"
timed = {"written": 0, "read": 0}
seen = {"written": 0, "read": 0}
for line in open(sys.argv[2]):
    if not line.startswith("event kind=page_fault "):
        continue
    f = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
    kind = want.get(int(f["aux"]))
    write = int(f["arg"]) & 2 != 0
    if kind and f["tid"] == tid and write == (kind == "written"):
        seen[kind] += 1
        timed[kind] += int(f["dur"]) > 0
print("faults seen", seen, "timed", timed, "zero page mapped on a read:", zero_page)
reads_ok = timed["read"] == 0 if zero_page else timed["read"] >= 150
sys.exit(not (seen["read"] >= 150 and reads_ok and timed["written"] >= 150))
PY

# Children are followed: a grandchild's sleep is an off-CPU (blocked) interval.
idle_jiffies() { awk '/^cpu / { print $5 }' /proc/stat; }
idle0=$(idle_jiffies)
rec fork sh -c 'sh -c "sleep 0.3; sleep 0.3"'
idle1=$(idle_jiffies)
[ "$(field fork offcpu tid | sort -u | wc -l)" -ge 2 ] || fail "threads of the children not followed"
# A CPU idles only when nothing else wants it: on a busy machine there is nothing to trace.
if [ $((idle1 - idle0)) -ge 20 ]; then
	[ "$(count fork idle)" -gt 0 ] || fail "no C-state residency traced while the command slept"
else
	echo "note: the CPUs were never idle for long (busy machine); C-state check not conclusive"
fi

# Blocked and preempted off-CPU time told apart (aux = ns from the switch-out until the
# thread was runnable again): a 0.2 s sleep is a blocked interval whose aux is about its
# length; two hogs sharing CPU A preempt each other, and a preempted interval has aux 0.
# Both paths: tp_btf (the wake-up from the kernel's sched_info where it has one) and the
# classic tracepoints (a sched_wakeup program).
split_check() { # split_check NAME
	grep "^event kind=offcpu " "$TMP/$1.txt" | awk '
		{ for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
		f["flags"] % 2 == 0 && f["dur"] >= 190000000 && f["dur"] < 1000000000 &&
			f["aux"] >= 190000000 && f["aux"] <= f["dur"] { slept++ }
		f["flags"] % 2 == 0 && f["aux"] > f["dur"] { bad++ }
		f["flags"] % 2 == 1 { pre++; if (f["aux"] != 0) bad++ }
		END {
			printf "%d blocked sleeps with aux ~ their length, %d preempted, %d bad aux\n",
				slept, pre, bad
			exit !(slept >= 1 && pre >= 10 && bad == 0)
		}' || fail "$1: blocked/preempted split wrong (aux) in the off-CPU records"
}
split_cmd="sleep 0.2; taskset -c $A $O/tests/tc-spin tcsplit1 1 & taskset -c $A $O/tests/tc-spin tcsplit2 1; wait"
rec split sh -c "$split_cmd"
split_check split
TAILCAUSE_FORCE_FALLBACK=1 rec split_tp sh -c "$split_cmd"
grep -q 'tracer.sched.tc_sched_switch=attached tp/sched/sched_switch' "$TMP/split_tp.txt" ||
	fail "TAILCAUSE_FORCE_FALLBACK=1 did not record on classic tracepoints"
split_check split_tp

# Compaction: ask the kernel to compact all zones.
if [ -w /proc/sys/vm/compact_memory ]; then
	rec compact sh -c 'echo 1 > /proc/sys/vm/compact_memory'
	[ "$(count compact compaction)" -gt 0 ] || fail "no compaction traced for compact_memory"
	grep '^event kind=compaction ' "$TMP/compact.txt" | grep -q 'other=[0-9]*:sh' ||
		fail "compaction not tagged with the task that did it"
fi
no_leftover_progs
