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
