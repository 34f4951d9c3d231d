#!/bin/sh
# The layer check: user/ follows the data flow, and each layer includes only the layers
# below it (docs/hacking.md, "Layers"):
#
#   lib  <-  core  <-  {probe, tracefile, audit}  <-  {record, report}  <-  cmd  <-  tailcause.c
#
# A file may include its own directory's headers, and those of a lower layer ("core/trace/trace.h"),
# never those of a higher or a sibling layer (probe and audit do not know each other). Beyond
# that: lib and core include no package's headers (lib: libc; core: libc, zlib, libdeflate, zstd,
# and the kernel ABI bpf/events.h, which lib may not); a BPF skeleton (bpf/<c>.skel.h) is
# included only by its glue file, record/bpf/<c>_skel.c.
# Prints every violation as FILE:LINE: why, and exits 1 if there is one.
set -eu
cd "$(dirname "$0")/.."

rank() { # rank LAYER: its height, or nothing for what is not a layer
	case "$1" in
	lib) echo 0 ;; core) echo 1 ;; probe | tracefile | audit) echo 2 ;;
	record | report) echo 3 ;; cmd) echo 4 ;; top) echo 5 ;;
	esac
}

# core's stages, bottom-up (docs/design.md, "user/core by stage"): a stage includes its own
# headers and those of a stage below it, never one above or beside it.
stage_rank() {
	case "$1" in
	util) echo 0 ;; stats) echo 1 ;; trace) echo 2 ;; hosts | iter) echo 3 ;;
	attrib) echo 4 ;; stream | noise) echo 5 ;; model) echo 6 ;; compare) echo 7 ;;
	esac
}

# The stage of user/core/<stage>/..., or nothing.
stage_of() {
	case "$1" in
	user/core/*/*) p=${1#user/core/}; echo "${p%%/*}" ;;
	esac
}

# The layer of user/<layer>/...; record/bpf is part of record; user/*.c is the top.
layer_of() {
	case "$1" in
	user/*/*) p=${1#user/}; echo "${p%%/*}" ;;
	user/*) echo top ;;
	esac
}

# What lib and core may include from outside the project: libc (core: and its codecs).
LIBC='assert|ctype|errno|fcntl|fnmatch|libgen|inttypes|limits|math|signal|stdarg|stdatomic|stdbool|stddef|stdint|stdio|stdlib|string|strings|time|unistd|sys/[a-z]+'
CORE_LIBC='assert|ctype|errno|fnmatch|inttypes|limits|math|stdarg|stdbool|stddef|stdint|stdio|stdlib|string|strings'

bad=0
complain() { echo "$1: $2"; bad=1; }

for f in $(git ls-files 'user/*.c' 'user/*.h'); do
	layer=$(layer_of "$f")
	mine=$(rank "$layer")
	dir=$(dirname "$f")
	[ -n "$mine" ] || { complain "$f" "not in a layer directory (lib core probe tracefile audit record report cmd)"; continue; }
	grep -n '^[[:space:]]*#[[:space:]]*include' "$f" | while IFS= read -r line; do
		n=${line%%:*}
		inc=$(echo "$line" | sed -n 's/.*#[[:space:]]*include[[:space:]]*\([<"][^>"]*[>"]\).*/\1/p')
		name=$(echo "$inc" | tr -d '<>"')
		case "$inc" in
		\<*)
			case "$layer" in
			lib) echo "$name" | grep -qxE "($LIBC)\.h" ||
				echo "$f:$n: lib/ includes <$name>: libc only" ;;
			core) echo "$name" | grep -qxE "($CORE_LIBC|zlib|libdeflate|zstd|zstd_errors)\.h" ||
				echo "$f:$n: core/ includes <$name>: libc, zlib, libdeflate and zstd only" ;;
			esac
			continue ;;
		esac
		case "$name" in
		bpf/events.h)
			[ "$layer" != lib ] || echo "$f:$n: lib/ includes the kernel ABI (bpf/events.h)"
			continue ;;
		bpf/*.skel.h)
			c=${name#bpf/}; c=${c%.skel.h}
			[ "$f" = "user/record/bpf/${c}_skel.c" ] ||
				echo "$f:$n: only user/record/bpf/${c}_skel.c includes $name"
			continue ;;
		*/*) target=user/$name ;;
		*) target=$dir/$name ;;
		esac
		[ -f "$target" ] || { echo "$f:$n: \"$name\" is not $target (name headers by layer: \"core/trace/trace.h\")"; continue; }
		theirs=$(layer_of "$target")
		if [ "$layer" = core ] && [ "$theirs" = core ]; then
			st=$(stage_of "$f") ts=$(stage_of "$target")
			[ "$st" = "$ts" ] && continue
			sr=$(stage_rank "$st") tr=$(stage_rank "$ts")
			if [ -z "$sr" ] || [ -z "$tr" ]; then
				echo "$f:$n: core/ files live in a stage (util stats trace hosts iter attrib stream noise model compare)"
			elif [ "$tr" -ge "$sr" ]; then
				echo "$f:$n: core/$st/ includes $name, of stage $ts/, which is not below it"
			fi
			continue
		fi
		[ "$theirs" = "$layer" ] && continue
		r=$(rank "$theirs")
		if [ -z "$r" ] || [ "$r" -ge "$mine" ]; then
			echo "$f:$n: $layer/ includes $name, of layer $theirs/, which is not below it"
		fi
	done
done >"${TMPDIR:-/tmp}/tc-layers.$$"
if [ -s "${TMPDIR:-/tmp}/tc-layers.$$" ] || [ "$bad" = 1 ]; then
	echo "tailcause: layer check failed (lib <- core <- {probe, tracefile, audit} <- {record, report} <- cmd;" \
		"in core: util <- stats <- trace <- {hosts, iter} <- attrib <- {stream, noise} <- model <- compare):" >&2
	cat "${TMPDIR:-/tmp}/tc-layers.$$" >&2
	rm -f "${TMPDIR:-/tmp}/tc-layers.$$"
	exit 1
fi
rm -f "${TMPDIR:-/tmp}/tc-layers.$$"
