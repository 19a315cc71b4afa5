#!/usr/bin/env bash
# A platform-specific .vsix that carries the layoutc binary (as
# rust-analyzer's packages do), so a user installs one file and needs no Rust
# toolchain; the `layoutc.path` setting still wins over the bundled binary.
#
#   editors/vscode/package-platform.sh [TARGET] [BINARY] [OUT]
#
# TARGET is a VS Code platform (linux-x64, linux-arm64, darwin-arm64,
# win32-x64, ...; default linux-x64); BINARY the layoutc built for it
# (default: `cargo build --release`'s); OUT the .vsix to write.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
target="${1:-linux-x64}"
binary="${2:-}"
out="${3:-$here/layoutc-$target.vsix}"
if [ -z "$binary" ]; then
  (cd "$root" && cargo build --release -p layoutc)
  binary="$root/target/release/layoutc"
fi
name="layoutc"
case "$target" in win32-*) name="layoutc.exe" ;; esac
rm -rf "$here/bin"
mkdir -p "$here/bin"
cp "$binary" "$here/bin/$name"
# A debug build carries its debug info; the package does not need it.
if command -v strip >/dev/null && [ "$name" = layoutc ]; then
  strip --strip-debug "$here/bin/$name" || true
fi
chmod +x "$here/bin/$name"
cd "$here"
npm ci --no-audit --no-fund
npm run compile
npx --yes @vscode/vsce package --target "$target" --allow-missing-repository -o "$out"
rm -rf "$here/bin"
echo "wrote $out"
