#!/bin/sh
# timeout: 1800 (a fresh machine builds the guest images first: debootstrap, the kernels)
# The kernel matrix: the same checks on this host's own kernel and on each Debian kernel the
# VM lab boots (scripts/vmlab --kernel: 5.10 from bullseye, 6.1 from bookworm, 6.12 from
# bookworm-backports), one boot per kernel under TCG. docs/kernels.md lists the results.
#
# Checked on each kernel: `probes` (every program attached or saying why not; the NIC
# programs' fentry attaching to mlx5_core's and rdma_rxe's own BTF, both modules loaded
# without a device), `probes --fallback` (the classic twins), `record` on tp_btf and with
# --fallback, `run --probe shm` with a pinned hog that the report must blame, the verbs
# probe on rxe0, and --btf: with the kernel's BTF hidden (an empty file bound over
# /sys/kernel/btf/vmlinux), tracing fails and says to give --btf, and works from a copy of
# that BTF. On the host the module and verbs checks skip (no modules, no RDMA device).
#
# Usage: tests/system/kernels.sh BUILD_DIR            (host; needs root)
#        tests/system/kernels.sh TC --in-guest OUTDIR  (what each VM runs)
# Environment: TC_BIN (the binary under test; default BUILD_DIR/tailcause: the dist build
# goes here), TC_KERNELS (default "5.10 6.1 6.12"; "" for the host only), VMLAB_SUITE (the
# guest's userland; default bookworm, which has the dynamic build's libraries).
set -eu

