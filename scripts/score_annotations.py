#!/usr/bin/env python3
"""Scores `scholia parse` against hand-checked expected annotations.

Usage: score_annotations.py DIR [--min RATE] [--verbose] [--json]

For every X.md under DIR (recursive; `.obsidian/` folders skipped) with an X.json beside it that holds an
"annotations" array, runs `scholia parse X.md` (with `--vault` the first folder under DIR when that
folder has no `.obsidian/`) and compares the parse with X.json field by field.
The expected format, per annotation: type, text,
comment, color (#rrggbb), page, page_label, image (file name), zotero_link. The parser's own output format
(the repository's tests/cases/annotations/*.json: color_hex, image_path, comment_prefix) is read too.

The binary: $SCHOLIA_BIN, else `cargo build --release --features mcp --quiet` in the repository and
$CARGO_TARGET_DIR/release/scholia (default target/ of the repository).

Rules:
- text, comment: equal after collapsing whitespace runs and trimming; null == "". The parse's comment is
  rebuilt as `comment_prefix + " " + comment` (`THEME [theme]: comment` for THEME); the prefix itself is
  compared case-insensitively.
- colour: expected color vs parsed color_hex, case-insensitive. page, page_label, type, zotero_link: exact.
  image: the file name of the parsed image_path vs expected image.
- "entirely right": text, comment, colour, page, image and type all equal (page_label and zotero_link are
  reported, not part of it). An expected record without a page_label / zotero_link key is not checked there.
- Alignment: a DP over both lists maximising the summed similarity (token overlap of text, comment and image
  name); a pair counts only above MIN_SIMILARITY. Unaligned expected = missing, unaligned parsed = extra.
- Debris: a parsed text or comment holding file://, zotero://, an HTML tag, a [[YYYY-MM-DD…]] link or a
  [page N]( / [p. N]( link, unless the aligned expected field holds the same string.
- Metadata: citekey (exact), title, authors, year (whitespace collapsed) when X.json gives them non-null.
- Family: X.json's "family", else the first path component under DIR (DIR's own name for notes directly in it).

Exit: 2 when a note fails to parse; 1 with --min when the overall entirely-right rate is below RATE or
there is any extra annotation or debris; else 0.
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
from collections import Counter

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FIELDS = ["text", "comment", "colour", "page", "image", "type", "page_label", "zotero_link"]
CORE = ["text", "comment", "colour", "page", "image", "type"]
META = ["citekey", "title", "authors", "year"]
MIN_SIMILARITY = 0.3
TRUNC = 120

DEBRIS = re.compile(
    r"file://|zotero://"
    r"|<mark|<span|<br|</|<b>|<i>"
    r"|\[\[\d{4}-\d{2}-\d{2}[^\]]*\]\]"
    r"|\[(?:page|pages|pg\.?|pp?\.)\s*[^\]\s][^\]]*\]\(",
    re.IGNORECASE,
)
TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]|\w+")
WS = re.compile(r"\s+")


# --- normalisation -------------------------------------------------------------------------------


def blank(v):
    """None for null, "" and whitespace-only; else v as a string."""
    if v is None:
        return None
    if not isinstance(v, str):
        v = str(v)
    return v if v.strip() else None


def collapse(v):
    v = blank(v)
    return None if v is None else WS.sub(" ", v).strip()


def basename(p):
    p = blank(p)
    if p is None:
        return None
    p = p.strip().rstrip("/\\")
    return re.split(r"[/\\]", p)[-1] or None


def rebuild_comment(rec):
    """The comment as the note shows it, from a parse record: (comment, prefix part)."""
    comment = blank(rec.get("comment"))
    prefix = blank(rec.get("comment_prefix"))
    if prefix is None:
        return comment, None
    theme = blank(rec.get("theme"))
    if prefix.strip().upper() == "THEME" and theme is not None:
        head = "%s [%s]:" % (prefix.strip(), theme.strip())
    else:
        head = prefix.strip()
    return (head + " " + comment if comment is not None else head), head


def from_parse(rec):
    """A parse record in the compared shape."""
    comment, head = rebuild_comment(rec)
    return {
        "type": blank(rec.get("type")),
        "text": blank(rec.get("text")),
        "comment": comment,
        "comment_head": head,
        "colour": blank(rec.get("color_hex")),
        "page": blank(rec.get("page")),
        "page_label": blank(rec.get("page_label")),
        "image": basename(rec.get("image_path")),
        "zotero_link": blank(rec.get("zotero_link")),
    }


def from_expected(rec):
    """An expected record in the compared shape; None for an optional field it does not label."""
    if "color_hex" in rec or "image_path" in rec or "comment_prefix" in rec:
        # The parser's own output format (tests/cases/annotations).
        out = from_parse(rec)
        out["comment_head"] = None
        out["checked"] = {f for f in ("page_label", "zotero_link") if f in rec}
        return out
    return {
        "type": blank(rec.get("type")),
        "text": blank(rec.get("text")),
        "comment": blank(rec.get("comment")),
        "comment_head": None,
        "colour": blank(rec.get("color")),
        "page": blank(rec.get("page")),
        "page_label": blank(rec.get("page_label")),
        "image": basename(rec.get("image")),
        "zotero_link": blank(rec.get("zotero_link")),
        "checked": {f for f in ("page_label", "zotero_link") if f in rec},
    }


def same(field, exp, act):
    e, a = exp[field], act[field]
    if field in ("text", "comment"):
        e, a = collapse(e), collapse(a)
        if field == "comment" and e is not None and a is not None and act.get("comment_head"):
            head = collapse(act["comment_head"])
            if e[: len(head)].lower() == head.lower():
                return e[len(head):] == a[len(head):]
        return e == a
    if field == "colour":
        return (e or "").strip().lower() == (a or "").strip().lower()
    return e == a


# --- alignment -----------------------------------------------------------------------------------


def field_tokens(rec):
    out = {}
    for f in ("text", "comment"):
        out[f] = Counter(TOKEN.findall(rec[f].lower())) if rec[f] else Counter()
    out["image"] = Counter({"\0img:" + rec["image"].lower(): 3}) if rec["image"] else Counter()
    out["all"] = out["text"] + out["comment"] + out["image"]
    return out


def overlap(a, b):
    """Blend of Dice and containment of two token multisets (0 when either is empty)."""
    na, nb = sum(a.values()), sum(b.values())
    if na == 0 or nb == 0:
        return 0.0
    common = sum((a & b).values())
    return 0.5 * (2.0 * common / (na + nb)) + 0.5 * (common / min(na, nb))


WEIGHTS = {"text": 2.0, "comment": 1.0, "image": 2.0}


def similarity(te, ta, exp, act):
    """Half field by field (text with text, ...), half over all tokens (finds misplaced text)."""
    if not te["all"] and not ta["all"]:
        return 0.5 if exp["page"] == act["page"] and exp["type"] == act["type"] else 0.35
    total = weight = 0.0
    for f, w in WEIGHTS.items():
        if te[f] or ta[f]:
            total += w * overlap(te[f], ta[f])
            weight += w
    s = 0.5 * (total / weight) + 0.5 * overlap(te["all"], ta["all"])
    if s > 0 and exp["page"] is not None and exp["page"] == act["page"]:
        s += 0.05
    return s


def align(expected, actual):
    """Pairs (i, j) of a maximum-similarity monotone alignment."""
    n, m = len(expected), len(actual)
    te = [field_tokens(r) for r in expected]
    ta = [field_tokens(r) for r in actual]
    sim = [[0.0] * m for _ in range(n)]
    for i in range(n):
        for j in range(m):
            s = similarity(te[i], ta[j], expected[i], actual[j])
            sim[i][j] = s if s >= MIN_SIMILARITY else -1.0
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, nxt = best[i], best[i + 1]
        for j in range(m - 1, -1, -1):
            v = max(nxt[j], row[j + 1])
            if sim[i][j] >= 0:
                v = max(v, sim[i][j] + nxt[j + 1])
            row[j] = v
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if sim[i][j] >= 0 and abs(best[i][j] - (sim[i][j] + best[i + 1][j + 1])) < 1e-9:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return pairs


# --- running the parser --------------------------------------------------------------------------


def find_binary():
    env = os.environ.get("SCHOLIA_BIN")
    if env:
        return env
    target = os.environ.get("CARGO_TARGET_DIR")
    target = os.path.abspath(target) if target else os.path.join(REPO, "target")
    build_env = dict(os.environ, CARGO_TARGET_DIR=target)
    print("building scholia (cargo build --release --features mcp)...", file=sys.stderr)
    r = subprocess.run(
        ["cargo", "build", "--release", "--features", "mcp", "--quiet"], cwd=REPO, env=build_env
    )
    if r.returncode != 0:
        sys.exit("score-annotations: cargo build failed (exit %d)" % r.returncode)
    return os.path.join(target, "release", "scholia")


PARSE_FLAGS = []


def vault_of(root, path):
    """The vault a note belongs to when `scholia parse` cannot find it by its `.obsidian/` folder
    (public vaults often leave it out of git): the first folder under DIR, a family or a collected vault."""
    parts = os.path.relpath(path, root).split(os.sep)
    if len(parts) < 2:
        return None
    for depth in range(len(parts) - 1, 0, -1):
        if os.path.isdir(os.path.join(root, *parts[:depth], ".obsidian")):
            return None
    return os.path.join(root, parts[0])


def parse_note(binary, path, vault=None):
    flags = [*PARSE_FLAGS, *(["--vault", vault] if vault else [])]
    try:
        r = subprocess.run([binary, "parse", *flags, path], capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    if r.returncode != 0:
        err = r.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, "exit %d: %s" % (r.returncode, " | ".join(err[:3]))
    try:
        doc = json.loads(r.stdout.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        return None, "output is not JSON: %s" % e
    if not isinstance(doc, dict) or not isinstance(doc.get("annotations"), list):
        return None, "output has no annotations array"
    return doc, None


def find_notes(root):
    found = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != ".obsidian")
        names = set(files)
        for f in sorted(files):
            if not f.endswith(".md") or f[:-3] + ".json" not in names:
                continue
            try:
                with open(os.path.join(d, f[:-3] + ".json"), encoding="utf-8") as fh:
                    exp = json.load(fh)
            except (OSError, ValueError):
                continue
            if isinstance(exp, dict) and isinstance(exp.get("annotations"), list):
                found.append((os.path.join(d, f), exp))
    return found


def family_of(root, path, exp):
    fam = exp.get("family")
    if isinstance(fam, str) and fam:
        return fam
    rel = os.path.relpath(path, root).split(os.sep)
    return rel[0] if len(rel) > 1 else os.path.basename(os.path.abspath(root))


# --- scoring -------------------------------------------------------------------------------------


def new_stats():
    s = {k: 0 for k in ("notes", "expected", "found", "missing", "extra", "right", "debris")}
    s["errors"] = {f: 0 for f in FIELDS}
    s["zotero_link_right"] = 0
    s["meta_checked"] = 0
    s["meta_right"] = 0
    s["meta_notes"] = 0
    s["meta_notes_right"] = 0
    return s


def add(into, s):
    for k, v in s.items():
        if k == "errors":
            for f in FIELDS:
                into["errors"][f] += v[f]
        else:
            into[k] += v


def show(v):
    t = json.dumps(v, ensure_ascii=False)
    return t if len(t) <= TRUNC else t[: TRUNC - 1] + "…"


def score_note(rel, exp_doc, doc, log):
    s = new_stats()
    s["notes"] = 1
    expected = [from_expected(r) for r in exp_doc["annotations"] if isinstance(r, dict)]
    actual = [from_parse(r) for r in doc["annotations"] if isinstance(r, dict)]
    s["expected"] = len(expected)
    pairs = align(expected, actual)
    s["found"] = len(pairs)
    s["missing"] = len(expected) - len(pairs)
    s["extra"] = len(actual) - len(pairs)
    paired_e = {i: j for i, j in pairs}
    paired_a = {j: i for i, j in pairs}

    for i, e in enumerate(expected):
        if i not in paired_e:
            log(rel, "exp[%d]" % i, "MISSING", e["text"] or e["comment"] or e["image"], None)
    for j, a in enumerate(actual):
        if j not in paired_a:
            log(rel, "act[%d]" % j, "EXTRA", None, a["text"] or a["comment"] or a["image"])

    for i, j in pairs:
        e, a = expected[i], actual[j]
        ok = True
        for f in FIELDS:
            if f in ("page_label", "zotero_link") and f not in e["checked"]:
                continue
            if same(f, e, a):
                if f == "zotero_link":
                    s["zotero_link_right"] += 1
                continue
            s["errors"][f] += 1
            if f in CORE:
                ok = False
            log(rel, "exp[%d]/act[%d]" % (i, j), f, e[f], a[f])
        if ok:
            s["right"] += 1

    for j, a in enumerate(actual):
        e = expected[paired_a[j]] if j in paired_a else None
        hit = False
        for f in ("text", "comment"):
            for m in DEBRIS.finditer(a[f] or ""):
                if e is not None and m.group(0).lower() in (e[f] or "").lower():
                    continue
                hit = True
                lo = max(0, m.start() - 40)
                log(rel, "act[%d]" % j, "DEBRIS " + f, None, a[f][lo : m.end() + 40])
                break
        if hit:
            s["debris"] += 1

    labelled = [k for k in META if exp_doc.get(k) is not None]
    if labelled:
        s["meta_notes"] = 1
        all_ok = True
        for k in labelled:
            ev, av = exp_doc.get(k), doc.get(k)
            if isinstance(av, list):
                av = ", ".join(str(x) for x in av)
            if k == "citekey":
                ok = blank(ev) == blank(av)
            else:
                ok = collapse(ev) == collapse(av)
            s["meta_checked"] += 1
            if ok:
                s["meta_right"] += 1
            else:
                all_ok = False
                log(rel, "meta", k, ev, av)
        if all_ok:
            s["meta_notes_right"] += 1
    return s


def rate(s):
    return round(100.0 * s["right"] / s["expected"], 1) if s["expected"] else None


def summary_row(s):
    out = {k: s[k] for k in ("notes", "expected", "found", "missing", "extra", "right")}
    out["rate"] = rate(s)
    out["errors"] = dict(s["errors"])
    out["debris"] = s["debris"]
    out["zotero_link_right"] = s["zotero_link_right"]
    out["metadata"] = {
        "notes": s["meta_notes"],
        "notes_right": s["meta_notes_right"],
        "fields": s["meta_checked"],
        "fields_right": s["meta_right"],
    }
    return out


def print_table(rows):
    head = ["family", "notes", "exp", "found", "miss", "extra", "right", "rate%",
            "text", "comm", "colour", "page", "image", "type", "plabel", "zlink", "debris", "meta"]
    table = [head]
    for name, r in rows:
        m = r["metadata"]
        table.append([
            name, r["notes"], r["expected"], r["found"], r["missing"], r["extra"], r["right"],
            "-" if r["rate"] is None else "%.1f" % r["rate"],
            *[r["errors"][f] for f in FIELDS], r["debris"],
            "%d/%d" % (m["fields_right"], m["fields"]) if m["fields"] else "-",
        ])
    widths = [max(len(str(row[c])) for row in table) for c in range(len(head))]
    for n, row in enumerate(table):
        cells = [str(v).ljust(widths[0]) if c == 0 else str(v).rjust(widths[c]) for c, v in enumerate(row)]
        print("  ".join(cells))
        if n == 0 or n == len(table) - 2:
            print("  ".join("-" * w for w in widths))
    print("(text..zlink: errors among found annotations; right = text, comment, colour, page, image and type "
          "all equal; meta: metadata fields right/labelled)")


def main():
    ap = argparse.ArgumentParser(description="Score `scholia parse` against expected annotation JSON.")
    ap.add_argument("dir")
    ap.add_argument("--min", type=float, default=None, metavar="RATE",
                    help="exit 1 when the overall entirely-right rate is below RATE %%, or on any extra or debris")
    ap.add_argument("--verbose", action="store_true", help="print every mismatch")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    ap.add_argument("--no-template", action="store_true",
                    help="parse with the built-in rules only, as if the vault held no template")
    ap.add_argument("--floor", metavar="FILE",
                    help="exit 1 when a family reads fewer annotations entirely right, or more extra or debris, "
                         "than FILE records (a ratchet: raise it as the parser improves)")
    ap.add_argument("--write-floor", metavar="FILE", help="record this run's per-family results in FILE")
    args = ap.parse_args()
    if args.no_template:
        PARSE_FLAGS.append("--no-template")

    root = args.dir
    if not os.path.isdir(root):
        sys.exit("score-annotations: not a directory: %s" % root)
    notes = find_notes(root)
    if not notes:
        print("score-annotations: no labelled notes (X.md with X.json holding \"annotations\") under %s" % root,
              file=sys.stderr)
    binary = find_binary() if notes else None

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        parsed = list(pool.map(lambda n: parse_note(binary, n[0], vault_of(root, n[0])), notes))

    mismatches = []

    def log(rel, where, field, expected, actual):
        mismatches.append({"file": rel, "where": where, "field": field, "expected": expected, "actual": actual})

    families, overall, failures = {}, new_stats(), []
    for (path, exp), (doc, err) in zip(notes, parsed):
        rel = os.path.relpath(path, root)
        if err is not None:
            failures.append({"file": rel, "error": err})
            print("PARSE FAILED: %s: %s" % (rel, err), file=sys.stderr)
            continue
        s = score_note(rel, exp, doc, log)
        fam = family_of(root, path, exp)
        add(families.setdefault(fam, new_stats()), s)
        add(overall, s)

    rows = [(name, summary_row(families[name])) for name in sorted(families)]
    total = summary_row(overall)
    if args.json:
        out = {"families": dict(rows), "overall": total, "parse_failures": failures}
        if args.verbose:
            out["mismatches"] = mismatches
        print(json.dumps(out, ensure_ascii=False, indent=2))
    else:
        if args.verbose:
            for mm in mismatches:
                print("%s %s %s: expected %s | actual %s" % (
                    mm["file"], mm["where"], mm["field"], show(mm["expected"]), show(mm["actual"])))
            if mismatches:
                print()
        print_table(rows + [("OVERALL", total)])
        if failures:
            print("%d note(s) failed to parse: %s" % (len(failures), ", ".join(f["file"] for f in failures)))

    if failures:
        return 2
    if args.write_floor:
        floor = {name: {"right": r["right"], "extra": r["extra"], "debris": r["debris"]} for name, r in rows}
        with open(args.write_floor, "w", encoding="utf-8") as f:
            json.dump(floor, f, indent=2, sort_keys=True)
            f.write("\n")
    if args.floor:
        with open(args.floor, encoding="utf-8") as f:
            floor = json.load(f)
        found = dict(rows)
        worse = []
        for name, want in sorted(floor.items()):
            got = found.get(name)
            if got is None:
                worse.append("%s: no longer scored" % name)
                continue
            if got["right"] < want["right"]:
                worse.append("%s: %d entirely right, the floor is %d" % (name, got["right"], want["right"]))
            for key in ("extra", "debris"):
                if got[key] > want[key]:
                    worse.append("%s: %d %s, the floor allows %d" % (name, got[key], key, want[key]))
        better = [name for name, want in floor.items() if name in found and found[name]["right"] > want["right"]]
        if better:
            print("better than the floor (raise it with --write-floor): %s" % ", ".join(sorted(better)))
        if worse:
            print("score-annotations: FAIL: below the floor in %s" % "; ".join(worse), file=sys.stderr)
            return 1
    if args.min is not None:
        r = total["rate"]
        why = []
        if r is None:
            why.append("no expected annotation")
        elif r < args.min:
            why.append("entirely-right rate %.1f%% < %g%%" % (r, args.min))
        if total["extra"]:
            why.append("%d extra annotation(s)" % total["extra"])
        if total["debris"]:
            why.append("%d annotation(s) with debris" % total["debris"])
        if why:
            print("score-annotations: FAIL: " + "; ".join(why), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # e.g. piped into `head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
