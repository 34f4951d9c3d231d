#!/usr/bin/env python3
# Checks that a screenshot is not blank: decodes the PNG (8-bit RGB/RGBA, any
# filter, not interlaced) with zlib alone and counts distinct colours and
# pixels that are not near-white.
#
#   check_png.py FILE [MIN_COLOURS [MIN_INK_PERCENT]]   (defaults 16 and 2)
# Exit 0 when the image has enough of both, 1 otherwise (with the figures).
import struct
import sys
import zlib


def decode(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("unsupported PNG (depth %d, colour type %d)" % (depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(b"".join(idat)), w * bpp
    prev, rows, i = bytearray(stride), [], 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    if len(sys.argv) < 2:
        print("usage: check_png.py FILE [MIN_COLOURS [MIN_INK_PERCENT]]", file=sys.stderr)
        return 2
    min_colours = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    min_ink = float(sys.argv[3]) if len(sys.argv) > 3 else 2.0
    try:
        w, h, bpp, rows = decode(open(sys.argv[1], "rb").read())
    except (OSError, ValueError, zlib.error, TypeError) as e:
        print("%s: %s" % (sys.argv[1], e))
        return 1
    colours, ink = set(), 0
    for r in rows:
        for x in range(0, w * bpp, bpp):
            px = r[x:x + 3]
            colours.add(px)
            ink += min(px) < 235
    pct = 100.0 * ink / (w * h)
    print("%s: %dx%d, %d colours, %.1f %% ink" % (sys.argv[1], w, h, len(colours), pct))
    if len(colours) < min_colours or pct < min_ink:
        print("%s: looks blank (want >= %d colours and >= %.1f %% ink)"
              % (sys.argv[1], min_colours, min_ink))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