# ----------------------------------------------------------------- guest side
if [ "${2:-}" = --in-guest ]; then
	TC=$1 OUT=$3
	T=$(mktemp -d)
	pass=0 nfail=0
	lap=$(date +%s)
	# PASS or FAIL, and the seconds since the last check
	ok() { echo "PASS $1 ($(($(date +%s) - lap)) s)"; lap=$(date +%s); pass=$((pass + 1)); }
	bad() {
		echo "FAIL $1 ($(($(date +%s) - lap)) s)"; lap=$(date +%s)
		[ -s "$T/out" ] && sed 's/^/    | /' "$T/out" | tail -15
		nfail=$((nfail + 1))
	}
	run_rc() { # run_rc CODE CMD...: true when CMD exits CODE; output in $T/out
		want=$1; shift
		set +e
		timeout 120 "$@" >"$T/out" 2>&1
		got=$?
		set -e
		[ "$got" = "$want" ] || { echo "    exit $got, expected $want: $*" >>"$T/out"; return 1; }
	}
	has() { grep -q -- "$1" "$T/out" || { echo "    missing: $1" >>"$T/out"; return 1; }; }
	# every row of probes' table is attached, or missing with a reason
	all_said() { awk 'NR > 1 && $3 != "attached" && ($3 != "missing" || NF < 4) { bad = 1 } END { exit bad }' "$T/out"; }
	k=$(uname -r)
	echo "kernel: $k, $(nproc) CPUs, $(. /etc/os-release && echo "$PRETTY_NAME") userland"
	mkdir -p "$OUT"
	# A binary this userland cannot run (a library or glibc version it lacks) fails once.
	if ! run_rc 0 "$TC" --version; then
		bad "$TC runs here"
		exit 1
	fi
	if [ "${TC_ON_HOST:-}" = 1 ] || [ ! -d /lib/modules/"$k" ]; then
		echo "    skipped: modprobe mlx5_core rdma_rxe: no modules for $k here"
	elif run_rc 0 sh -c 'modprobe mlx5_core && modprobe rdma_rxe'; then
		ok "modprobe mlx5_core rdma_rxe (no device)"
	else
		bad "modprobe mlx5_core rdma_rxe"
	fi
	if run_rc 0 "$TC" probes && all_said && has ' attached tp_btf/'; then
		ok "probes: $(grep -c ' attached ' "$T/out") attached, $(grep -c ' missing ' "$T/out") missing with a reason"
	else
		bad "probes: every program attached or saying why"
	fi
	cp "$T/out" "$OUT/probes-$k.txt"
	# sched_switch where probes found it (5.10: its tp_btf concern falls back whole)
	sw=$(awk '$2 == "tc_sched_switch" && $3 == "attached" { print $4 }' "$T/out")
	if [ -d /sys/module/mlx5_core ] && [ -d /sys/module/rdma_rxe ]; then
		grep -E 'tc_(mlx5_comp|mlx5_async|rxe_rcv) ' "$T/out" >"$T/nic" || :
		if [ -e /sys/kernel/btf/rdma_rxe ]; then
			want="attached  *fentry/" what="on mlx5_core's and rdma_rxe's BTF"
		else
			want="missing .*it has no BTF of modules" what="missing: this kernel has no BTF of modules, said"
		fi
		if [ "$(grep -c " $want" "$T/nic")" = 3 ]; then
			ok "probes: the NIC programs' fentry $what"
		else
			cp "$T/nic" "$T/out"; bad "probes: the NIC programs' fentry $what"
		fi
	else
		echo "    skipped: the NIC programs' fentry: mlx5_core and rdma_rxe not loaded"
	fi
	if run_rc 0 "$TC" probes --fallback && all_said && has 'attached tp/sched/sched_switch' &&
		! grep -q 'attached  *tp_btf/' "$T/out"; then
		ok "probes --fallback: the classic twins"
	else
		bad "probes --fallback: the classic twins"
	fi
	cp "$T/out" "$OUT/probes-fallback-$k.txt"
	# record_on TARGET ARGS...: record a 0.2 s sleep (under $wrap), the trace says which ran
	wrap=
	record_on() {
		target=$1; shift
		# shellcheck disable=SC2086
		run_rc 0 $wrap "$TC" record -f -o "$T/r.tct" --no-progress --no-calibrate "$@" -- sleep 0.2 &&
			run_rc 0 "$TC" dump "$T/r.tct" && has "tracer.sched.tc_sched_switch=attached $target" &&
			has '^event kind=offcpu '
	}
	if record_on "$sw"; then ok "record: sched_switch on $sw"; else bad "record: sched_switch on $sw"; fi
	if record_on tp/sched/sched_switch --fallback && ! grep -q 'attached tp_btf/' "$T/out"; then
		ok "record --fallback on classic tracepoints"
	else
		bad "record --fallback on classic tracepoints"
	fi
	# A hog at nice -10 pinned to the pong CPU: the report blames its preemption. A copy of
	# the shell (named tchog) spins: no helper binary that the guest's glibc may not run.
	cp "$(command -v sh)" "$T/tchog"
	nice -n -10 taskset -c 1 "$T/tchog" -c 'while :; do :; done' &
	hog=$!
	sleep 0.2
	top_cause() { sed -n '/^  cause  *spikes/{n;p;q}' "$T/out" | awk '{print $1}'; }
	if run_rc 0 "$TC" run --probe shm -n 20k -c 0,1 --no-progress && [ "$(top_cause)" = preemption:tchog ]; then
		ok "run --probe shm -c 0,1 with a pinned hog: preemption:tchog"
	else
		echo "    top cause: $(top_cause)" >>"$T/out"; bad "run with a pinned hog"
	fi
	kill "$hog" 2>/dev/null || :; wait "$hog" 2>/dev/null || :
	if [ -z "${VMLAB_RXE_DEV:-}" ]; then
		echo "    skipped: the verbs probe: no rxe0 here"
	elif run_rc 0 "$TC" run --probe verbs -d rxe0 -n 5000 -c 0,1 --no-progress &&
		has 'verbs on CPUs 0,1: 5000 round trips recorded' && has 't_typical'; then
		ok "run --probe verbs -d rxe0: reported"
	else
		bad "run --probe verbs -d rxe0"
	fi
	# --btf: the kernel's BTF hidden from user space (bound over by an empty file, in a mount
	# namespace of its own) as on a kernel built without it; its copy given instead.
	if [ ! -s /sys/kernel/btf/vmlinux ]; then
		echo "    skipped: --btf: this kernel has no BTF to copy"
	else
		cp /sys/kernel/btf/vmlinux "$T/vmlinux.btf"
		: >"$T/empty"
		printf 'mount --bind %s /sys/kernel/btf/vmlinux && exec "$@"\n' "$T/empty" >"$T/nobtf"
		wrap="unshare -m sh $T/nobtf"
		# shellcheck disable=SC2086
		if run_rc 2 $wrap "$TC" probes && has 'give its types with --btf FILE'; then
			ok "no kernel BTF: tracing refused, --btf suggested"
		else
			bad "no kernel BTF: tracing refused, --btf suggested"
		fi
		# shellcheck disable=SC2086
		if run_rc 0 $wrap "$TC" probes --btf "$T/vmlinux.btf" && all_said &&
			has 'attached tp/sched/sched_switch' && ! grep -q 'attached  *tp_btf/' "$T/out" &&
			record_on tp/sched/sched_switch --btf "$T/vmlinux.btf"; then
			ok "no kernel BTF, --btf FILE: probes and record on classic tracepoints"
			cp "$T/out" "$OUT/record-btf-$k.txt"
		else
			bad "no kernel BTF, --btf FILE"
		fi
		wrap=
		if run_rc 2 "$TC" probes --btf "$T/empty" && has '^tailcause: --btf '; then
			ok "--btf with a file that is not BTF: refused"
		else
			bad "--btf with a file that is not BTF: refused"
		fi
	fi
	if command -v bpftool >/dev/null && bpftool prog show 2>/dev/null | grep -qE 'name tc_'; then
		: >"$T/out"; bad "no BPF programs left behind"
	fi
	echo "kernel $k: $pass passed, $nfail failed"
	rm -rf "$T"
	[ "$nfail" = 0 ]
	exit
