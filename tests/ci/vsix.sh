#!/usr/bin/env bash
# The VS Code extension type-checks and packages as a linux-x64 platform
# .vsix carrying the layoutc binary (the tests' build, stripped: CI checks
# the packaging; a release package is built the same way from a release
# binary). The binary inside the package must be the one given, and run.
set -euo pipefail
cd "$(dirname "$0")/../.."
out="$(mktemp -d)"
editors/vscode/package-platform.sh linux-x64 target/debug/layoutc "$out/layoutc-linux-x64.vsix"
python3 - "$out/layoutc-linux-x64.vsix" "$out" <<'PY'
import json, os, stat, subprocess, sys, zipfile
vsix, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(vsix) as z:
    names = z.namelist()
    for needed in ["extension/bin/layoutc", "extension/LICENSE.txt", "extension/out/extension.js", "extension/package.json"]:
        assert needed in names or needed.replace("LICENSE.txt", "LICENSE") in names, (needed, names)
    manifest = z.read("extension.vsixmanifest").decode()
    assert 'TargetPlatform="linux-x64"' in manifest, manifest
    binary = z.extract("extension/bin/layoutc", out)
os.chmod(binary, os.stat(binary).st_mode | stat.S_IEXEC)
version = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout
assert version.startswith("layoutc "), version
print(f"{vsix}: {len(names)} files, bundled {version.strip()}")
PY
