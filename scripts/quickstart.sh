#!/usr/bin/env bash
# The main job, on the bundled example vault: builds the Obsidian plugin (main.js with the wasm core
# inlined) and the CLI + MCP server, installs the plugin into a copy of examples/vault, writes a
# summary of one paper and a synthesis across papers there, asks the MCP server, and says where
# everything is.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

./scripts/build-plugin.sh
build_cli

vault="$CARGO_TARGET_DIR/example-vault"
step "copying examples/vault to $vault, with the plugin installed and enabled"
rm -rf "$vault"
cp -R examples/vault "$vault"
mkdir -p "$vault/.obsidian/plugins/scholia"
cp main.js manifest.json styles.css "$vault/.obsidian/plugins/scholia/"
printf '["scholia"]\n' > "$vault/.obsidian/community-plugins.json"

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

step "the same tools from the shell: scholia call find_related_notes"
"$bin" call find_related_notes '{"path": "[[@moreau2024ragsurvey]]", "limit": 3}' --vault "$vault" | python3 -c '
import json, sys
for r in json.load(sys.stdin)["related"]:
    print("  related:", r["path"], "-", r["why"])
'

printf '\nPlugin: main.js (%s KB, wasm inlined), manifest.json, styles.css; install into your vault with\n  ./scripts/install-plugin.sh /path/to/vault\n' "$(( $(stat -c %s main.js) / 1024 ))"
printf '\nWrote:\n  %s\n  %s\nOpen %s in Obsidian to browse them (Scholia is installed and enabled there).\n' "$summary" "$synthesis" "$vault"
printf 'Serve it to an agent: %s mcp --vault %s\n' "$bin" "$vault"
