#!/usr/bin/env python3
"""Structure check of a tailcause HTML report: check_html.py PAGE

The page must parse with every element closed in order, carry no script and
fetch nothing, and hold the charts of its kind: a latency report its latency
over time, histogram, percentiles, causes and IRQ heat map (and a timeline per
spike listed), a noise report its noise over time, causes and heat map, a diff
its two distributions, percentile curves and cause bars, a rank its node bars.
Exits 1 with the reason otherwise.
"""
import re
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr"}
# SVG elements written self-closed (<rect/>) arrive as startendtag, never unclosed.


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.ids, self.classes = [], [], [], []
        self.h2, self.text_of = [], None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.errors.append("a <script> element")
        for k, v in attrs:
            if k in ("src", "href") and v and re.match(r"[a-z]+:", v) and not v.startswith("#"):
                self.errors.append(f"<{tag} {k}={v}> refers outside the page")
        if tag == "svg":
            if "id" in a:
                self.ids.append(a["id"])
            if "class" in a:
                self.classes.append(a["class"])
        if tag == "h2":
            self.text_of = ""
        if tag not in VOID:
            self.stack.append((tag, self.getpos()))

    def handle_startendtag(self, tag, attrs):
        if tag == "svg":
            self.errors.append("an empty <svg/>")

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1][0] != tag:
            top = self.stack[-1] if self.stack else ("nothing", (0, 0))
            self.errors.append(f"</{tag}> at line {self.getpos()[0]} closes <{top[0]}> "
                               f"of line {top[1][0]}")
            return
        self.stack.pop()
        if tag == "h2":
            self.h2.append(self.text_of.strip())
            self.text_of = None

    def handle_data(self, data):
        if self.text_of is not None:
            self.text_of += data


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    p = Page()
    p.feed(text)
    p.close()
    errors = p.errors + [f"<{t}> of line {pos[0]} never closed" for t, pos in p.stack]
    if not text.lstrip().lower().startswith("<!doctype html>"):
        errors.append("no <!DOCTYPE html>")
    title = re.search(r"<title>([^<]*)</title>", text)
    title = title.group(1) if title else ""
    if title == "tailcause diff":
        want = ["diff-distribution", "diff-percentiles", "diff-causes"]
    elif title == "tailcause rank":
        want = ["rank"]
    elif any(h.startswith("Host noise") for h in p.h2):
        want = ["noise-over-time", "causes", "irq-heatmap"]
    else:
        want = ["latency-over-time", "histogram", "percentiles", "causes", "irq-heatmap"]
        if "Top spikes" in p.h2 and "spike" not in p.classes:
            errors.append("top spikes listed without a timeline")
    errors += [f'no <svg id="{w}"> chart' for w in want if w not in p.ids]
    if errors:
        print("\n".join(errors[:10]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
