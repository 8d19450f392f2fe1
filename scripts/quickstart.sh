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
first=$(ls "$refs"/*.md | head -n 1)
step "summarizing $(basename "$first")"
summary=$("$bin" summarize "$first" --vault "$vault" --write)

step "synthesizing every annotation note in References/"
synthesis=$("$bin" synthesize "$refs"/*.md --vault "$vault" --write)

printf '\nWrote:\n  %s\n  %s\nOpen %s in Obsidian to browse them.\n' "$summary" "$synthesis" "$vault"
