#!/usr/bin/env bash
# `layoutc check --format sarif` under Microsoft's SARIF validator
# (@microsoft/sarif-multitool, the rules GitHub code scanning applies):
# the examples, the TTGIR corpus (which has warnings), an absolute path
# (file:// URIs) and a file with errors. Any error or warning the validator
# reports fails the run.
set -euo pipefail
cd "$(dirname "$0")/../.."

cargo build -q -p layoutc
layoutc="$PWD/target/debug/layoutc"
(cd tests/ci && npm ci --no-audit --no-fund --silent)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf 'layout a = xla f32[3,5]{1,0:T(2,2)}\ncheck 1 + 1 == 3\nlayout b = nope(1)\n' > "$work/errors.lay"

# name, expected exit code, paths...
check() {
  local name=$1 code=$2
  shift 2
  local status=0
  "$layoutc" check --format sarif "$@" > "$work/$name.sarif" || status=$?
  if [ "$status" -ne "$code" ]; then
    echo "validate-sarif: layoutc check $* exited $status, expected $code" >&2
    exit 1
  fi
}
check examples 0 examples/
check ttgir 0 tests/corpus/ttgir/*.ttgir
check absolute 0 "$PWD/tests/corpus/ttgir/transpose_sm80.ttgir"
check errors 1 "$work/errors.lay"

for name in examples ttgir absolute errors; do
  (cd tests/ci && npx --no-install sarif-multitool validate "$work/$name.sarif" \
      --output "$work/$name.validation.sarif" > "$work/$name.log" 2>&1) || {
    cat "$work/$name.log" >&2
    echo "validate-sarif: the validator failed on $name.sarif" >&2
    exit 1
  }
  node - "$work/$name.sarif" "$work/$name.validation.sarif" "$name" <<'JS'
const fs = require('fs');
const [input, log, name] = process.argv.slice(2);
const results = JSON.parse(fs.readFileSync(input, 'utf8')).runs[0].results;
const found = JSON.parse(fs.readFileSync(log, 'utf8')).runs
  .flatMap(r => r.results || [])
  // A result without a level is a warning (SARIF 3.27.10).
  .filter(r => (r.level || 'warning') === 'error' || (r.level || 'warning') === 'warning');
for (const r of found) {
  console.error(`${name}.sarif: ${r.ruleId} ${r.level || 'warning'}: ${JSON.stringify(r.message)}`);
}
if (found.length) process.exit(1);
if (name !== 'examples' && results.length === 0) {
  console.error(`${name}.sarif has no results: nothing was validated`);
  process.exit(1);
}
console.log(`validate-sarif: ${name}.sarif (${results.length} results) is valid`);
JS
done