fi

# ------------------------------------------------------------------ host side
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
vmlab="$top/scripts/vmlab"
O=$(cd "$O" && pwd)
TC=$(realpath "${TC_BIN:-$O/tailcause}")
[ -x "$TC" ] || fail "$TC not built"
sanitized && skip "built with SAN=1: the VM guest has no AddressSanitizer runtime"
[ "$(id -u)" = 0 ] || skip "needs root (BPF here, scripts/vmlab)"
kernels=${TC_KERNELS-5.10 6.1 6.12}
res="$O/kernels"
rm -rf "$res"; mkdir -p "$res"
summary=""
failed=""

# This host's own kernel first: no VM.
t0=$(date +%s)
if [ -r /sys/kernel/btf/vmlinux ] && [ "$(nproc)" -ge 2 ] &&
	TC_ON_HOST=1 sh "$0" "$TC" --in-guest "$res"; then
	summary="$summary
  $(uname -r) (this host): passed in $(($(date +%s) - t0)) s"
else
	failed="$failed host"
	summary="$summary
  $(uname -r) (this host): FAILED"
fi

if [ -n "$kernels" ]; then
	if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
		bash "$vmlab" deps >"$TMP/deps.log" 2>&1 || { cat "$TMP/deps.log"; skip "qemu-system-x86 cannot be installed"; }
	fi
	if ! bash "$vmlab" image-ok; then
		bash "$vmlab" info | grep -q '^mirror:  [^?]' || skip "no apt source to build the VM image from"
		bash "$vmlab" build || fail "VM image build failed"
	fi
	t0=$(date +%s)
	bash "$vmlab" build-kernels || fail "the kernels' image build failed"
	echo "kernels' image: $(($(date +%s) - t0)) s (0 when cached)"
fi
shares="--share $top"
for d in "$O" "$(dirname "$TC")"; do
	case "$d" in "$top" | "$top"/*) ;; *) shares="$shares --share $d" ;; esac
done
for kv in $kernels; do
	echo "--- kernel $kv"
	t0=$(date +%s)
	set +e
	# shellcheck disable=SC2086
	bash "$vmlab" run $shares --kernel "$kv" --timeout "${VMLAB_TIMEOUT:-600}" -- \
		sh "$top/tests/system/kernels.sh" "$TC" --in-guest "$res"
	rc=$?
	set -e
	dt=$(($(date +%s) - t0))
	if [ "$rc" = 0 ]; then
		summary="$summary
  $kv (VM, ${VMLAB_SUITE:-bookworm} userland): passed, boot + checks $dt s"
	else
		failed="$failed $kv"
		summary="$summary
  $kv (VM, ${VMLAB_SUITE:-bookworm} userland): FAILED (exit $rc) after $dt s"
	fi
done
echo "kernels:$summary"
echo "(probes tables in $res)"
[ -z "$failed" ] || fail "kernels failed:$failed"
