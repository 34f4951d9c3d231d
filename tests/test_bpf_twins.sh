#!/bin/sh
# Every tp_btf program has its classic-tracepoint twin, the fallback the tracer picks
# where the kernel refuses BTF-typed programs (record/bpf/tracer_select.c): for
# <stem>_btf in section tp_btf/<event>, a <stem>_tp in tp/<category>/<event>, in the same
# object. Read from the built objects (build/bpf/*.bpf.o), so it needs no root.
set -eu
O=${1:-build}
OBJDUMP=$(command -v llvm-objdump || command -v llvm-objdump-14 || true)
[ -n "$OBJDUMP" ] || { echo "skipped: needs llvm-objdump (scripts/deps.sh installs llvm)"; exit 77; }
set -- "$O"/bpf/*.bpf.o
[ -f "$1" ] || { echo "FAILED: no BPF objects in $O/bpf (make first)"; exit 1; }
bad=0 n=0
for obj in "$@"; do
	# "<section> <name>" of every program
	"$OBJDUMP" -t "$obj" | awk '$3 == "F" { print $4, $6 }' >"${TMPDIR:-/tmp}/tc-twins.$$"
	while read -r sec name; do
		case "$sec" in tp_btf/*) ;; *) continue ;; esac
		n=$((n + 1))
		event=${sec#tp_btf/}
		stem=${name%_btf}
		if [ "$stem" = "$name" ]; then
			echo "FAILED: $obj: $name in $sec is not named <stem>_btf"
			bad=1
		elif ! grep -q "^tp/[a-z_0-9]*/$event ${stem}_tp\$" "${TMPDIR:-/tmp}/tc-twins.$$"; then
			echo "FAILED: $obj: $name ($sec) has no twin ${stem}_tp in tp/<category>/$event"
			bad=1
		fi
	done <"${TMPDIR:-/tmp}/tc-twins.$$"
	rm -f "${TMPDIR:-/tmp}/tc-twins.$$"
done
[ "$n" -gt 0 ] || { echo "FAILED: no tp_btf program found"; exit 1; }
echo "$n tp_btf programs, each with its classic twin"
exit "$bad"
