#!/bin/sh
# Installs the Debian packages tailcause needs to build, test and benchmark.
# Idempotent and quiet when everything is present. Needs root to install.
set -eu

PKGS="make gcc clang llvm pkg-config bpftool libbpf-dev libelf-dev zlib1g-dev libdeflate-dev libzstd-dev libcmocka-dev
libibverbs-dev libsodium-dev libclang-rt-14-dev util-linux procps iproute2 python3"
# make lint (CI): the format check and cppcheck.
PKGS="$PKGS clang-format cppcheck"
# The alert rules' check and unit test (promtool, from Debian's prometheus).
PKGS="$PKGS prometheus"
# The VM lab (scripts/vmlab: make test-vm, make bench-parity): qemu, and what builds its image.
PKGS="$PKGS qemu-system-x86 debootstrap e2fsprogs debian-archive-keyring"
# make bench: the tracers tailcause is compared with, peak memory, profiling.
PKGS="$PKGS linux-perf bpftrace trace-cmd time valgrind"
# record --iter sockperf's system test and benchmark: Debian's sockperf, unmodified.
PKGS="$PKGS sockperf"
# test_peer: iproute2 for the network namespaces, nftables to lose datagrams on the path.
PKGS="$PKGS iproute2 nftables"
# The HTML report's system test renders the page in headless Chromium.
PKGS="$PKGS chromium"
# TEST: make man/completion and tests/test_man.sh: man renders the pages, zsh loads _tailcause.
PKGS="$PKGS man-db groff-base zsh"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "tailcause: deps: missing packages:$missing (run as root, e.g. sudo make ...)" >&2
	exit 2
fi
echo "  DEPS  installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# A stale package list is the usual reason an install fails: refresh once and retry.
if ! apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1; then
	apt-get update -qq >/dev/null
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
