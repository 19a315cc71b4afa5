#!/usr/bin/env bash
# Drives `layoutc lsp` through Neovim's built-in LSP client (headless).
# Installs Debian's neovim when it is missing; fails (never skips) when it
# cannot, so CI cannot pass without the client having run.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v nvim >/dev/null; then
  if command -v apt-get >/dev/null; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq neovim >/dev/null
  fi
fi
command -v nvim >/dev/null || { echo "run-neovim.sh: neovim is not installed and cannot be installed" >&2; exit 1; }

LAYOUTC="${LAYOUTC:-target/debug/layoutc}"
[ -x "$LAYOUTC" ] || cargo build -q -p layoutc
export LAYOUTC
nvim --headless --clean -u NONE +"luafile tests/lsp/nvim_client.lua"
