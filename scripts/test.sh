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
cargo clippy --lib --target wasm32-unknown-unknown --quiet -- -D warnings
step "Rust tests (all features)"
cargo test --all-features --quiet 2>&1 | tee "${CARGO_TARGET_DIR}/rust-tests.log"
step "MCP end to end (TypeScript SDK client, conformance suite)"
./scripts/test-mcp-e2e.sh

rust=0
for n in $(grep -oE 'test result: ok\. [0-9]+ passed' "${CARGO_TARGET_DIR}/rust-tests.log" | grep -oE '[0-9]+'); do
  rust=$((rust + n))
done
e2e=$(grep -oE '^[0-9]+ passed' "${CARGO_TARGET_DIR}/e2e-client.log" | grep -oE '[0-9]+' || echo 0)
printf '\nall checks green: %s Rust tests, %s end-to-end client checks\n' "$rust" "$e2e"
echo "$((rust + e2e)) passed, 0 failed"
