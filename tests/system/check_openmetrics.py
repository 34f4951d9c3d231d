#!/usr/bin/env python3
# Parses a `tailcause report --format openmetrics` file back, the way a strict
# OpenMetrics reader would:
#   - only "# HELP", "# TYPE", "# UNIT" and a final "# EOF" comment lines;
#   - every family declared once, TYPE before its samples, samples of a family
#     together; every sample line belongs to a declared family (its name, or
#     name + _sum/_count for a summary, + _total/_created for a counter, ...);
#   - names and label names valid, label values properly quoted and escaped,
#     values numeric; quantile labels in [0, 1] on summaries;
#   - "# EOF" exactly once, last, followed by a newline.
#
#   check_openmetrics.py FILE [FAMILY...]   (each FAMILY must have a sample)
# Exit 0 when valid, 1 with the problems otherwise.
import math
import re
import sys

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*\Z")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*\Z")
TYPES = {"counter", "gauge", "summary", "histogram", "gaugehistogram", "info",
         "stateset", "unknown"}
SUFFIXES = {"counter": ["_total", "_created"], "summary": ["", "_sum", "_count", "_created"],
            "histogram": ["_bucket", "_sum", "_count", "_created"],
            "gaugehistogram": ["_bucket", "_gsum", "_gcount"], "info": ["_info"]}


def parse_labels(s, lineno, errs):
    """Parses '{a="x",b="y"}' (s without the braces); returns a dict."""
    labels, i = {}, 0
    while i < len(s):
        m = re.match(r"([^=]+)=\"", s[i:])
        if not m or not LABEL.match(m.group(1)):
            errs.append("line %d: bad label near %r" % (lineno, s[i:i + 20]))
            return labels
        key, i, val = m.group(1), i + m.end(), ""
        while i < len(s) and s[i] != '"':
            if s[i] == "\\":
                if i + 1 >= len(s) or s[i + 1] not in '\\"n':
                    errs.append("line %d: bad escape in label %s" % (lineno, key))
                    return labels
                val += {"n": "\n"}.get(s[i + 1], s[i + 1])
                i += 2
            else:
                val += s[i]
                i += 1
        if i >= len(s):
            errs.append("line %d: unterminated label value" % lineno)
            return labels
        if key in labels:
            errs.append("line %d: label %s twice" % (lineno, key))
        labels[key] = val
        i += 1
        if i < len(s):
            if s[i] != ",":
                errs.append("line %d: expected ',' between labels" % lineno)
                return labels
            i += 1
    return labels


def split_sample(line):
    """name, label text (or None), rest."""
    m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)", line)
    if not m:
        return None, None, None
    name, rest = m.group(1), line[m.end():]
    if rest.startswith("{"):
        depth_end, i, quoted = None, 1, False
        while i < len(rest):
            c = rest[i]
            if quoted and c == "\\":
                i += 2
                continue
            if c == '"':
                quoted = not quoted
            elif c == "}" and not quoted:
                depth_end = i
                break
            i += 1
        if depth_end is None:
            return name, None, None
        return name, rest[1:depth_end], rest[depth_end + 1:]
    return name, "", rest


def family_of(name, families):
    for fam, typ in families.items():
        for suf in SUFFIXES.get(typ, [""]):
            if name == fam + suf:
                return fam
    return None


def check(text, want):
    errs, families, seen, current, done = [], {}, set(), None, set()
    if not text.endswith("# EOF\n"):
        errs.append("the file does not end with '# EOF' and a newline")
    lines = text.split("\n")[:-1]
    for n, line in enumerate(lines, 1):
        if line == "# EOF":
            if n != len(lines):
                errs.append("line %d: # EOF before the end" % n)
            continue
        if line.startswith("#"):
            m = re.match(r"# (HELP|TYPE|UNIT) (\S+)(?: (.*))?\Z", line)
            if not m:
                errs.append("line %d: a comment that is not HELP, TYPE, UNIT or EOF" % n)
                continue
            kind, fam, arg = m.groups()
            if not NAME.match(fam):
                errs.append("line %d: bad family name %r" % (n, fam))
            if fam in done:
                errs.append("line %d: family %s declared again after its samples" % (n, fam))
            if kind == "TYPE":
                if arg not in TYPES:
                    errs.append("line %d: unknown type %r" % (n, arg))
                if fam in families:
                    errs.append("line %d: second TYPE for %s" % (n, fam))
                families[fam] = arg
            if current and current != fam:
                done.add(current)
            current = fam
            continue
        name, labels, rest = split_sample(line)
        if name is None or labels is None:
            errs.append("line %d: not a sample line: %r" % (n, line[:60]))
            continue
        fam = family_of(name, families)
        if fam is None:
            errs.append("line %d: sample %s belongs to no declared family" % (n, name))
            continue
        if fam != current:
            errs.append("line %d: sample of %s outside its family's block" % (n, fam))
        lab = parse_labels(labels, n, errs)
        parts = rest.split()
        if rest[:1] != " " or not 1 <= len(parts) <= 2:
            errs.append("line %d: expected ' VALUE [TIMESTAMP]'" % n)
            continue
        try:
            v = float(parts[0])
        except ValueError:
            errs.append("line %d: value %r is not a number" % (n, parts[0]))
            continue
        if families[fam] == "summary" and name == fam:
            q = lab.get("quantile")
            if q is None or not 0 <= float(q) <= 1:
                errs.append("line %d: summary sample without a quantile in [0, 1]" % n)
        if families[fam] in ("counter", "summary") and name != fam and (v < 0 or math.isnan(v)):
            errs.append("line %d: negative count or sum" % n)
        seen.add(fam)
    for fam in want:
        if fam not in seen:
            errs.append("family %s has no sample" % fam)
    if text.count("# EOF\n") != 1:
        errs.append("'# EOF' appears %d times" % text.count("# EOF\n"))
    return errs


def main():
    if len(sys.argv) < 2:
        print("usage: check_openmetrics.py FILE [FAMILY...]", file=sys.stderr)
        return 2
    errs = check(open(sys.argv[1]).read(), sys.argv[2:])
    for e in errs[:50]:
        print("%s: %s" % (sys.argv[1], e))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
