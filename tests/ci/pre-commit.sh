#!/usr/bin/env bash
# The pre-commit hooks of .pre-commit-hooks.yaml, run by the `pre-commit`
# package from PyPI (`pre-commit try-repo`) on a scratch git repository:
# clean files pass, a failing `check` and an unformatted file fail.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

cargo build -q -p layoutc
venv="$root/target/pre-commit-venv"
if [ ! -x "$venv/bin/pre-commit" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q pre-commit
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PATH="$root/target/debug:$PATH" PRE_COMMIT_HOME="$work/cache"

repo="$work/repo"
mkdir "$repo"
cd "$repo"
git init -q
git config user.email ci@example.com
git config user.name ci
printf 'layout x = xla f32[3,5]{1,0:T(2,2)}\ncheck padded_elements(x) == 24\n' > good.lay
git add good.lay

# name, expected outcome (pass|fail), hook
try() {
  local name=$1 want=$2 hook=$3 status=0
  "$venv/bin/pre-commit" try-repo "$root" "$hook" --all-files > "$work/$name.log" 2>&1 || status=$?
  if { [ "$want" = pass ] && [ "$status" -ne 0 ]; } || { [ "$want" = fail ] && [ "$status" -eq 0 ]; }; then
    cat "$work/$name.log" >&2
    echo "pre-commit: $name: expected the hook $hook to $want" >&2
    exit 1
  fi
  echo "pre-commit: $name: $hook: $want, as expected"
}
try clean-check pass layoutc-check
try clean-fmt pass layoutc-fmt

printf 'check 1 + 1 == 3\n' > bad.lay
git add bad.lay
try failing-check fail layoutc-check
grep -q "bad.lay" "$work/failing-check.log" || { cat "$work/failing-check.log"; echo "pre-commit: the failure does not name bad.lay" >&2; exit 1; }
git rm -q --cached bad.lay && rm bad.lay

printf 'layout   y =   xla f32[8]\n' > messy.lay
git add messy.lay
try unformatted fail layoutc-fmt
