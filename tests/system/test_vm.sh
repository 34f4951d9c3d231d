#!/bin/sh
# timeout: 2400 (a fresh machine builds the guest image first: debootstrap, then TCG boots)
# The verbs probe on a real verbs device: soft-RoCE (rxe0) in a qemu VM that
# boots Debian's kernel (scripts/vmlab), all checks in ONE boot because a boot
# costs ~11 s under TCG. The host's build/tailcause runs in the guest as it is
# (same Debian 12 userland), over a 9p share of the project tree.
#
# Checked in the guest: loopback lat (inline and not), client/server over
# 127.0.0.1, the error paths (bad -d, -i, -x, port down, peer unreachable, a
# peer that is not tailcause, -n mismatch, RLIMIT_MEMLOCK), a traced
# `tailcause run --probe verbs` (plain, and with a CPU hog that the report must
# blame: the TSC-to-CLOCK_MONOTONIC mapping end to end), an unmodified
# ib_write_lat under record --iter perftest (a hog's spikes named; its -U list
# matched row by row on the host), the rxe driver's
# fentry programs attaching, a sleep recorded on tp_btf as blocked (its wake-up
# from sched_info), record in server mode, both ends recorded and joined (`run
# HOST` against a recording server: a hog on the server's CPU is the peer's
# preemption), and `run` picking verbs by itself where an RDMA port is active.
#
# Usage: tests/system/test_vm.sh BUILD_DIR   (host; needs root)
#        tests/system/test_vm.sh BUILD_DIR --in-guest   (what the VM runs)
# Skips (77) only where qemu cannot run at all: not root, qemu not installable,
# no apt source to build the image from. VMLAB_TIMEOUT bounds the guest part.
set -eu

