#!/usr/bin/env bash
# Builds the gen_cute_hw.py kernels for sm90a and reads their shared-memory
# counters on a real sm90 GPU (H100/H200) with Nsight Compute.
# Usage: measure_cute_hw.sh SRC_DIR CUTLASS_INCLUDE OUT_DIR
# OUT_DIR receives gpu.txt (device, driver, nvcc, ncu, metrics), build.log,
# runs.txt (each case launched alone: ok or its CUDA error), ncu.csv (one row
# per profiled launch), sass.txt (the shared-memory SASS opcodes of each
# kernel) and ncu.err. collect_cute_hw.py turns them into hw_sm90_copies.json.
set -u
SRC=$1
INC=$2
OUT=$3
BIN=$(mktemp -d)
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -1; ncu --version | tail -1; } > "$OUT/gpu.txt"
ncu --query-metrics > "$BIN/metrics.txt" 2>&1
metrics=""
for m in l1tex__data_pipe_lsu_wavefronts_mem_shared l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read \
         l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld \
         l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st l1tex__data_bank_conflicts_pipe_lsu_mem_shared \
         l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st \
         l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts smsp__inst_executed_op_shared_ld \
         smsp__inst_executed_op_shared_st smsp__inst_executed_op_ldsm smsp__inst_executed_op_shared_stsm \
         smsp__inst_executed_op_ldgsts smsp__sass_inst_executed_op_ldgsts; do
  grep -Eq "^$m[[:space:]]" "$BIN/metrics.txt" && metrics="$metrics,$m.sum"
done
metrics=${metrics#,}
echo "metrics: $metrics" >> "$OUT/gpu.txt"
units=$(ls "$SRC"/copies_*.cu)
for cu in $units; do
  k=$(basename "$cu" .cu)
  nvcc -std=c++17 -O2 -arch=sm_90a --expt-relaxed-constexpr -w -I "$INC" -o "$BIN/$k" "$cu" > "$BIN/$k.log" 2>&1 &
done
wait
: > "$OUT/build.log"; : > "$OUT/runs.txt"; : > "$OUT/ncu.csv"; : > "$OUT/ncu.err"; : > "$OUT/sass.txt"
for cu in $units; do
  k=$(basename "$cu" .cu)
  { echo "== $k"; cat "$BIN/$k.log"; } >> "$OUT/build.log"
  [ -x "$BIN/$k" ] || continue
  names=$(python3 -c "import json,sys; print(' '.join(c['name'] for c in json.load(open('$SRC/manifest.json'))['cases'] if c['unit'] == '$k'))")
  # Each case alone first: a fault ends the process, so the rest still run.
  for n in $names; do "$BIN/$k" "$n" >> "$OUT/runs.txt" 2>&1 || echo "$n failed" >> "$OUT/runs.txt"; done
  ok=$(grep -E '^case_[0-9]+ [0-9]+ [0-9]+ ok$' "$OUT/runs.txt" | cut -d' ' -f1 | grep -xF -f <(tr ' ' '\n' <<< "$names") | paste -sd' ' -)
  ncu --metrics "$metrics" --csv --page raw --print-units base --clock-control none \
      --kernel-name-base function --kernel-name regex:'^case_' "$BIN/$k" $ok >> "$OUT/ncu.csv" 2>> "$OUT/ncu.err"
  cuobjdump -sass "$BIN/$k" | awk '/Function :/ {f=$3} /(LDS|STS|LDSM|STSM|LDGSTS)[. ]/ {match($0, /(LDS|STS|LDSM|STSM|LDGSTS)[A-Z0-9._]*/); print f, substr($0, RSTART, RLENGTH)}' >> "$OUT/sass.txt"
done
rm -rf "$BIN"
