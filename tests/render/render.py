#!/usr/bin/env python3
"""Renders softhat's pictures in a real SVG renderer (rsvg-convert).

usage: render.py --cli SOFTHAT --workdir DIR
Writes `explain --svg` for three languages, `sweep --svg`, and `report` for
three languages; checks that every HTML page is well-formed (parsed as XML)
and self-contained (no http(s) references, no scripts); extracts every inline
SVG; renders each SVG file to PNG with rsvg-convert and fails on any renderer
error or an empty/invalid PNG. Prints each PNG's size. Exits 77 (skipped,
with the reason) only when rsvg-convert is not installed.
"""
import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

LANGS = ["a-since-b", "majority", "dyck-2"]


ROTATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "srasp", "rotate.srasp")

def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG")
    return struct.unpack(">II", head[16:24])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    rsvg = shutil.which("rsvg-convert")
    if not rsvg:
        print("SKIP: rsvg-convert not installed (Debian package librsvg2-bin)")
        return 77
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    svgs = []
    for lang in LANGS:
        out = os.path.join(args.workdir, f"explain-{lang}.svg")
        subprocess.run([args.cli, "explain", lang, {"dyck-2": "([])[()]", "majority": "abbaa"}.get(lang, "bcaab"),
                        "--svg", out], check=True, capture_output=True)
        svgs.append(out)
    out = os.path.join(args.workdir, "sweep-a-since-b.svg")
    subprocess.run([args.cli, "sweep", "a-since-b", "--lengths", "16,64,256", "--svg", out], check=True,
                   capture_output=True)
    svgs.append(out)
    report = os.path.join(args.workdir, "report")
    subprocess.run([args.cli, "report", *LANGS, "--out", report, "--lengths", "100", "--samples", "10",
                    "--sweep-lengths", "16,64", "--sweep-words", "8", "--program", ROTATE, "--program-lengths", "2,4,8"],
                   check=True, capture_output=True)
    pages = sorted(f for f in os.listdir(report) if f.endswith(".html"))
    assert pages == sorted(["index.html", "rotate.html"] + [f"{l}.html" for l in LANGS]), pages
    for page in pages:
        text = open(os.path.join(report, page), encoding="utf-8").read()
        ET.fromstring(text[text.index("<html"):])  # well-formed
        if re.search(r"(src|href)=\"https?:", text) or "<script" in text:
            raise AssertionError(f"{page} is not self-contained")
        for k, svg in enumerate(re.findall(r"<svg.*?</svg>", text, re.S)):
            path = os.path.join(args.workdir, f"report-{page[:-5]}-{k}.svg")
            with open(path, "w", encoding="utf-8") as f:
                f.write(svg)
            svgs.append(path)
    failed = 0
    for svg in svgs:
        png = svg[:-4] + ".png"
        r = subprocess.run([rsvg, svg, "-o", png], capture_output=True, text=True)
        if r.returncode != 0 or r.stderr.strip():
            print(f"FAIL {os.path.basename(svg)}: rsvg-convert exit {r.returncode}: {r.stderr.strip()}")
            failed += 1
            continue
        w, h = png_size(png)
        print(f"{os.path.basename(png)}: {w}x{h} px, {os.path.getsize(png)} bytes")
        if w < 100 or h < 100:
            print(f"FAIL {os.path.basename(png)} is too small")
            failed += 1
    print(f"{len(svgs)} SVG files rendered, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
