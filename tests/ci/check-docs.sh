#!/usr/bin/env bash
# The CI snippets of docs/ci.md (see check_docs.py), with PyYAML from the
# virtual environment tests/ci/pre-commit.sh makes (pre-commit depends on it).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
cargo build -q -p layoutc
venv="$root/target/pre-commit-venv"
if [ ! -x "$venv/bin/pre-commit" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q pre-commit
fi
"$venv/bin/python" tests/ci/check_docs.py "$root" "$root/target/debug"
