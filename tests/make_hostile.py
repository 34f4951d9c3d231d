#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Writes the hostile input files of tests/test_hostile.sh into DIR: a few bytes each
that announce sizes or counts far beyond what they hold (the .tct format is in
user/core/trace/trace_codec.h and codec_internal.h). Usage: make_hostile.py DIR"""
import os
import struct
import sys
import zlib

SAMPLES, EVENTS, INDEX = 3, 4, 9
BLOCK_MAX = 128 << 10  # a zstd block's most bytes
RATIO = 64  # TC_BLOCK_MAX_RATIO: the most a block may expand


def header():
    return b"\x89TCT\r\n\x1a\n" + struct.pack("<HHIQQ", 3, 32, 0, 0, 0)


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def frame(raw):
    """raw as one zstd frame (RFC 8878) that expands exactly RATIO times or less: its
    first blocks stored as they are, the rest run-length blocks where a block's bytes
    are all alike."""
    out = bytearray(struct.pack("<IB", 0xFD2FB528, 0xA0) + struct.pack("<I", len(raw)))
    stored, off = 0, 0
    while off < len(raw):
        chunk = raw[off : off + BLOCK_MAX]
        last = int(off + len(chunk) == len(raw))
        rle = chunk.count(chunk[0]) == len(chunk) and stored * RATIO >= len(raw)
        hdr = (len(chunk) << 3) | (1 << 1 if rle else 0) | last
        out += hdr.to_bytes(3, "little") + (chunk[:1] if rle else chunk)
        stored += 0 if rle else len(chunk)
        off += len(chunk)
    return bytes(out)


def block(btype, raw):
    comp = frame(raw)
    assert len(raw) <= RATIO * len(comp)
    return struct.pack("<IIII", btype, len(raw), len(comp), zlib.crc32(comp)) + comp


def write(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    d = sys.argv[1]
    empty = struct.pack("<IIII", SAMPLES, 60 << 20, 0, 0)  # 60 MiB announced, none there
    write(d, "trace-288.tct", header() + 16 * empty)
    write(d, "trace-48.tct", header() + empty)
    # a comm table of six million empty names, and not one event to use them
    n = 6 << 20
    write(d, "trace-comms.tct", header() + block(EVENTS, varint(n) + bytes(n) + varint(0)))
    # an INDEX of four million entries in a file of a few hundred KiB (each entry
    # {type 3, offset step 3, 3 records, start step -2, span 3}: bytes all alike)
    n = 4 << 20
    entries = varint(n) + bytes([SAMPLES]) * (5 * n)
    write(d, "trace-index.tct", header() + block(INDEX, entries))
    # JSON: three quarters of a megabyte of one-member objects; nesting a million deep
    write(d, "objects.json", b'{"a": [' + b",".join([b'{"":0}'] * 110000) + b"]}")
    write(d, "deep.json", b'{"a": ' + b"[" * (1 << 20))
    # a samples CSV and a -U log whose numbers are beyond any count
    write(d, "huge.csv", b"start_ns,end_ns\n0,184467440737095516160000\n")
    write(d, "huge.U", b"#, usec\n18446744073709551615, 1e999\n")


if __name__ == "__main__":
    main()