# ----------------------------------------------------------------- guest side
if [ "${2:-}" = --in-guest ]; then
	TC="$1/tailcause"
	T=$(mktemp -d)
	pass=0 nfail=0
	ok() { echo "PASS $1"; pass=$((pass + 1)); }
	bad() { echo "FAIL $1"; [ -s "$T/out" ] && sed 's/^/    | /' "$T/out" | tail -15; nfail=$((nfail + 1)); }
	# run_rc CODE CMD...: runs CMD with a timeout, output in $T/out; true when it exits CODE
	run_rc() {
		want=$1; shift
		set +e
		timeout 120 "$@" >"$T/out" 2>&1
		got=$?
		set -e
		[ "$got" = "$want" ] || { echo "    exit $got, expected $want: $*" >>"$T/out"; return 1; }
	}
	has() { grep -q -- "$1" "$T/out" || { echo "    missing: $1" >>"$T/out"; return 1; }; }
	# stats_field N FILE: the Nth column of the statistics row (2 = #iterations, 5 = t_typical)
	stats_field() { awk -v f="$1" '/t_typical/ { getline; print $f; exit }' "$2"; }
	# wait_listen LOG: until a server says it is waiting for its client (TCG is slow)
	wait_listen() {
		for _ in $(seq 1 60); do
			grep -q 'waiting for a client' "$1" 2>/dev/null && return 0
			sleep 0.5
		done
		return 1
	}
	port_active() { ibv_devinfo -d rxe0 | grep -q 'state:.*PORT_ACTIVE'; }

	echo "guest: $(uname -r), $(nproc) CPUs, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	if port_active; then ok "rxe0 is PORT_ACTIVE"; else bad "rxe0 is PORT_ACTIVE"; fi

	# Loopback, inline 2-byte writes: every round trip counted, a sane latency.
	if run_rc 0 "$TC" lat --probe verbs --loopback -d rxe0 -n 20000 --cpu 0,1 &&
		has 'probe: verbs on CPUs 0,1: rxe0 port 1 (RoCE' && has 'RoCE' &&
		has '2-byte RDMA WRITE inline, loopback' && has '::ffff:192.0.2.1' &&
		[ "$(stats_field 2 "$T/out")" = 20000 ] &&
		awk -v t="$(stats_field 5 "$T/out")" 'BEGIN { exit !(t > 0.05 && t < 500) }'; then
		ok "lat --loopback: 20000 inline round trips, t_typical $(stats_field 5 "$T/out") us"
		cp "$T/out" "$T/loop.out"
	else
		bad "lat --loopback"
	fi
	grep -q 'clock: TSC' "$T/loop.out" 2>/dev/null && ok "clock: TSC chosen (clock_gettime is slow here)" ||
		{ cp "$T/loop.out" "$T/out" 2>/dev/null || :; bad "clock: TSC chosen (clock_gettime is slow here)"; }

	# Not inline (-I 0), bigger message, -x given, monotonic clock.
	if run_rc 0 "$TC" lat --probe verbs --loopback -d rxe0 -x 1 -s 64 -I 0 -n 3000 \
		--clock monotonic --cpu 1,0 && has '64-byte RDMA WRITE, loopback' &&
		has 'GID 1 ' && has 'clock: CLOCK_MONOTONIC' && [ "$(stats_field 2 "$T/out")" = 3000 ]; then
		ok "lat --loopback -s 64 -I 0 -x 1 --clock monotonic"
	else
		bad "lat --loopback -s 64 -I 0 -x 1 --clock monotonic"
	fi

	# Two processes over TCP 127.0.0.1, like perftest's server and client.
	timeout 120 "$TC" lat --probe verbs -d rxe0 -n 5000 --cpu 0,1 >"$T/srv.out" 2>&1 &
	srv=$!
	if wait_listen "$T/srv.out" && run_rc 0 "$TC" lat --probe verbs -d rxe0 -n 5000 --cpu 1,0 127.0.0.1 &&
		has 'client of 127.0.0.1' && [ "$(stats_field 2 "$T/out")" = 5000 ] &&
		wait "$srv" && grep -q ', server' "$T/srv.out" && [ "$(stats_field 2 "$T/srv.out")" = 4999 ]; then
		ok "lat server + client over 127.0.0.1 (5000 and 4999 round trips)"
	else
		cat "$T/srv.out" >>"$T/out"; bad "lat server + client over 127.0.0.1"
	fi
	kill "$srv" 2>/dev/null || :; wait "$srv" 2>/dev/null || :
	# The audit reads the real verbs port here (the host has no RDMA device).
	set +e
	timeout 120 "$TC" audit --nic rxe0 >"$T/out" 2>&1
	rc=$?
	set -e
	if { [ "$rc" = 0 ] || [ "$rc" = 5 ]; } && has 'rdma-port' &&
		grep 'rxe0 port 1' "$T/out" | grep -q 'PORT_ACTIVE'; then
		ok "audit --nic rxe0 reads the port state over verbs"
	else
		bad "audit --nic rxe0 reads the port state over verbs"
	fi

	# Error paths: one "tailcause:" line each, exit code 2 (environment).
	err_case() {  # err_case NAME PATTERN CMD...
		name=$1 pat=$2; shift 2
		if run_rc 2 "$@" && has "^tailcause: .*$pat" && [ "$(grep -c '^tailcause:' "$T/out")" = 1 ]; then
			ok "error: $name"
		else
			bad "error: $name"
		fi
	}
	err_case "bad -d" "RDMA device 'nosuch' not found (ibv_devinfo lists: rxe0)" \
		"$TC" lat --probe verbs --loopback -d nosuch -n 100
	err_case "bad -x" "no GID at index 99" "$TC" lat --probe verbs --loopback -d rxe0 -x 99 -n 100
	err_case "bad -i" "rxe0 has ports 1..1" "$TC" lat --probe verbs --loopback -d rxe0 -i 2 -n 100
	err_case "peer unreachable" "peer 127.0.0.1 unreachable.*Connection refused" \
		"$TC" lat --probe verbs -d rxe0 -n 100 --port 1 127.0.0.1
	ip link set "${VMLAB_RXE_NETDEV:-vmlab0}" down
	for _ in $(seq 1 20); do port_active || break; sleep 0.25; done
	err_case "port down" "rxe0 port 1 is PORT_DOWN, not PORT_ACTIVE" \
		"$TC" lat --probe verbs --loopback -d rxe0 -n 100
	ip link set "${VMLAB_RXE_NETDEV:-vmlab0}" up
	for _ in $(seq 1 40); do port_active && break; sleep 0.25; done
	# The limit binds only without CAP_IPC_LOCK: run as nobody.
	err_case "memory registration refused" "RLIMIT_MEMLOCK is 0 KiB.*ulimit -l" \
		setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "ulimit -l 0; exec $TC lat --probe verbs --loopback -d rxe0 -n 100"
	# A peer of another kind: perftest's own server on the same port.
	timeout 60 ib_write_lat -d rxe0 -n 100 >"$T/pt.out" 2>&1 &
	pt=$!
	sleep 2
	err_case "peer is not tailcause" "is not tailcause, or another version of it (perftest?" \
		"$TC" lat --probe verbs -d rxe0 -n 100 127.0.0.1
	kill "$pt" 2>/dev/null || :; wait "$pt" 2>/dev/null || :
	timeout 60 "$TC" lat --probe verbs -d rxe0 -n 100 --port 18600 >"$T/srv2.out" 2>&1 &
	srv=$!
	wait_listen "$T/srv2.out" || :
	err_case "parameter mismatch" "the peer runs -n 100 -s 2, this side -n 200 -s 2" \
		"$TC" lat --probe verbs -d rxe0 -n 200 --port 18600 127.0.0.1
	wait "$srv" 2>/dev/null || :

	# Traced: run and record with the verbs probe; the trace says what ran.
	# No --probe: where an RDMA port is active, run takes verbs (loopback) by itself.
	if run_rc 0 "$TC" run -n 20000 --cpu 0,1 --no-progress -o "$T/v.tct" &&
		has 'probe       verbs on CPUs 0,1: 20000 round trips recorded' && has 'clock       TSC' &&
		has 't_typical' && run_rc 0 "$TC" report "$T/v.tct" && has '20000 round trips recorded'; then
		ok "run without --probe: verbs on the active port, traced, reported"
	else
		bad "run without --probe: verbs on the active port, traced, reported"
	fi
	# A hog on the pong CPU: the spikes must be blamed on it. This holds only if
	# the probe's TSC stamps land on the BPF clock (CLOCK_MONOTONIC) correctly.
	if [ -x "$1/tests/tc-spin" ]; then
		nice -n -10 taskset -c 1 "$1/tests/tc-spin" tchog 60 &
		hog=$!
		sleep 0.2
		top_cause() { sed -n '/^  cause  *spikes/{n;p;q}' "$T/out" | awk '{print $1}'; }
		if run_rc 0 "$TC" run --probe verbs -d rxe0 -n 10k --cpu 0,1 --no-progress &&
			[ "$(top_cause)" = preemption:tchog ]; then
			ok "run --probe verbs with a CPU hog: spikes blamed on preemption:tchog"
		else
			echo "    top cause: $(top_cause)" >>"$T/out"; bad "run --probe verbs with a CPU hog"
		fi
		kill "$hog" 2>/dev/null || :; wait "$hog" 2>/dev/null || :
	else
		: >"$T/out"; bad "run with a CPU hog: $1/tests/tc-spin not built"
	fi
	# tp_btf on this older kernel: no wake-up program, the wake-up read from its sched_info
	# at switch-in; a 0.2 s sleep is a blocked interval whose aux is about its length.
	if run_rc 0 "$TC" record -o "$T/sl.tct" --no-progress -- sleep 0.2 &&
		run_rc 0 "$TC" dump "$T/sl.tct" &&
		has 'tracer.sched.tc_sched_switch=attached tp_btf/sched_switch' &&
		! grep -q 'tc_sched_wakeup=' "$T/out" &&
		grep '^event kind=offcpu ' "$T/out" | tr ' ' '\n' | grep -E '^(dur|aux|flags)=' |
		paste - - - | awk -F'[=\t]' '$6 % 2 == 0 && $2 >= 190000000 && $4 >= 190000000 &&
			$4 <= $2 { n++ } END { exit !(n > 0) }'; then
		ok "record -- sleep 0.2 on tp_btf: blocked, aux from sched_info"
	else
		bad "record -- sleep 0.2 on tp_btf: blocked, aux from sched_info"
	fi
	# Classic tracepoints only: on this older kernel the records' BTF types differ
	# from the build host's, and every concern must still load.
	if run_rc 0 "$TC" record --fallback --probe shm -n 20000 --cpu 0,1 --no-progress \
		-o "$T/fb.tct" && run_rc 0 "$TC" dump "$T/fb.tct" &&
		has 'tracer.sched.tc_sched_switch=attached tp/sched/sched_switch' &&
		has 'tracer.mm.tc_page_fault=attached tp/exceptions/page_fault_user' &&
		! grep -q 'attached tp_btf/' "$T/out"; then
		ok "record --fallback: every concern on classic tracepoints"
	else
		bad "record --fallback: every concern on classic tracepoints"
	fi
	# rxe is the stand-in NIC driver: its receive path is where fentry attaches.
	if run_rc 0 "$TC" probes && grep -q 'rxe_rcv' "$T/out" &&
		[ -z "$(grep 'rxe_rcv' "$T/out" | grep -v attached)" ]; then
		ok "probes: the rxe driver's fentry/fexit programs attach"
	else
		bad "probes: the rxe driver's fentry/fexit programs attach"
	fi
	timeout 120 "$TC" record --probe verbs --server -d rxe0 -n 5000 --cpu 0,1 --no-progress \
		-o "$T/srv.tct" >"$T/rec.out" 2>&1 &
	srv=$!
	if wait_listen "$T/rec.out" && run_rc 0 "$TC" lat --probe verbs -d rxe0 -n 5000 --cpu 1,0 127.0.0.1 &&
		wait "$srv" && run_rc 0 "$TC" report "$T/srv.tct" && has '4999 round trips recorded'; then
		ok "record --server traced while a client ran"
	else
		cat "$T/rec.out" >>"$T/out"; bad "record --server traced while a client ran"
	fi
	# rxe's own counters of the path, found and sampled during that run
	if run_rc 0 "$TC" dump "$T/srv.tct" &&
		has '^meta run.path_counters=[0-9]* sampled every 10 ms' &&
		has '^meta counter.[0-9]*=rxe0 port 1 hw_counters/completer_retry_err'; then
		ok "the path counters: rxe0's retransmission and RNR counters sampled"
	else
		bad "the path counters of rxe0"
	fi
	kill "$srv" 2>/dev/null || :; wait "$srv" 2>/dev/null || :
	# -D on both verbs sides, as perftest: runs of -n round trips, agreed between runs over
	# the link, until the first side's time is up (the client's 2 s, not the server's 60).
	timeout 90 "$TC" lat --probe verbs --server -d rxe0 -n 2000 -D 60s --cpu 0,1 \
		>"$T/dsrv.out" 2>&1 &
	srv=$!
	if wait_listen "$T/dsrv.out" &&
		run_rc 0 "$TC" lat --probe verbs -d rxe0 -n 2000 -D 2s --cpu 1,0 127.0.0.1 &&
		awk '$1 ~ /^[0-9]+$/ && $2 >= 4000 { n = 1 } END { exit !n }' "$T/out" &&
		wait "$srv"; then
		ok "lat -D on both verbs sides: several runs, ended by the first side's time"
	else
		cat "$T/dsrv.out" >>"$T/out"; bad "lat -D on both verbs sides"
	fi
	kill "$srv" 2>/dev/null || :; wait "$srv" 2>/dev/null || :
	# Both ends recorded (server and client on rxe0: two traces, one clock), a hog on the
	# server's CPU: one command on the client, `run HOST` against the recording server,
	# fetches the server's trace (both hold the key) and must blame the server's hog as the
	# peer's.
	(umask 077 && head -c 32 /dev/urandom >"$T/key")
	nice -n -10 taskset -c 0 "$1/tests/tc-spin" tcpeerhog 90 &
	hog=$!
	timeout 180 "$TC" record --probe verbs --server -d rxe0 -n 5000 --cpu 0,1 --no-progress \
		--key "$T/key" -o "$T/psrv.tct" >"$T/prec.out" 2>&1 &
	srv=$!
	if wait_listen "$T/prec.out" &&
		run_rc 0 "$TC" run --probe verbs -d rxe0 -n 5000 --cpu 1,0 --no-progress \
			--key "$T/key" 127.0.0.1 &&
		wait "$srv" && has "^  peer        (the server's trace, sent over the link" &&
		has '^  peer:preemption:tcpeerhog  *[1-9]'; then
		ok "run --probe verbs HOST: the server's hog is peer:preemption:tcpeerhog"
	else
		cat "$T/prec.out" >>"$T/out"; bad "run --probe verbs HOST against a recording server"
	fi
	kill "$srv" "$hog" 2>/dev/null || :; wait "$srv" "$hog" 2>/dev/null || :
	# An unmodified perftest under --iter perftest (its provider's post_send, found through
	# the verbs context). Quiet: the marked iterations and perftest's own -U list go to the
	# build directory, for the host to compare row by row (the guest has no python). Then
	# with a hog that wakes every 5 ms on the client's CPU: its spikes are blamed on it.
	# (Under a hog the rows are not compared: a preemption between perftest's clock read
	# and its post lands in the neighbouring iteration, a few rows in a thousand.)
	rm -rf "$1/vm-iter"; mkdir -p "$1/vm-iter"
	# perftest times with its own estimate of the CPU's MHz; under TCG that estimate can
	# fail ("Correlation coefficient r^2: ... < 0.9", every figure inf): perftest's own
	# failure, so such a run is made again, up to twice, and says so. A check that reads
	# perftest's figures (its -U list) is skipped, and says why, if all three failed.
	pt_once() {  # N RECORD_ARGS...: ib_write_lat -n N -U as client of a server on CPU 0
		n=$1; shift
		timeout 120 taskset -c 0 ib_write_lat -d rxe0 -n "$n" >"$T/pts.out" 2>&1 &
		pts=$!
		sleep 2
		run_rc 0 "$TC" record --no-progress "$@" -- \
			taskset -c 1 ib_write_lat -d rxe0 -n "$n" -U 127.0.0.1
		rc=$?
		wait "$pts" 2>/dev/null || :
		return $rc
	}
	pt_run() {
		for try in 1 2 3; do
			pt_once "$@" && ! grep -q 'Correlation coefficient r^2' "$T/out" && return 0
			grep -q 'Correlation coefficient r^2' "$T/out" || return 1
			[ "$try" = 3 ] ||
				echo "    (perftest could not estimate the CPU's MHz under TCG: its run made again)"
		done
		return 0 # recorded; its own figures are inf (pt_inf)
	}
	pt_inf() {  # FILE: perftest's -U output whose figures are inf (its estimate failed)
		grep -q 'Correlation coefficient r^2' "$1"
	}
	pt_record() {  # NAME N
		pt_run "$2" -f -o "$T/$1.tct" --iter perftest
	}
	if pt_record ptq 10000 && cp "$T/out" "$1/vm-iter/perftest-U.txt" &&
		run_rc 0 "$TC" report "$T/ptq.tct" && has 'iterations  --iter perftest' &&
		has '9999 iterations from 10000 marks' && has 'librxe-rdmav.*\.so+0x' &&
		run_rc 0 "$TC" dump "$T/ptq.tct" --samples && cp "$T/out" "$1/vm-iter/samples.txt"; then
		ok "record --iter perftest: ib_write_lat's 9999 iterations at its provider's post_send"
	else
		bad "record --iter perftest"
	fi
	# Every iteration's marks, against perftest's own list over the whole run: the clocks
	# stay on one line (the method --iter-log uses to place an unmarked run).
	if pt_inf "$1/vm-iter/perftest-U.txt"; then
		echo "    skipped: report --iter-log over a fully marked run: perftest's own MHz estimate failed three times (its -U list is inf)"
	elif run_rc 0 "$TC" report "$T/ptq.tct" --iter-log "$1/vm-iter/perftest-U.txt" &&
		has '9999 iterations of .*, placed by the first 9999 marked'; then
		ok "report --iter-log: $(sed -n 's/.*\(its clock runs [^;]*; the marks lie [0-9.]* usec\).*/\1/p' "$T/out")"
	else
		bad "report --iter-log over a fully marked run"
	fi
	# The hog's bursts (4 ms every 20) are longer than perftest's p99 under TCG, as the
	# server's below: with 300 us bursts a CI run had none of the --iter-first run's
	# spikes named after it (they were only above p99 where they met a larger delay). It
	# runs until it is killed after both checks: a CI run that made perftest's run three
	# times in each check found no hog spike in the last, most likely after its 60 s hog
	# had ended.
	nice -n -10 taskset -c 1 "$1/tests/tc-spin" tcpthog 600 4000 20000 &
	hog=$!
	if pt_record pth 3000 && run_rc 0 "$TC" report "$T/pth.tct" && has 'preemption:tcpthog'; then
		ok "record --iter perftest with a hog on the client's CPU: its spikes named"
	else
		bad "record --iter perftest with a hog on the client's CPU"
	fi
	# Only the first 500 iterations marked (their uprobe traps stop there), perftest's -U
	# list placed by them: all its iterations attributed, the hog's spikes named.
	pt_first() {
		pt_run 3000 -f -o "$T/ptf.tct" --iter perftest --iter-first 500 || return 1
		cp "$T/out" "$T/ptf.U"
	}
	if ! pt_first; then
		bad "record --iter-first 500 + report --iter-log"
	elif pt_inf "$T/ptf.U"; then
		echo "    skipped: record --iter-first 500 + report --iter-log: perftest's own MHz estimate failed three times (its -U list is inf)"
	elif run_rc 0 "$TC" report "$T/ptf.tct" && has '500 iterations from 501 marks' &&
		run_rc 0 "$TC" report "$T/ptf.tct" --iter-log "$T/ptf.U" &&
		has '2999 iterations of .*, placed by the first 500 marked' && has 'preemption:tcpthog'; then
		ok "record --iter-first 500 + report --iter-log: 2999 iterations placed, the hog named"
	else
		bad "record --iter-first 500 + report --iter-log"
	fi
	kill "$hog" 2>/dev/null || :; wait "$hog" 2>/dev/null || :
	# perftest's two ends, each under record --iter perftest (two processes on rxe0, one
	# clock), a hog on the server's CPU: the traces have no run id, so they are joined by
	# their marked iterations (perftest's server posts first: the initiating end), and the
	# server's hog is the peer's preemption. Its bursts (4 ms every 20) are longer than a
	# round trip's p99 under TCG (~1-3 ms one way, most of it the two recorders' own
	# draining): a CI run with 300 us bursts had none of them above p99 but where they met
	# other delays, and there the larger delay was primary (four runs: 1-8 spikes the hog's;
	# with 4 ms bursts 20-27 of 29).
	pt_both() {
		timeout 180 "$TC" record --no-progress -f -o "$T/pts2.tct" --iter perftest -- \
			taskset -c 0 ib_write_lat -d rxe0 -n 3000 >"$T/pts2.out" 2>&1 &
		pts=$!
		for _ in $(seq 1 240); do
			[ -n "$(ss -Hltn 'sport = :18515')" ] && break
			sleep 0.25
		done
		run_rc 0 "$TC" record --no-progress -f -o "$T/ptc2.tct" --iter perftest -- \
			taskset -c 1 ib_write_lat -d rxe0 -n 3000 127.0.0.1
		rc=$?
		wait "$pts" || rc=1
		return $rc
	}
	nice -n -10 taskset -c 0 "$1/tests/tc-spin" tcsrvhog 600 4000 20000 & # killed below
	hog=$!
	if ! pt_both && grep -q 'Correlation coefficient r^2' "$T/out" "$T/pts2.out"; then
		echo "    (perftest could not estimate the CPU's MHz under TCG: its run made again)"
		pt_both || : # judged below, with what it left
	fi
	if [ -s "$T/ptc2.tct" ] && [ -s "$T/pts2.tct" ] &&
		run_rc 0 "$TC" report "$T/ptc2.tct" --peer "$T/pts2.tct" &&
		has 'paired by marked iterations' && has '^  peer:preemption:tcsrvhog  *[1-9]'; then
		ok "perftest's two ends under record --iter, joined: the server's hog is the peer's"
	else
		# the server's perftest output, then the report's header and causes (bad() shows
		# the end)
		cp "$T/out" "$T/rep.out"
		{
			tail -4 "$T/pts2.out"
			grep -E '^  (peer|round trips|spikes) ' "$T/rep.out"
			sed -n '/^  cause  *spikes/,/^$/p' "$T/rep.out" | head -8
			grep 'missing:' "$T/rep.out"
		} >"$T/out"
		bad "perftest's two ends under record --iter, joined"
	fi
	kill "$hog" 2>/dev/null || :; wait "$hog" 2>/dev/null || :
	if bpftool prog show 2>/dev/null | grep -qE 'name tc_(sched|irq|softirq)'; then
		: >"$T/out"; bad "no BPF programs left behind"
	else
		ok "no BPF programs left behind"
	fi

	echo "guest: $pass passed, $nfail failed"
	rm -rf "$T"
	[ "$nfail" = 0 ]
	exit
