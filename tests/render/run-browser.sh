#!/usr/bin/env bash
# The HTML view of `layoutc render` in headless Chromium: hovering a cell
# shows its coordinates, owner and bank. Installs Debian's chromium when it
# is missing; fails (never skips) when it cannot.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v chromium >/dev/null; then
  echo "run-browser: installing chromium"
  if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq chromium >/dev/null
fi
command -v chromium >/dev/null || { echo "run-browser: chromium is missing and could not be installed" >&2; exit 1; }

cargo build -q -p layoutc
layoutc=target/debug/layoutc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/access.lay" <<'LAY'
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:80"}
#col = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#rows = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
%a = ttg.local_alloc %x : (tensor<32x32xf32, #col>) -> !ttg.memdesc<32x32xf32, #rows, #smem>
LAY
cat > "$work/layout.lay" <<'LAY'
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32}
layout blk = tensor<16x32xf16, #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
LAY
"$layoutc" render "$work/access.lay" %a -o "$work/access.html"
"$layoutc" render "$work/layout.lay" blk -o "$work/layout.html"

(cd tests/render && npm ci --no-audit --no-fund --silent)
CHROMIUM="$(command -v chromium)" node tests/render/hover.js "$work/access.html" "$work/layout.html"
