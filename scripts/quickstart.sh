#!/usr/bin/env bash
# The main job, on the bundled example vault: builds the CLI, then writes a summary of one paper and a
# synthesis across papers into a copy of examples/vault, and says where they are.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

build_cli

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

step "asking the MCP server (scholia mcp, stdio) what it offers, as an agent would"
{
  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"quickstart","version":"1"}}}'
  printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
  printf '%s\n' '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_vault","arguments":{"query":"spacing retention","limit":3}}}'
  sleep 1
} | "$bin" mcp --vault "$vault" 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("id") == 2:
        print("  tools:", ", ".join(t["name"] for t in msg["result"]["tools"]))
    if msg.get("id") == 3:
        for r in msg["result"]["structuredContent"]["results"]:
            print("  search_vault:", r["path"], r["score"])
'

printf '\nWrote:\n  %s\n  %s\nOpen %s in Obsidian to browse them.\n' "$summary" "$synthesis" "$vault"
printf 'Serve it to an agent: %s mcp --vault %s\n' "$bin" "$vault"
