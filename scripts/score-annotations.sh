#!/usr/bin/env bash
# Scores `scholia parse` against hand-checked expected annotations (X.md beside X.json).
# Usage: scripts/score-annotations.sh DIR [--min RATE] [--verbose] [--json]
# The binary: $SCHOLIA_BIN, else a release build (--features mcp) in ${CARGO_TARGET_DIR:-target}.
# Everything else, and the rules, are in score_annotations.py beside this file.
set -euo pipefail
exec python3 "$(dirname "${BASH_SOURCE[0]}")/score_annotations.py" "$@"
