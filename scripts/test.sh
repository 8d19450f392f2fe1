#!/usr/bin/env bash
# Runs every check and test of the project; installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

step "rustfmt"
cargo fmt --all --check
step "clippy (all targets, all features)"
cargo clippy --all-targets --all-features --quiet -- -D warnings
step "clippy for wasm32 (the plugin's build of the core)"
ensure_wasm_target
cargo clippy --lib --test wasm --target wasm32-unknown-unknown --quiet -- -D warnings
step "Rust tests (all features)"
cargo test --all-features --quiet 2>&1 | tee "${CARGO_TARGET_DIR}/rust-tests.log"
step "Annotation families: scholia parse scored field by field against the expected JSON (never below the floor)"
SCHOLIA_BIN="${CARGO_TARGET_DIR}/debug/scholia" scripts/score-annotations.sh tests/cases/families \
  --floor tests/cases/families/floor.json | tail -n 3
step "Round trip: each family's template rendered by the real Nunjucks engine, then read back (never below the floor)"
SCHOLIA_BIN="${CARGO_TARGET_DIR}/debug/scholia" tests/roundtrip/run.sh tests/cases/families \
  --floor tests/roundtrip/floor.json | tail -n 3
step "MCP end to end (TypeScript SDK client, MCP Inspector CLI, conformance suite)"
./scripts/test-mcp-e2e.sh
step "Obsidian plugin (wasm tests in Node, tsc, lint, Vitest, browser)"
./scripts/test-plugin.sh

rust=0
for n in $(grep -oE 'test result: ok\. [0-9]+ passed' "${CARGO_TARGET_DIR}/rust-tests.log" | grep -oE '[0-9]+'); do
  rust=$((rust + n))
done
count() { sed 's/\x1b\[[0-9;]*m//g' "${CARGO_TARGET_DIR}/$2" | grep -oE "$1" | grep -oE '[0-9]+' | tail -1 || echo 0; }
e2e=$(( $(count '^[0-9]+ passed' e2e-client.log) + $(count '^[0-9]+ passed' inspector.log) ))
wasm=$(count 'test result: ok\. [0-9]+ passed' wasm-tests.log)
vitest=$(count 'Tests +[0-9]+ passed' vitest.log)
browser=$(count '^[0-9]+ passed' browser.log)
printf '\nall checks green: %s Rust tests, %s MCP client checks, %s wasm tests, %s plugin unit tests, %s browser checks\n' \
  "$rust" "$e2e" "$wasm" "$vitest" "$browser"
echo "$((rust + e2e + wasm + vitest + browser)) passed, 0 failed"
