#!/bin/sh
# The repository stands alone: every document a tracked file cites is a tracked file. No
# root, no build. The rules, kept simple:
#   - a Markdown file's links, [text](target), name a tracked file or directory relative to
#     the linking file (an #anchor is dropped; URLs and bare anchors are not checked);
#   - in every tracked text file, a name ending in .md is a tracked file: a bare name
#     (README.md) anywhere in the tree, a path (docs/design.md, ../bench/README.md) from the
#     top of the tree or from the citing file's directory;
#   - every path that starts with docs/ or bench/ is a tracked file or directory from the
#     top of the tree, or a program built from a tracked C file of that name and ".c".
# Not checked: URLs (anything after "scheme://"); fenced code blocks of Markdown files
# (examples); a name glued to what comes before it ($(O)/bench/..., BUILD_DIR/bench/...:
# build outputs) or followed by a pattern character (bench/lab/inject*.c); what the
# benchmarks write under bench/results/ (git-ignored). vmlinux/ and binary files are
# skipped.
# Usage: tests/test_docs.sh [BUILD_DIR]   (the build directory is not used)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
command -v git >/dev/null 2>&1 && git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	{ echo "skipped: not a git checkout (the tracked files are git's)"; exit 77; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

git ls-files >"$TMP/files"
# the tracked text files to read (-I: no binary file; '' matches any file with a line)
git grep -I -l -e '' -- ':!vmlinux/' >"$TMP/text"

rc=0
awk -v list="$TMP/files" -v text="$TMP/text" '
BEGIN {
	while ((getline f < text) > 0)
		ARGV[ARGC++] = f
	while ((getline f < list) > 0) {
		tracked[f] = 1
		n = split(f, a, "/")
		names[a[n]] = 1
		p = ""
		for (i = 1; i < n; i++) {
			p = p a[i] "/"
			dirs[p] = 1
		}
	}
}

# path with "." and ".." resolved; "" when it climbs out of the tree
function norm(path,    n, a, i, k, out, j, r) {
	n = split(path, a, "/")
	k = 0
	for (i = 1; i <= n; i++) {
		if (a[i] == "" || a[i] == ".")
			continue
		if (a[i] == "..") {
			if (k == 0)
				return ""
			k--
			continue
		}
		out[++k] = a[i]
	}
	r = ""
	for (j = 1; j <= k; j++)
		r = r (j > 1 ? "/" : "") out[j]
	return r
}

function is_tracked(p) {
	return p != "" && ((p in tracked) || ((p "/") in dirs))
}

function resolves(t) {
	return is_tracked(norm(t)) || is_tracked(norm(dir "/" t))
}

function complain(t) {
	printf "%s:%d: cites %s, which is not a tracked file\n", FILENAME, FNR, t
	bad = 1
}

FNR == 1 {
	fence = 0
	dir = FILENAME
	if (!sub(/\/[^\/]*$/, "", dir))
		dir = "."
	md = FILENAME ~ /\.md$/
}

{
	line = $0
	if (md && line ~ /^[ \t]*(```|~~~)/) {
		fence = !fence
		next
	}
	if (md && fence)
		next
	gsub(/[A-Za-z][A-Za-z0-9+.-]*:\/\/[^ \t<>")`]*/, "", line)

	if (md) {
		s = line
		while (match(s, /\]\([^) ]+\)/)) {
			t = substr(s, RSTART + 2, RLENGTH - 3)
			s = substr(s, RSTART + RLENGTH)
			sub(/#.*/, "", t)
			if (t != "" && t !~ /:/ && !resolves(t))
				complain(t " (a link)")
		}
	}

	s = " " line
	while (match(s, /[^A-Za-z0-9_.\/$-][A-Za-z0-9_][A-Za-z0-9_.\/-]*\.md/)) {
		t = substr(s, RSTART + 1, RLENGTH - 1)
		s = substr(s, RSTART + RLENGTH)
		if (substr(s, 1, 1) ~ /[A-Za-z0-9_]/)
			continue # .mdx, .md5: another name
		if (t ~ /\//) {
			if (!resolves(t))
				complain(t)
		} else if (!(t in names)) {
			complain(t)
		}
	}

	s = " " line
	while (match(s, /[^A-Za-z0-9_.\/$-](docs|bench)\/[A-Za-z0-9_.\/-]*[A-Za-z0-9_\/]/)) {
		t = substr(s, RSTART + 1, RLENGTH - 1)
		s = substr(s, RSTART + RLENGTH)
		if (substr(s, 1, 1) ~ /[*%<{$]/ || t ~ /^bench\/results\/./)
			continue
		if (!is_tracked(norm(t)) && !is_tracked(norm(t) ".c"))
			complain(t)
	}
}

END { exit bad }
' >"$TMP/out" || rc=$?

[ "$rc" -le 1 ] || { echo "tailcause: test_docs: awk failed ($rc)"; exit 1; }
if [ -s "$TMP/out" ]; then
	sort -u "$TMP/out"
	echo "tailcause: $(sort -u "$TMP/out" | wc -l) reference(s) to files not in the repository"
	exit 1
fi
echo "every cited document, and every docs/ and bench/ path, is a tracked file"
