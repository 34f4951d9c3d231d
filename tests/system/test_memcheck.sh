#!/bin/sh
# Valgrind memcheck on the user-space paths that read untrusted input or do
# the analysis: report (every format), dump, lat, audit. No invalid access,
# no uninitialised read, no definite leak. (Recording itself is checked under
# AddressSanitizer, `make test SAN=1 O=build-san`: valgrind does not model the
# bpf() syscall.)
set -eu
. "$(dirname "$0")/lib.sh"
command -v valgrind >/dev/null || skip "valgrind not installed"
sanitized && skip "built with SAN=1: AddressSanitizer checks this build instead of valgrind"
vg() { valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite "$@"; }

trace=tests/fixtures/probe-2k.tct
expect_exit 0 vg "$TC" report "$trace"
expect_exit 0 vg "$TC" report tests/fixtures/command.tct
for f in json openmetrics perfetto html; do
	expect_exit 0 vg "$TC" report "$trace" --format "$f" -o "$TMP/r.$f"
done
expect_exit 0 vg "$TC" dump "$trace" --samples
expect_exit 0 vg "$TC" lat -n 2000 --cpu "$(probe_cpus)"
set +e
vg "$TC" audit >"$TMP/out" 2>&1
rc=$?
set -e
[ "$rc" = 0 ] || [ "$rc" = 5 ] || { cat "$TMP/out"; fail "audit under memcheck exited $rc"; }
# A corrupt file: rejected cleanly, exit 3, nothing reported by memcheck.
head -c 3000 "$trace" >"$TMP/cut.tct"
printf 'garbage' | dd of="$TMP/cut.tct" bs=1 seek=200 conv=notrunc 2>/dev/null
expect_exit 3 vg "$TC" report "$TMP/cut.tct"
