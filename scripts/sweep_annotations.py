#!/usr/bin/env python3
"""Checks `scholia parse` on unlabelled notes: every note under the given folders that holds two
Zotero annotation keys or more (`zotero://open-pdf/…&annotation=KEY`) is parsed, and the note is
listed when a key it holds is read by no annotation, or when an annotation's text or comment keeps
export markup (a Zotero or file link, a `<mark>`/`<span>` tag, `%%`, a Markdown link, a
`[[2024-…]]` timestamp).

No expected JSON is needed, so it runs on whole vaults; it cannot see a wrong colour, page or
split, which `score-annotations.sh` measures on labelled notes.

Usage: scripts/sweep_annotations.py DIR... [--verbose]
The binary: $SCHOLIA_BIN, else target/release/scholia. Each note is parsed as `scholia parse`
finds its vault (the nearest folder above it holding `.obsidian/`).
"""

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

KEY = re.compile(r"zotero://open-pdf/[^\s)\]>\"]*?annotation=([A-Z0-9]{8})")
MARKUP = re.compile(r"zotero://|file://|<mark|<span|</|%%|\]\(|\[\[20\d\d-")


def notes(roots):
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for name in sorted(files):
                if name.endswith(".md"):
                    yield os.path.join(folder, name)


def check(binary, path):
    with open(path, encoding="utf-8", errors="replace") as f:
        keys = set(KEY.findall(f.read()))
    if len(keys) < 2:
        return None
    run = subprocess.run([binary, "parse", path], capture_output=True, text=True, timeout=60)
    try:
        doc = json.loads(run.stdout)
    except json.JSONDecodeError:
        return {"path": path, "keys": len(keys), "error": run.stderr.strip()[:200]}
    read, markup = set(), []
    for a in doc["annotations"]:
        read.update(KEY.findall(a.get("zotero_link") or ""))
        for field in ("text", "comment"):
            value = a.get(field) or ""
            if MARKUP.search(value):
                markup.append(f"{field}: {value[:100]!r}")
    return {
        "path": path,
        "keys": len(keys),
        "annotations": len(doc["annotations"]),
        "unread": sorted(keys - read),
        "markup": markup,
        "template": doc.get("template"),
    }


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    verbose = "--verbose" in sys.argv
    if not args:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    binary = os.environ.get("SCHOLIA_BIN", "target/release/scholia")
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = [r for r in pool.map(lambda p: check(binary, p), notes(args)) if r]
    keys = sum(r["keys"] for r in results)
    unread = sum(len(r.get("unread", [])) for r in results)
    markup = sum(len(r.get("markup", [])) for r in results)
    errors = [r for r in results if "error" in r]
    for r in results:
        if r.get("unread") or r.get("markup") or "error" in r:
            print(f"{r['path']}: {r['keys']} keys, {r.get('annotations', 0)} annotations ({r.get('template')})")
            if "error" in r:
                print(f"  error: {r['error']}")
            if r.get("unread"):
                print(f"  {len(r['unread'])} keys read by no annotation: {' '.join(r['unread'][:8])}")
            for m in r.get("markup", [])[: None if verbose else 3]:
                print(f"  markup left in {m}")
    share = 100 * unread / keys if keys else 0
    print(
        f"{len(results)} notes with Zotero annotation keys, {keys} keys: {unread} read by no annotation"
        f" ({share:.1f}%), {markup} texts or comments with markup left, {len(errors)} notes not parsed"
    )
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
