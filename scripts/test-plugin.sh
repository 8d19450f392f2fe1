#!/usr/bin/env bash
# The plugin's checks and tests: the wasm binding layer in Node (wasm-bindgen-test), the plugin
# build, tsc (strict), the Obsidian plugin lint, Vitest, and the browser test in Debian's Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_wasm_target
ensure_wasm_tools

step "wasm binding layer in Node (wasm-bindgen-test)"
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test --target wasm32-unknown-unknown --test wasm 2>&1 | tee "$CARGO_TARGET_DIR/wasm-tests.log"

./scripts/build-plugin.sh

cd plugin
step "TypeScript (tsc --noEmit, strict)"
npx --no-install tsc --noEmit -p .
step "plugin lint (eslint-plugin-obsidianmd)"
npx --no-install eslint --max-warnings 0 .
step "plugin unit tests (Vitest, in-memory Obsidian stand-in, the real wasm core)"
NO_COLOR=1 npx --no-install vitest run 2>&1 | tee "$CARGO_TARGET_DIR/vitest.log"

step "browser test (headless Chromium, the built main.js in the harness)"
ensure_chromium
CHROMIUM="$chromium" node browser/run.mjs | tee "$CARGO_TARGET_DIR/browser.log"
