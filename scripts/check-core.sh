#!/bin/sh
# core/ must stay pure: libc, zlib, libdeflate and bpf/events.h only. Fails on any other include.
set -eu
cd "$(dirname "$0")/.."
bad=$(grep -HnE '^[[:space:]]*#[[:space:]]*include' user/core/*.c user/core/*.h |
	grep -vE '<(assert|ctype|errno|fnmatch|inttypes|limits|math|stdarg|stdbool|stddef|stdint|stdio|stdlib|string|strings|zlib|libdeflate)\.h>' |
	grep -vE '"[a-z0-9_]+\.h"|"\.\./\.\./bpf/events\.h"' || true)
if [ -n "$bad" ]; then
	echo "tailcause: user/core must include only libc, zlib, libdeflate and bpf/events.h:" >&2
	echo "$bad" >&2
	exit 1
fi
