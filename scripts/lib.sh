# Shared shell helpers for the project's scripts. Sourced, not run.

# Build products are cached outside the clone, so a fresh clone on the same machine reuses them.
: "${CARGO_TARGET_DIR:=${XDG_CACHE_HOME:-$HOME/.cache}/scholia/target}"
export CARGO_TARGET_DIR

step() { printf '\n==> %s\n' "$*" >&2; }

# Installs the wasm32 target when it is missing.
ensure_wasm_target() {
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    step "installing the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
}

# Builds the release binary (CLI + MCP server) and sets $bin to its path.
build_cli() {
  step "building scholia (release, --features mcp)"
  cargo build --release --features mcp --quiet
  bin="$CARGO_TARGET_DIR/release/scholia"
}

# Tools built from crates.io live here, outside the clone (kept between runs).
: "${SCHOLIA_TOOLS:=${XDG_CACHE_HOME:-$HOME/.cache}/scholia/tools}"
export PATH="$SCHOLIA_TOOLS/bin:$PATH"

# The wasm-pack this project builds with (crates.io; its npm package downloads from elsewhere).
WASM_PACK_VERSION=0.15.1

# Installs wasm-bindgen-cli of exactly the version Cargo.lock pins, and wasm-pack, when missing.
ensure_wasm_tools() {
  local want
  want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)
  if [[ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $want" ]]; then
    step "installing wasm-bindgen-cli $want (the version in Cargo.lock)"
    cargo install --quiet --force wasm-bindgen-cli --version "$want" --root "$SCHOLIA_TOOLS"
  fi
  if [[ "$(wasm-pack --version 2>/dev/null)" != "wasm-pack $WASM_PACK_VERSION" ]]; then
    step "installing wasm-pack $WASM_PACK_VERSION"
    cargo install --quiet --force wasm-pack --version "$WASM_PACK_VERSION" --root "$SCHOLIA_TOOLS"
  fi
}

# Installs the plugin's npm packages from its lockfile when they are missing or out of date.
ensure_plugin_packages() {
  if [[ ! -f plugin/node_modules/.package-lock.json ]] || ! cmp -s plugin/package-lock.json plugin/.installed-lock; then
    step "installing the plugin's npm packages (npm ci)"
    (cd plugin && npm ci --no-audit --no-fund --loglevel=error) >&2
    cp plugin/package-lock.json plugin/.installed-lock
  fi
}

# Installs Debian's chromium for the browser test when it is missing; sets $chromium.
ensure_chromium() {
  chromium=$(command -v chromium || true)
  if [[ -z "$chromium" ]]; then
    step "installing Debian's chromium"
    local sudo=""
    [[ $(id -u) -ne 0 ]] && sudo=sudo
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >&2
    chromium=$(command -v chromium)
  fi
}
