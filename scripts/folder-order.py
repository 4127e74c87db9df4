#!/usr/bin/env python3
"""Checks that the folders of ThumbdCore and Thumbd depend only on those above them in
docs/ARCHITECTURE.md's folder tables (`make test`). A folder "uses" another when one of its
files names a type declared at the top level of the other; comments do not count. The most
specific folder listed holds a file (`Thumbnails/Stages/` before `Thumbnails/`). Prints each
edge against the order and exits 1 when there is one.
    scripts/folder-order.py
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DECLARATION = re.compile(r'^(?:@\w+[ \t]+)*(?:(?:public|package|private|fileprivate|internal|final|indirect)\s+)*'
                         r'(?:struct|class|enum|protocol|actor|typealias)\s+([A-Z][A-Za-z0-9_]*)', re.M)


def listed_order(section, until):
    """The folders of one table of ARCHITECTURE.md, in order, without their trailing slash."""
    text = open(os.path.join(ROOT, "docs/ARCHITECTURE.md"), encoding="utf-8").read()
    table = text[text.index(section):text.index(until)]
    return [m.group(1) for m in re.finditer(r'^\| `([A-Za-z0-9/]+)/` \|', table, re.M)]


def violations(source_root, order):
    index = {folder: i for i, folder in enumerate(order)}
    declared, files, found = {}, {}, []
    for path in glob.glob(os.path.join(ROOT, source_root, "**/*.swift"), recursive=True):
        folder = os.path.dirname(os.path.relpath(path, os.path.join(ROOT, source_root)))
        holders = [f for f in order if folder == f or folder.startswith(f + "/")]
        if not holders:
            found.append(f"{source_root}/{folder}: not in docs/ARCHITECTURE.md's folder table")
            continue
        holder = max(holders, key=len)
        text = re.sub(r'//.*', '', open(path, encoding="utf-8").read())
        files[path] = (holder, text)
        for match in DECLARATION.finditer(text):
            declared.setdefault(match.group(1), set()).add(holder)
    for path, (holder, text) in sorted(files.items()):
        for name in sorted(set(re.findall(r'\b[A-Z][A-Za-z0-9_]*\b', text))):
            for other in declared.get(name, ()):
                if other != holder and index[other] > index[holder]:
                    found.append(f"{os.path.relpath(path, ROOT)} uses {name} from {other}/, listed below {holder}/")
    return found


def main():
    found = violations("Sources/ThumbdCore", listed_order("## The domain", "## The app"))
    found += violations("Sources/Thumbd", listed_order("## The app", "## Features that cross folders"))
    for line in found:
        print("folder-order:", line, file=sys.stderr)
    if found:
        sys.exit(1)
    print("folder-order: PASS: ThumbdCore's and Thumbd's folders use only those above them")


if __name__ == "__main__":
    main()