fi

# ------------------------------------------------------------------ host side
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
vmlab="$top/scripts/vmlab"
O=$(cd "$O" && pwd)
TC="$O/tailcause"
[ -x "$TC" ] || fail "$TC not built"
sanitized && skip "built with SAN=1: the VM guest has no AddressSanitizer runtime"

# On the host first, no VM needed: the verbs options are parsed and refused as
# documented (exit 1), and a host without RDMA devices says so (exit 2).
expect_exit 1 "$TC" lat --probe shm -d rxe0
grep -q '^tailcause: --probe shm: the RDMA options' "$TMP/out" || fail "verbs option with shm accepted"
expect_exit 1 "$TC" lat --probe verbs --loopback 127.0.0.1
grep -q 'exclude each other' "$TMP/out" || fail "--loopback with HOST accepted"
expect_exit 1 "$TC" lat --probe verbs --loopback -s 0
expect_exit 1 "$TC" lat --probe verbs --loopback --clock sundial
expect_exit 1 "$TC" run --probe verbs --port 70000
expect_exit 0 "$TC" lat --help
grep -q -- '--gid-index' "$TMP/out" || fail "lat --help lacks the verbs options"
if [ ! -d /sys/class/infiniband ] || [ -z "$(ls /sys/class/infiniband)" ]; then
	expect_exit 2 "$TC" lat --probe verbs --loopback -n 100
	grep -q '^tailcause: no RDMA device: ibv_devinfo lists none' "$TMP/out" ||
		fail "no 'no RDMA device' message"
