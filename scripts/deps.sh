#!/bin/sh
# deps.sh [run|test|bench] - installs the Debian packages one kind of work needs:
#   run    building tailcause and running it (make, make run): nothing else
#   test   run's, and what the tests run or check with (make test, make check, make lint)
#   bench  run's, and the tracers and tools the benchmarks compare with (make bench, make lab)
# Idempotent and quiet when everything is present. Needs root to install.
set -eu

kind=${1:-run}
# Building: the compilers, bpftool (skeletons), the libraries the binary links.
RUN="make gcc clang llvm pkg-config bpftool libbpf-dev libelf-dev zlib1g-dev libdeflate-dev libzstd-dev
libibverbs-dev libsodium-dev"
# Running: taskset and chrt (util-linux) pin and prioritise what a run starts.
RUN="$RUN util-linux"

# The unit tests (cmocka); the sanitizer build's runtime; the system tests' tools (ps,
# ip netns, python3 for the checkers).
TEST="libcmocka-dev libclang-rt-14-dev procps iproute2 python3"
# make lint (CI): the format check and cppcheck.
TEST="$TEST clang-format cppcheck"
# The alert rules' check and unit test (promtool, from Debian's prometheus).
TEST="$TEST prometheus"
# The VM lab (scripts/vmlab: make test-vm): qemu, and what builds its image.
VM="qemu-system-x86 debootstrap e2fsprogs debian-archive-keyring"
TEST="$TEST $VM"
# test_memcheck (valgrind); test_timers' NMIs (perf sampling).
TEST="$TEST valgrind linux-perf"
# record --iter sockperf's system test: Debian's sockperf, unmodified.
TEST="$TEST sockperf"
# test_peer: nftables to lose datagrams on the path between two namespaces.
TEST="$TEST nftables"
# The HTML report's system test renders the page in headless Chromium.
TEST="$TEST chromium"
# make man/completion and tests/test_man.sh: man renders the pages, zsh loads _tailcause.
TEST="$TEST man-db groff-base zsh"
# record --iter mpi: Open MPI to build the collective records' library and run test_mpi.
MPI="openmpi-bin libopenmpi-dev"
TEST="$TEST $MPI"

# make bench: the tracers tailcause is compared with, peak memory, profiling; the udp parity
# benchmark's sockperf; make bench-parity's VM; the lab's scoring (python3).
BENCH="linux-perf bpftrace trace-cmd time valgrind sockperf python3 procps iproute2 $VM $MPI"

case $kind in
run) PKGS=$RUN ;;
test) PKGS="$RUN $TEST" ;;
bench) PKGS="$RUN $BENCH" ;;
*)
	echo "tailcause: deps: unknown set '$kind' (run, test or bench)" >&2
	exit 1
	;;
esac

missing=""
for p in $PKGS; do
	case " $missing " in *" $p "*) continue ;; esac
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "tailcause: deps: missing packages:$missing (run as root, e.g. sudo make ...)" >&2
	exit 2
fi
echo "  DEPS  installing ($kind):$missing"
export DEBIAN_FRONTEND=noninteractive
# A stale package list is the usual reason an install fails: refresh once and retry.
# shellcheck disable=SC2086 # one word per package
if ! apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1; then
	apt-get update -qq >/dev/null
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
