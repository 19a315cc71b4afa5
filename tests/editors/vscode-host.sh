#!/usr/bin/env bash
# The VS Code extension inside a real VS Code: code-server (VS Code's own
# server and web workbench) with the linux-x64 .vsix installed, driven by
# headless Chromium (vscode-host.js): hovers draw ownership grids in a .lay
# file and in a Triton dump, and Problems lists their diagnostics.
#
#   tests/editors/vscode-host.sh
#
# LAYOUTC: the binary to package (default: `cargo build -p layoutc`'s).
# VSCODE_HOST_KEEP=1 keeps the scratch folder (logs, screenshots) after a
# pass too; after a failure it is always kept, and its path printed.
#
# The first run installs code-server from npm into a cache outside the
# repository (a few minutes: VS Code's native modules are compiled here);
# later runs reuse it and need no network but npm's cache. Installs Debian's
# build tools, ripgrep and chromium when missing; fails (never skips) when
# it cannot.
set -euo pipefail
cd "$(dirname "$0")/../.."

# 4.100.x is the last code-server line that runs on Node 20 (4.103 wants
# Node 22, today's Node 24). Its npm package, and VS Code's npm-shrinkwrap.json
# inside it, pin every dependency.
cs_version=4.100.3
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" = 20 ] || { echo "vscode-host: code-server $cs_version needs Node 20, this is $(node -v)" >&2; exit 1; }

# --- What Debian provides: a compiler and python3 for node-gyp, ripgrep
# (code-server's own ripgrep download cannot run offline), chromium.
missing=()
for tool in make:build-essential g++:build-essential python3:python3 rg:ripgrep chromium:chromium; do
  command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "vscode-host: installing ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
for tool in make g++ python3 rg chromium; do
  command -v "$tool" >/dev/null || { echo "vscode-host: $tool is missing and could not be installed" >&2; exit 1; }
done

# Native modules are compiled against the running node's own headers (the
# nodejs package ships them under its prefix) with the node-gyp that npm
# bundles, so nothing is downloaded for them.
nodedir=$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")
[ -f "$nodedir/include/node/node_api.h" ] || { echo "vscode-host: no node headers under $nodedir/include/node" >&2; exit 1; }
node_gyp="$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js"
[ -f "$node_gyp" ] || { echo "vscode-host: npm's node-gyp is not at $node_gyp" >&2; exit 1; }

# --- code-server, once per version and node ABI, into the cache.
cache="${XDG_CACHE_HOME:-$HOME/.cache}/layoutc-code-server"
prefix="$cache/code-server-$cs_version-node-abi$(node -p process.versions.modules)"
if [ ! -f "$prefix/.installed" ]; then
  echo "vscode-host: installing code-server $cs_version into $prefix"
  # Built beside, moved into place when whole: a broken install is never reused.
  tmp="$prefix.tmp"
  rm -rf "$tmp" "$prefix"
  mkdir -p "$tmp"
  echo '{"private": true}' > "$tmp/package.json"
  # --ignore-scripts: code-server's postinstall would fetch ripgrep from
  # GitHub and argon2 its prebuilt binary; the steps it takes are done here.
  log="$tmp/install.log"
  (cd "$tmp" && npm install --ignore-scripts --no-audit --no-fund "code-server@$cs_version" >>"$log" 2>&1) \
    || { cat "$log" >&2; exit 1; }
  cs="$tmp/node_modules/code-server"
  vscode="$cs/lib/vscode"
  (cd "$vscode" && npm install --ignore-scripts --omit=dev --no-audit --no-fund >>"$log" 2>&1) \
    || { cat "$log" >&2; exit 1; }
  # What postinstall.sh links (lib/vscode/extensions' own npm install only
  # brings TypeScript for the built-in TypeScript extension: not needed).
  ln -s node_modules "$vscode/node_modules.asar"
  ln -s code-linux.sh "$vscode/bin/remote-cli/code-server"
  ln -s browser-linux.sh "$vscode/bin/helpers/browser.sh"
  # The native modules that starting the server, the extension host and a
  # terminal load: argon2 (code-server's passwords, loaded at start),
  # spdlog (logs), native-watchdog (the extension host), node-pty
  # (terminals). kerberos (proxy authentication) and the Windows-only ones
  # are left out.
  export npm_config_nodedir="$nodedir" npm_config_node_gyp="$node_gyp"
  argon2=$(dirname "$(node -p "require.resolve('argon2/package.json', { paths: ['$cs'] })")")
  pre_gyp=$(node -p "require.resolve('@mapbox/node-pre-gyp/bin/node-pre-gyp', { paths: ['$argon2'] })")
  (cd "$argon2" && node "$pre_gyp" rebuild >>"$log" 2>&1) || { cat "$log" >&2; exit 1; }
  for module in @vscode/spdlog native-watchdog node-pty; do
    (cd "$vscode/node_modules/$module" && node "$node_gyp" rebuild >>"$log" 2>&1) || { cat "$log" >&2; exit 1; }
  done
  # Debian's ripgrep where VS Code looks for its own (Quick Open and search).
  mkdir -p "$vscode/node_modules/@vscode/ripgrep/bin"
  ln -sf "$(command -v rg)" "$vscode/node_modules/@vscode/ripgrep/bin/rg"
  # It starts (its config and logs in a throwaway folder, not under ~).
  XDG_CONFIG_HOME="$tmp/.xdg" XDG_DATA_HOME="$tmp/.xdg" node "$cs/out/node/entry.js" --version >>"$log"
  rm -rf "$tmp/.xdg"
  touch "$tmp/.installed"
  mv "$tmp" "$prefix"
