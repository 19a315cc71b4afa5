#!/usr/bin/env bash
# Regenerates the CuTe print corpus in this directory:
#   print.tsv        what, printed, size, cosize, table   (cute::print)
#   print.txt        what, printed                        (first two columns)
#   print_multiline.txt  print_layout / print(MMA_Atom) / print(TiledMMA) blocks
#   print_ostream.diff   rows where operator<< differs from cute::print
# Host-only: g++ -std=c++17, no nvcc, no GPU.
#
# Headers it needs (found automatically, or set the variables):
#   CUTE_INCLUDE  the CUTLASS include/ dir holding cute/ and cutlass/
#                 default: the one shipped in PyPI nvidia-cutlass
#                 (cutlass_library/source/include)
#   CCCL_INCLUDE  libcu++ headers (cuda/std/...), needed by cutlass/cutlass.h
#                 default: PyPI nvidia-cuda-cccl-cu12 (nvidia/cuda_cccl/include),
#                 or $CUDA_HOME/include
#   CUDART_INCLUDE  cuda_runtime_api.h / vector_types.h (included by
#                 cute/util/debug.hpp and cutlass/platform/platform.h);
#                 default: $CUDA_HOME/include, else the copy shipped in PyPI
#                 triton (triton/backends/nvidia/include)
# One-time setup that was used:
#   pip install nvidia-cutlass==4.2.0.0
#   pip install --no-deps --target /tmp/cccl nvidia-cuda-cccl-cu12==12.9.27
#   (triton was already installed; any CUDA toolkit include dir works too)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
py=${PYTHON:-python3}

site_dir() { "$py" -c "import $1,os;print(os.path.dirname($1.__file__))" 2>/dev/null || true; }

if [[ -z "${CUTE_INCLUDE:-}" ]]; then
  d="$(site_dir cutlass_library)"
  CUTE_INCLUDE="$d/source/include"
fi
if [[ -z "${CCCL_INCLUDE:-}" ]]; then
  for c in /tmp/cccl/nvidia/cuda_cccl/include \
           "$("$py" -c 'import nvidia,os;print(os.path.join(list(nvidia.__path__)[0],"cuda_cccl","include"))' 2>/dev/null || true)" \
           "${CUDA_HOME:-/usr/local/cuda}/include"; do
    if [[ -n "$c" && -f "$c/cuda/std/utility" ]]; then CCCL_INCLUDE="$c"; break; fi
  done
fi
if [[ -z "${CUDART_INCLUDE:-}" ]]; then
  for c in "${CUDA_HOME:-/usr/local/cuda}/include" "$(site_dir triton)/backends/nvidia/include"; do
    if [[ -f "$c/cuda_runtime_api.h" ]]; then CUDART_INCLUDE="$c"; break; fi
  done
fi
for v in CUTE_INCLUDE CCCL_INCLUDE CUDART_INCLUDE; do
  if [[ -z "${!v:-}" ]]; then echo "error: $v not found; see the header of $0" >&2; exit 1; fi
done
test -f "$CUTE_INCLUDE/cute/layout.hpp" || { echo "error: no cute/ under $CUTE_INCLUDE" >&2; exit 1; }

build="${TMPDIR:-/tmp}/gen_cute_print.$$"
mkdir -p "$build"
trap 'rm -rf "$build"' EXIT
# -isystem for the CUDA runtime/CCCL dirs keeps their warnings quiet; CuTe
# compiles host-only with g++ (CUTE_HOST_DEVICE expands to nothing without nvcc).
g++ -std=c++17 -O1 -w -I"$CUTE_INCLUDE" -isystem "$CCCL_INCLUDE" -isystem "$CUDART_INCLUDE" \
    "$here/gen_cute_print.cpp" -o "$build/gen"

"$build/gen" print > "$build/print.tsv"
"$build/gen" ostream > "$build/ostream.tsv"
# Rows where operator<< prints differently from cute::print (known: a
# ComposedLayout whose offset is smem_ptr_flag prints "smem_ptr[16b](unset)"
# with print() but "_0" with operator<<) are kept in print_ostream.diff.
diff "$build/print.tsv" "$build/ostream.tsv" > "$build/print_ostream.diff" || true
"$build/gen" multiline > "$build/print_multiline.txt"

cp "$build/print.tsv" "$here/print.tsv"
cut -f1,2 "$build/print.tsv" > "$here/print.txt"
cp "$build/print_multiline.txt" "$here/print_multiline.txt"
cp "$build/print_ostream.diff" "$here/print_ostream.diff"
echo "wrote $(($(wc -l < "$here/print.tsv") - 1)) rows to $here/print.tsv"
