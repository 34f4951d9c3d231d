#!/bin/sh
# Regenerates vmlinux/<arch>/vmlinux.h from the running kernel's BTF.
# CO-RE relocates field offsets at load time, so one checked-in header per
# architecture serves every kernel with BTF; regenerate it for new types.
set -eu
arch=${1:?usage: gen-vmlinux.sh ARCH}
btf=${VMLINUX_BTF:-/sys/kernel/btf/vmlinux}
cd "$(dirname "$0")/.."
[ -r "$btf" ] || { echo "tailcause: gen-vmlinux: $btf not readable (kernel built without BTF?)" >&2; exit 2; }
mkdir -p "vmlinux/$arch"
bpftool btf dump file "$btf" format c > "vmlinux/$arch/vmlinux.h.tmp"
mv "vmlinux/$arch/vmlinux.h.tmp" "vmlinux/$arch/vmlinux.h"
echo "  GEN   vmlinux/$arch/vmlinux.h"
