#!/usr/bin/env bash
# Checks the links of README.md and docs/*.md: every relative link must name a file or folder
# that exists, and every anchor (page.md#anchor, or #anchor for the page itself) a heading of
# that page, by GitHub's rule: lower case, spaces to '-', punctuation dropped, '-1', '-2', ...
# for a heading that repeats. Links to other sites (http, https, mailto) are not followed;
# links inside code blocks and code spans are not links. Needs python3 only; builds nothing.
# Exits non-zero naming each broken link as PAGE:LINE: TARGET (why).
set -euo pipefail
cd "$(dirname "$0")/.."

python3 - README.md docs/*.md <<'EOF'
import os, re, sys

def strip_code(lines, spans=True):
    """The lines with fenced blocks blanked and, with `spans`, code spans removed: their text
    is no link and no heading (a heading keeps its spans, whose text is part of its anchor)."""
    out, fence = [], None
    for line in lines:
        opening = re.match(r"^\s*(`{3,}|~{3,})", line)
        if fence is None and opening:
            fence = opening.group(1)[0] * len(opening.group(1))
            out.append("")
        elif fence is not None:
            if line.strip().startswith(fence):
                fence = None
            out.append("")
        else:
            out.append(re.sub(r"(`+)(?:(?!\1).)+?\1", "", line) if spans else line)
    return out

def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)  # \w keeps letters, digits and '_'
    return text.replace(" ", "-")

anchors_of = {}
def anchors(path):
    if path not in anchors_of:
        seen, found = {}, set()
        for line in strip_code(open(path, encoding="utf-8").read().split("\n"), spans=False):
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        anchors_of[path] = found
    return anchors_of[path]

link = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
broken, checked = [], 0
for page in sys.argv[1:]:
    lines = strip_code(open(page, encoding="utf-8").read().split("\n"))
    for number, line in enumerate(lines, 1):
        for target in link.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            checked += 1
            path, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            where = f"{page}:{number}: {target}"
            if not os.path.exists(resolved):
                broken.append(f"{where} (no file {resolved})")
            elif anchor:
                if not resolved.endswith(".md"):
                    broken.append(f"{where} (an anchor into {resolved}, which is not a Markdown page)")
                elif anchor not in anchors(resolved):
                    broken.append(f"{where} (no heading of {resolved} has the anchor #{anchor})")

for line in broken:
    print(f"docs-links: broken: {line}", file=sys.stderr)
if broken:
    sys.exit(f"docs-links: FAIL: {len(broken)} of {checked} relative links are broken")
print(f"docs-links: PASS: {checked} relative links in {len(sys.argv) - 1} pages")
EOF
