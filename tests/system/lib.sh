# Shared helpers for the system tests (POSIX sh). Source it after set -eu.
# $1 of every test is the build directory.
O=${1:-build}
TC="$O/tailcause"
TMP=$(mktemp -d)
HOG_PID=
cleanup() {
	[ -n "$HOG_PID" ] && kill "$HOG_PID" 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT

skip() { echo "skipped: $*"; exit 77; }
# Built with SAN=1 (AddressSanitizer): valgrind cannot run it, the VM guest lacks libasan.
sanitized() { ldd "$TC" 2>/dev/null | grep -q libasan; }
fail() { echo "FAILED: $*"; exit 1; }

need_root_bpf() {
	[ "$(id -u)" = 0 ] || skip "needs root to load BPF programs"
	[ -r /sys/kernel/btf/vmlinux ] || skip "kernel has no BTF (/sys/kernel/btf/vmlinux)"
	[ "$(nproc)" -ge 2 ] || skip "needs two CPUs for the probe threads"
}

# expect_exit CODE CMD...: runs CMD, fails unless it exits with CODE; output in $TMP/out
expect_exit() {
	want=$1; shift
	set +e
	"$@" >"$TMP/out" 2>&1
	got=$?
	set -e
	[ "$got" = "$want" ] || { cat "$TMP/out"; fail "'$*' exited $got, expected $want"; }
}

# The two CPUs the tests pin the probe to: the last two online.
probe_cpus() {
	n=$(nproc)
	echo "$((n - 2)),$((n - 1))"
}

# No BPF program of ours may outlive the command that loaded it.
# No BPF program or map of ours may outlive the command that loaded it. The
# kernel frees them shortly after their last fd closes: allow it 3 s. Another
# tailcause running on this machine (a developer's, not this test's) owns what
# it loaded: then the check cannot tell and says so.
ours_loaded() {
	bpftool prog show 2>/dev/null | grep -E 'name tc_[a-z_]+ ' ||
		bpftool map show 2>/dev/null | grep -E 'name (probe_tids|probe_cpus|offcpu_start|irq_count) '
}
no_leftover_progs() {
	for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
		ours_loaded >/dev/null || return 0
		sleep 0.2
	done
	if pgrep -x tailcause >/dev/null; then
		echo "note: another tailcause is running; leftover check not conclusive"
		return 0
	fi
	ours_loaded
	fail "BPF programs or maps left behind"
}

# no_kernel_addresses FILE...: fails where a trace's dump or report spells a kernel
# address (KASLR): 16 hex digits from ffff8 up (text, modules, the direct map), a decimal
# as large (dump prints tc_event.aux in decimal), or a ksym. key longer than an id.
no_kernel_addresses() {
	python3 - "$@" <<'PY' || fail "a kernel address in the trace's output (see above)"
import re, sys
HEX = re.compile(r"(?<![0-9a-fA-F])(?:0x)?ffff[89a-f][0-9a-f]{11}(?![0-9a-fA-F])", re.I)
DEC = re.compile(r"(?<![0-9])[0-9]{19,20}(?![0-9])")
KEY = re.compile(r"ksym\.([0-9a-f]+)")
bad = []
for path in sys.argv[1:]:
    for n, line in enumerate(open(path, errors="replace"), 1):
        hits = HEX.findall(line)
        hits += [d for d in DEC.findall(line) if int(d) >= 0xffff800000000000]
        hits += [k for k in KEY.findall(line) if len(k) > 8]
        if hits:
            bad.append("%s:%d: %s" % (path, n, ", ".join(hits[:3])))
for b in bad[:5]:
    print("kernel address:", b)
print("%d line(s) with a kernel address in %s" % (len(bad), " ".join(sys.argv[1:])))
sys.exit(1 if bad else 0)
PY
}

# two_hosts NAME NET: two hosts for a two-host test, network namespaces $NS_A (NET.1) and
# $NS_B (NET.2, NET like 10.211.0) joined by a veth pair; they, and the server $SRV_PID if
# one runs, are removed at exit, a timeout's SIGTERM included. Skips where they cannot be.
SRV_PID=
NS_A=
NS_B=
two_hosts_teardown() {
	[ -n "$SRV_PID" ] && kill "$SRV_PID" 2>/dev/null
	[ -z "$NS_A" ] || ip netns del "$NS_A" 2>/dev/null || true
	[ -z "$NS_B" ] || ip netns del "$NS_B" 2>/dev/null || true
	cleanup
}
two_hosts() {
	command -v ip >/dev/null || skip "needs iproute2 for the network namespaces"
	trap two_hosts_teardown EXIT
	trap 'exit 143' INT TERM
	ip netns add "$1A$$" 2>/dev/null || skip "cannot make network namespaces here"
	NS_A=$1A$$
	ip netns add "$1B$$"
	NS_B=$1B$$
	ip link add "$1a$$" type veth peer name "$1b$$"
	ip link set "$1a$$" netns "$NS_A"
	ip link set "$1b$$" netns "$NS_B"
	ip -n "$NS_A" addr add "$2.1/24" dev "$1a$$"
	ip -n "$NS_B" addr add "$2.2/24" dev "$1b$$"
	for ns in "$NS_A" "$NS_B"; do ip -n "$ns" link set lo up; done
	ip -n "$NS_A" link set "$1a$$" up
	ip -n "$NS_B" link set "$1b$$" up
}
