#!/usr/bin/env bash
# Runs every check and test of the project; installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

step "rustfmt"
cargo fmt --all --check
step "clippy (all targets, all features)"
cargo clippy --all-targets --all-features --quiet -- -D warnings
step "Rust tests (all features)"
cargo test --all-features --quiet 2>&1 | tee "${CARGO_TARGET_DIR}/rust-tests.log"
