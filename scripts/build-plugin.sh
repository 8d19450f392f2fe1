#!/usr/bin/env bash
# Builds the Obsidian plugin: the core to wasm (wasm-pack, size profile), wasm-opt from npm's
# binaryen, then esbuild bundles plugin/ into main.js with the wasm inlined. Installs what it needs:
# the wasm32 target, wasm-bindgen-cli of exactly Cargo.lock's version, wasm-pack, npm packages.
# Leaves main.js, manifest.json and styles.css at the repository root (the three installable files).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_wasm_target
ensure_wasm_tools
ensure_plugin_packages

step "building the core to wasm (wasm-pack --target web, profile wasm-release)"
wasm-pack --quiet build --target web --out-dir pkg --profile wasm-release --no-opt --no-pack . >&2
step "optimizing the wasm (wasm-opt -Oz, from npm's binaryen)"
before=$(stat -c %s pkg/scholia_bg.wasm)
plugin/node_modules/.bin/wasm-opt -Oz --strip-debug --strip-producers pkg/scholia_bg.wasm -o pkg/scholia_bg.wasm
after=$(stat -c %s pkg/scholia_bg.wasm)
echo "  wasm: $before -> $after bytes" >&2

step "bundling the plugin (esbuild -> main.js, wasm inlined)"
(cd plugin && node esbuild.config.mjs)
echo "  main.js: $(stat -c %s main.js) bytes" >&2