fi

[ "$(id -u)" = 0 ] || skip "needs root to run scripts/vmlab (debootstrap, qemu 9p)"
if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	bash "$vmlab" deps >"$TMP/deps.log" 2>&1 || { cat "$TMP/deps.log"; skip "qemu-system-x86 cannot be installed"; }
fi
if ! bash "$vmlab" image-ok; then
	bash "$vmlab" info | grep -q '^mirror:  [^?]' || skip "no apt source to build the VM image from"
	t0=$(date +%s)
	bash "$vmlab" build || fail "VM image build failed"
	echo "VM image built in $(($(date +%s) - t0)) s"
fi
shares="--share $top"
case "$O" in "$top"/*) ;; *) shares="$shares --share $O" ;; esac
t0=$(date +%s)
set +e
# shellcheck disable=SC2086
bash "$vmlab" run $shares --timeout "${VMLAB_TIMEOUT:-600}" -- sh "$top/tests/system/test_vm.sh" "$O" --in-guest
rc=$?
set -e
echo "VM boot + checks: $(($(date +%s) - t0)) s"
case $rc in
0) ;;
124) fail "the VM run timed out" ;;
125) fail "vmlab failed (see above)" ;;
*) fail "checks failed in the VM (exit $rc)" ;;
esac
# perftest's own -U list against the iterations tailcause marked in the guest, row by row:
# every row, a constant offset, each row closer to its own than to its neighbour (the spread
# itself varies with the emulator's pace: check_iter_log.py's --emulated). The tails are printed, not judged: under TCG a delay
# in the uprobe's trap (~13 us there) moves time to the neighbouring iteration often
# enough to shift p99 by a few percent in some runs (bench/history/parity-and-iterations.md has the figures).
if grep -q 'Correlation coefficient r^2' "$O/vm-iter/perftest-U.txt"; then
	echo "skipped (row by row against perftest -U): perftest's own MHz estimate failed three times"
else
	python3 "$top/tests/system/check_iter_log.py" "$O/vm-iter/samples.txt" perftest \
		"$O/vm-iter/perftest-U.txt" --tails-reported --emulated ||
		fail "record --iter perftest does not match perftest -U"
fi
rm -rf "$O/vm-iter"
