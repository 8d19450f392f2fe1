#!/usr/bin/env bash
# The main job, on the bundled example vault: builds the CLI, then writes a summary of one paper and a
# synthesis across papers into a copy of examples/vault, and says where they are.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

step "building scholia (release, --features mcp)"
cargo build --release --features mcp --quiet
bin="$CARGO_TARGET_DIR/release/scholia"

vault="$CARGO_TARGET_DIR/example-vault"
step "copying examples/vault to $vault"
rm -rf "$vault"
cp -R examples/vault "$vault"

refs="$vault/References"
step "summarizing References/@moreau2024ragsurvey.md"
summary=$("$bin" summarize "$refs/@moreau2024ragsurvey.md" --vault "$vault" --write)

step "synthesizing the four papers on evaluating retrieval-augmented generation"
synthesis=$("$bin" synthesize "$refs/@moreau2024ragsurvey.md" "$refs/@okafor2023judges.md" \
  "$refs/@brandt2024benchmarks.md" "$refs/@sato2024freshqa.md" --vault "$vault" --write)

printf '\nWrote:\n  %s\n  %s\nOpen %s in Obsidian to browse them.\n' "$summary" "$synthesis" "$vault"
