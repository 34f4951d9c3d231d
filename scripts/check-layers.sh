#!/bin/sh
# The layer check: user/ follows the data flow, and each layer includes only the layers
# below it (docs/hacking.md, "Layers"):
#
#   lib  <-  core  <-  {probe, tracefile, audit}  <-  {record, report}  <-  cmd  <-  tailcause.c
#
# A file may include its own directory's headers, and those of a lower layer ("core/trace/trace.h"),
# never those of a higher or a sibling layer (probe and audit do not know each other). Beyond
# that: lib and core include no package's headers (lib: libc; core: libc, zlib, libdeflate, zstd,
# and the record formats bpf/events.h and mpi/coll.h, which lib may not); a BPF skeleton (bpf/<c>.skel.h) is
# included only by its glue file, record/bpf/<c>_skel.c.
# Prints every violation as FILE:LINE: why, and exits 1 if there is one.
set -eu
cd "$(dirname "$0")/.."

# What lib and core may include from outside the project: libc (core: and its codecs).
LIBC='assert|ctype|errno|fcntl|fnmatch|libgen|inttypes|limits|math|signal|stdarg|stdatomic|stdbool|stddef|stdint|stdio|stdlib|string|strings|time|unistd|sys/[a-z]+'
CORE_LIBC='assert|ctype|errno|fnmatch|inttypes|limits|math|stdarg|stdbool|stddef|stdint|stdio|stdlib|string|strings'

# One awk pass over every file's include lines (a process per line took half a minute).
git ls-files 'user/*.c' 'user/*.h' | awk -v libc="^($LIBC)\\.h\$" \
	-v corelibc="^($CORE_LIBC|zlib|libdeflate|zstd|zstd_errors)\\.h\$" '
# the height of a layer, "" for what is not one
function rank(l) {
	if (l == "lib") return 0
	if (l == "core") return 1
	if (l == "probe" || l == "tracefile" || l == "audit") return 2
	if (l == "record" || l == "report") return 3
	if (l == "cmd") return 4
	if (l == "top") return 5
	return ""
}
# core stages, bottom-up (docs/design.md, "user/core by stage"): a stage includes its own
# headers and those of a stage below it, never one above or beside it
function stage_rank(s) {
	if (s == "util") return 0
	if (s == "stats") return 1
	if (s == "trace") return 2
	if (s == "hosts" || s == "iter") return 3
	if (s == "attrib") return 4
	if (s == "stream" || s == "noise") return 5
	if (s == "model") return 6
	if (s == "compare") return 7
	return ""
}
# user/<layer>/...: its layer (record/bpf is part of record); user/*.c is the top
function layer_of(p,  a, n) {
	n = split(p, a, "/")
	return n >= 3 ? a[2] : n == 2 ? "top" : ""
}
function stage_of(p,  a) { return split(p, a, "/") >= 4 && a[2] == "core" ? a[3] : "" }
function say(what) { print FILENAME ":" FNR ": " what }
BEGIN {
	while ((getline f <"/dev/stdin") > 0) {
		files[f] = 1
		order[++n] = f
	}
	for (i = 1; i <= n; i++)
		ARGV[i] = order[i]
	ARGC = n + 1
}
FNR == 1 {
	f = FILENAME
	layer = layer_of(f)
	mine = rank(layer)
	dir = f
	sub(/\/[^\/]*$/, "", dir)
	skip = mine == ""
	if (skip)
		print f ": not in a layer directory (lib core probe tracefile audit record report cmd)"
}
skip || !/^[ \t]*#[ \t]*include/ { next }
{
	if (!match($0, /[<"][^>"]*[>"]/))
		next
	inc = substr($0, RSTART, RLENGTH)
	name = substr(inc, 2, RLENGTH - 2)
	if (substr(inc, 1, 1) == "<") {
		if (layer == "lib" && name !~ libc)
			say("lib/ includes <" name ">: libc only")
		if (layer == "core" && name !~ corelibc)
			say("core/ includes <" name ">: libc, zlib, libdeflate and zstd only")
		next
	}
	if (name == "bpf/events.h" || name == "mpi/coll.h") {
		if (layer == "lib")
			say("lib/ includes a record format (" name ")")
		next
	}
	if (name ~ /^bpf\/.*\.skel\.h$/) {
		c = substr(name, 5, length(name) - 11)
		if (f != "user/record/bpf/" c "_skel.c")
			say("only user/record/bpf/" c "_skel.c includes " name)
		next
	}
	target = name ~ /\// ? "user/" name : dir "/" name
	if (!(target in files)) {
		say("\"" name "\" is not " target " (name headers by layer: \"core/trace/trace.h\")")
		next
	}
	theirs = layer_of(target)
	if (layer == "core" && theirs == "core") {
		st = stage_of(f)
		ts = stage_of(target)
		if (st == ts)
			next
		sr = stage_rank(st)
		tr = stage_rank(ts)
		if (sr == "" || tr == "")
			say("core/ files live in a stage (util stats trace hosts iter attrib stream noise model compare)")
		else if (tr + 0 >= sr + 0)
			say("core/" st "/ includes " name ", of stage " ts "/, which is not below it")
		next
	}
	if (theirs == layer)
		next
	r = rank(theirs)
	if (r == "" || r + 0 >= mine + 0)
		say(layer "/ includes " name ", of layer " theirs "/, which is not below it")
}' >"${TMPDIR:-/tmp}/tc-layers.$$"
if [ -s "${TMPDIR:-/tmp}/tc-layers.$$" ]; then
	echo "tailcause: layer check failed (lib <- core <- {probe, tracefile, audit} <- {record, report} <- cmd;" \
		"in core: util <- stats <- trace <- {hosts, iter} <- attrib <- {stream, noise} <- model <- compare):" >&2
	cat "${TMPDIR:-/tmp}/tc-layers.$$" >&2
	rm -f "${TMPDIR:-/tmp}/tc-layers.$$"
	exit 1
fi
rm -f "${TMPDIR:-/tmp}/tc-layers.$$"
