#!/usr/bin/env bash
# Builds the plugin and installs it into a vault: ./scripts/install-plugin.sh /path/to/vault
# Copies main.js, manifest.json and styles.css to <vault>/<config folder>/plugins/scholia/ (the
# config folder is .obsidian unless SCHOLIA_CONFIG_DIR names another). Then enable Scholia in
# Obsidian: Settings → Community plugins.
set -euo pipefail
cd "$(dirname "$0")/.."
vault=${1:?usage: $0 /path/to/vault}
config=${SCHOLIA_CONFIG_DIR:-.obsidian}
if [[ ! -d "$vault" ]]; then
  echo "$vault is not a folder; give the vault's folder (the one that holds $config/)" >&2
  exit 1
fi
if [[ ! -d "$vault/$config" ]]; then
  echo "$vault has no $config/ folder: open it once in Obsidian first (or set SCHOLIA_CONFIG_DIR)" >&2
  exit 1
fi
./scripts/build-plugin.sh
dest="$vault/$config/plugins/scholia"
mkdir -p "$dest"
for f in main.js manifest.json styles.css; do
  cp "$f" "$dest/$f.tmp" && mv "$dest/$f.tmp" "$dest/$f"
done
echo "installed Scholia into $dest; enable it in Obsidian: Settings → Community plugins" >&2