fi

# From here on npm takes what its cache has (every package is pinned by a
# lockfile) without asking the registry: quicker, and it works offline.
export npm_config_prefer_offline=true

# --- The extension, packaged as a release would be.
layoutc="${LAYOUTC:-}"
if [ -z "$layoutc" ]; then
  cargo build -q -p layoutc
  layoutc=target/debug/layoutc
fi
work=$(mktemp -d)
server=
cleanup() {
  status=$?
  # code-server runs in a session of its own (setsid): its group is its
  # extension host, terminals and the language server, all ended together.
  if [ -n "$server" ]; then
    kill -- "-$server" 2>/dev/null || true
    for _ in $(seq 25); do kill -0 -- "-$server" 2>/dev/null || break; sleep 0.2; done
    kill -KILL -- "-$server" 2>/dev/null || true
  fi
  if [ "$status" -eq 0 ] && [ -z "${VSCODE_HOST_KEEP:-}" ]; then
    rm -rf "$work"
  else
    echo "vscode-host: scratch folder kept: $work (server.log, user-data/logs, *.png)" >&2
  fi
}
trap cleanup EXIT
# code-server, with its config, logs and caches kept in the scratch folder.
code_server=(env XDG_CONFIG_HOME="$work/xdg/config" XDG_DATA_HOME="$work/xdg/data" XDG_CACHE_HOME="$work/xdg/cache"
             node "$prefix/node_modules/code-server/out/node/entry.js")
editors/vscode/package-platform.sh linux-x64 "$layoutc" "$work/layoutc-linux-x64.vsix" >"$work/package.log" 2>&1 \
  || { cat "$work/package.log" >&2; exit 1; }

# A user data folder of its own: no first-run editors, no trust prompt, no
# update checks; word wrap so that every column to hover is on screen.
mkdir -p "$work/user-data/User" "$work/extensions" "$work/workspace"
cat > "$work/user-data/User/settings.json" <<'JSON'
{
  "workbench.startupEditor": "none",
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "workbench.enableExperiments": false,
  "editor.wordWrap": "on",
  "editor.stickyScroll.enabled": false
}
JSON
dirs=(--user-data-dir "$work/user-data" --extensions-dir "$work/extensions")
"${code_server[@]}" "${dirs[@]}" --install-extension "$work/layoutc-linux-x64.vsix" >"$work/install.log" 2>&1 \
  || { cat "$work/install.log" >&2; exit 1; }
"${code_server[@]}" "${dirs[@]}" --list-extensions | grep -qx layoutc.layoutc \
  || { echo "vscode-host: the extension did not install" >&2; exit 1; }

# The workspace: a .lay file with a blocked layout to hover and a local_alloc
# whose bank-conflict check fails (E0401: a column of 32 lanes stored into
# unswizzled f32 rows is a 32-way conflict), and a Triton dump whose
# convert_layout goes through shared memory (W0401 at line 61).
cat > "$work/workspace/access.lay" <<'LAY'
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:80"}
#col = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#rows = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
%a = ttg.local_alloc %x : (tensor<32x32xf32, #col>) -> !ttg.memdesc<32x32xf32, #rows, #smem>
layout blk = tensor<16x32xf16, #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
check bank_conflicts(%a) == 0
LAY
cp tests/corpus/ttgir/transpose_sm80.ttgir "$work/workspace/"

# code-server on a free port of the loopback, without a password.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'bind-addr: 127.0.0.1:%s\nauth: none\ncert: false\n' "$port" > "$work/config.yaml"
setsid "${code_server[@]}" --config "$work/config.yaml" "${dirs[@]}" \
  --disable-telemetry --disable-update-check --disable-workspace-trust --disable-getting-started-override \
  "$work/workspace" >"$work/server.log" 2>&1 &
server=$!
healthy() {
  node -e 'require("http").get(process.argv[1], r => process.exit(r.statusCode === 200 ? 0 : 1)).on("error", () => process.exit(1))' \
    "http://127.0.0.1:$port/healthz"
}
for _ in $(seq 60); do
  healthy && break
  kill -0 "$server" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 0.5
done
healthy || { echo "vscode-host: code-server did not answer on port $port" >&2; cat "$work/server.log" >&2; exit 1; }

(cd tests/editors && npm ci --no-audit --no-fund --silent)
CHROMIUM="$(command -v chromium)" node tests/editors/vscode-host.js \
  "http://127.0.0.1:$port/?folder=$work/workspace" "$work"
