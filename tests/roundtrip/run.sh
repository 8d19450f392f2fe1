#!/usr/bin/env bash
# Round trip: renders each case's Zotero Integration template with the real Nunjucks engine (render.mjs),
# then scores `scholia parse` on the rendered notes (scripts/score-annotations.sh).
# Usage: tests/roundtrip/run.sh [CASES_DIR] [score-annotations options]
#   CASES_DIR: default tests/cases/annotations (its folders holding a roundtrip.json);
#   tests/roundtrip runs the example case, tests/cases/families the fixture families.
#   Output: ${CARGO_TARGET_DIR:-target}/roundtrip/<case>/ (note.md, note.json, the case's .obsidian and template).
#   Options go to score-annotations.sh as given: --verbose, --json, --min RATE, --floor FILE (fail when a
#   family reads fewer annotations entirely right, or more extra/debris, than FILE records),
#   --write-floor FILE (record this run's per-family counts in FILE). Without --min, --floor or
#   --write-floor the gate is --min 100 (every annotation entirely right, no extra, no debris).
#   SCHOLIA_BIN: a scholia binary to use instead of building one.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

cases="$repo/tests/cases/annotations"
if [[ $# -gt 0 && "$1" != -* ]]; then
  cases="$(cd "$1" && pwd)"
  shift
fi

gate=(--min 100)
for arg in "$@"; do
  case "$arg" in
    --min | --min=* | --floor | --floor=* | --write-floor | --write-floor=*) gate=() ;;
  esac
done

if [[ -n "${SCHOLIA_BIN:-}" && ! -x "$SCHOLIA_BIN" ]]; then
  echo "run.sh: SCHOLIA_BIN is not an executable file: $SCHOLIA_BIN" >&2
  exit 2
fi

target="${CARGO_TARGET_DIR:-$repo/target}"
mkdir -p "$target"
out="$(cd "$target" && pwd)/roundtrip"

if [[ ! -d "$here/node_modules" ]]; then
  (cd "$here" && npm ci --no-audit --no-fund)
fi
rm -rf "$out"
node "$here/render.mjs" "$cases" "$out"
exec "$repo/scripts/score-annotations.sh" "$out" "${gate[@]}" "$@"
