#!/bin/sh
# A shared network: the udp probe's recording server in one network namespace, clients
# in another, joined by a veth pair the test makes and removes (addresses only inside
# them). A server with a key lets in only a client with the same key: a connection that
# closes at once (a port scan), a client with another key and one with none are each
# refused, logged with their address, and the server goes on waiting for the real client,
# which gets the two-host report. Without a key on both hosts the run goes ahead and no
# trace crosses: the client's report says why. --bind listens on one address only. While a
# recording runs, no thread holds CAP_DAC_OVERRIDE or CAP_DAC_READ_SEARCH, and run through
# sudo it takes the invoking user's ids and hands them its trace.
set -eu
. "$(dirname "$0")/lib.sh"

(umask 077 && head -c 32 /dev/urandom | base64 >"$TMP/k1" && head -c 32 /dev/urandom >"$TMP/k2")
# Usage errors need no privileges: a key for one host, a key others may read, a short one.
expect_exit 1 "$TC" lat --probe udp --loopback --key "$TMP/k1"
grep -q "^tailcause: --key is for two-host runs" "$TMP/out" || fail "--key with --loopback taken"
cp "$TMP/k1" "$TMP/open" && chmod 0644 "$TMP/open"
expect_exit 1 "$TC" lat --probe udp --key "$TMP/open" 10.0.0.1
grep -q "others may read or write it (mode 644): chmod 600" "$TMP/out" ||
	fail "a key others may read was taken"
(umask 077 && printf 'too short\n' >"$TMP/short")
expect_exit 1 "$TC" lat --probe udp --key "$TMP/short" 10.0.0.1
grep -q "9 bytes of secret: a key holds 16 to 4096" "$TMP/out" || fail "a short key was taken"
expect_exit 1 "$TC" lat --probe udp --bind 127.0.0.1 10.0.0.1
grep -q "^tailcause: --bind is for the server" "$TMP/out" || fail "--bind with a client taken"
expect_exit 1 "$TC" lat --probe shm --key "$TMP/k1"
"$TC" record --help | grep -q -- '--key FILE' || fail "record --help lacks --key"

need_root_bpf
command -v ss >/dev/null || skip "needs ss (iproute2) to see the listening socket"
two_hosts tckey 10.213.0

CPUS=$(probe_cpus)
S=${CPUS%,*}
C=${CPUS#*,}
PORT=$((20000 + $$ % 20000))
N=5000

# server LOG ARGS...: a recording server on 10.213.0.1 (--bind) started as $SRV_PID,
# waiting for its client (its BPF programs load first).
server() {
	log=$1; shift
	ip netns exec "$NS_A" "$TC" record --probe udp --server --bind 10.213.0.1 --port "$PORT" \
		-c "$S,$C" -n "$N" --no-progress "$@" >"$log" 2>&1 &
	SRV_PID=$!
	for _ in $(seq 600); do
		grep -q "waiting for a client" "$log" 2>/dev/null && return 0
		kill -0 "$SRV_PID" 2>/dev/null || { cat "$log"; fail "the server quit"; }
		sleep 0.1
	done
	cat "$log"
	fail "the server never waited for a client"
}

# client EXPECTED_EXIT OUT ARGS...: `run` from the other namespace
client() {
	want=$1 out=$2; shift 2
	set +e
	ip netns exec "$NS_B" "$TC" run --probe udp --port "$PORT" -c "$C,$S" -n "$N" \
		--no-progress "$@" 10.213.0.1 >"$out" 2>"$out.err"
	got=$?
	set -e
	[ "$got" = "$want" ] || { cat "$out" "$out.err"; fail "client $*: exit $got, expected $want"; }
}

server "$TMP/srv.log" --key "$TMP/k1" -o "$TMP/srv.tct"
# --bind: the server listens on its veth address alone, not on every address
ip netns exec "$NS_A" ss -Hltn "sport = :$PORT" | grep -q "10.213.0.1:$PORT" ||
	{ ip netns exec "$NS_A" ss -Hltn; fail "--bind 10.213.0.1 does not listen there"; }
ip netns exec "$NS_A" ss -Hltn "sport = :$PORT" | grep -q "\*:$PORT\|\[::\]:$PORT" &&
	fail "--bind listens on every address"
# a port scan: connect, then close at once
ip netns exec "$NS_B" python3 -c "import socket; socket.create_connection(('10.213.0.1', $PORT)).close()"
client 2 "$TMP/wrong.txt" --key "$TMP/k2"
grep -q "refused this client: its key is not the server's" "$TMP/wrong.txt.err" ||
	{ cat "$TMP/wrong.txt.err"; fail "a client with another key does not say it was refused"; }
[ -s "$TMP/wrong.txt" ] && fail "a refused client printed a report"
client 2 "$TMP/nokey.txt"
grep -q "refused this client: it requires a key" "$TMP/nokey.txt.err" ||
	{ cat "$TMP/nokey.txt.err"; fail "a client without a key does not say it was refused"; }
kill -0 "$SRV_PID" || { cat "$TMP/srv.log"; fail "a refused connection ended the server's run"; }
client 0 "$TMP/good.txt" --key "$TMP/k1"
wait "$SRV_PID" || { cat "$TMP/srv.log"; fail "the server's recording failed"; }
SRV_PID=
for why in "it closed the connection before the handshake ended" \
	"its key is not this server's" "it has no key (give it --key)"; do
	grep -q "refused a connection from 10.213.0.2:[0-9]*: $why; still waiting" "$TMP/srv.log" ||
		{ cat "$TMP/srv.log"; fail "the server did not log: $why"; }
done
grep -q "trace sent to the client" "$TMP/srv.log" || { cat "$TMP/srv.log"; fail "no trace sent"; }
grep -q "^  peer        (the server's trace, sent over the link, not kept): " "$TMP/good.txt" ||
	{ cat "$TMP/good.txt" "$TMP/good.txt.err"; fail "the keyed client has no two-host report"; }
[ "$(stat -c %a "$TMP/srv.tct")" = 600 ] || fail "the server's trace is not mode 0600"

# No key on either host: the run goes ahead, no trace crosses, and the report says why.
server "$TMP/srv2.log" -o "$TMP/srv2.tct"
client 0 "$TMP/plain.txt" -o "$TMP/plain.tct"
wait "$SRV_PID" || { cat "$TMP/srv2.log"; fail "the keyless server's recording failed"; }
SRV_PID=
grep -q "^  peer        the server's trace was not fetched: neither host has --key" "$TMP/plain.txt" ||
	{ cat "$TMP/plain.txt"; fail "the report does not say why there is no peer trace"; }
[ -e "$TMP/plain-peer.tct" ] && fail "a trace crossed an unkeyed link"
grep -q "no trace sent to the client: this server has no --key" "$TMP/srv2.log" ||
	{ cat "$TMP/srv2.log"; fail "the keyless server does not say it sent nothing"; }
# A key on the client alone: the same, said as the server's lack.
server "$TMP/srv3.log" -o "$TMP/srv3.tct"
client 0 "$TMP/half.txt" --key "$TMP/k1"
wait "$SRV_PID" || { cat "$TMP/srv3.log"; fail "the keyless server's recording failed"; }
SRV_PID=
grep -q "^  peer        the server's trace was not fetched: the server has no --key" "$TMP/half.txt" ||
	{ cat "$TMP/half.txt"; fail "a key on the client alone is not said"; }

# Privileges while recording: no thread of it keeps the file powers (CAP_DAC_OVERRIDE bit 1,
# CAP_DAC_READ_SEARCH bit 2).
# caps_of PID: every thread's "Uid CapEff" line
caps_of() {
	for st in /proc/"$1"/task/*/status; do
		[ -r "$st" ] || continue # it ended meanwhile
		awk '/^Uid:/ { u = $2 } /^CapEff:/ { c = $2 } END { print u, c }' "$st"
	done
}
# watch PID LOG: the lines of caps_of while the recording runs (its threads are all there
# once the probe runs: after 2 s)
watch_caps() {
	sleep 2
	caps_of "$1" >"$TMP/caps"
	wait "$1" || { cat "$2"; fail "the recording failed"; }
	[ -s "$TMP/caps" ] || { cat "$2"; fail "no thread seen while recording"; }
}
"$TC" record -n 1M -D 5s --no-progress -o "$TMP/root.tct" >"$TMP/root.log" 2>&1 &
watch_caps $! "$TMP/root.log"
while read -r uid eff; do
	[ $((0x$eff & 6)) = 0 ] || { cat "$TMP/caps"; fail "a recording thread holds file powers ($eff)"; }
done <"$TMP/caps"
# Through sudo (its variables): the invoking user's ids, in a directory of that user's.
mkdir "$TMP/home" && chown 65534:65534 "$TMP/home" && chmod 0755 "$TMP"
tc=$(cd "$(dirname "$TC")" && pwd)/tailcause
(
	cd "$TMP/home"
	export SUDO_UID=65534 SUDO_GID=65534 SUDO_USER=nobody
	# LeakSanitizer stops the world with ptrace, which a process that changed ids may not
	sanitized && export ASAN_OPTIONS=detect_leaks=0
	exec "$tc" record -n 1M -D 5s --no-progress -o "$TMP/home/user.tct"
) >"$TMP/user.log" 2>&1 &
watch_caps $! "$TMP/user.log"
while read -r uid eff; do
	[ "$uid" = 65534 ] && [ $((0x$eff)) = 0 ] ||
		{ cat "$TMP/caps"; fail "a sudo recording kept root's ids or capabilities"; }
done <"$TMP/caps"
[ "$(stat -c '%u %a' "$TMP/home/user.tct")" = "65534 600" ] ||
	fail "the sudo user's trace is not theirs, mode 0600"
"$TC" report "$TMP/home/user.tct" --top 0 >/dev/null || fail "the sudo user's trace does not read"
no_leftover_progs
echo "ok: keyed link: strangers refused and logged, the server kept waiting; no trace without a key; no file powers while recording"
