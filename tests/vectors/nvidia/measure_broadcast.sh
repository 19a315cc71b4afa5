#!/usr/bin/env bash
# Builds broadcast_wavefronts.cu for sm90a and reads each launch's shared-memory
# counters with Nsight Compute. Usage: measure_broadcast.sh OUT_DIR
# OUT_DIR receives gpu.txt, launches.txt (the program's own lines: direction,
# bits, pattern, the five lane offsets, CUDA status; in launch order) and
# ncu.csv (one row per launch, same order). collect_broadcast.py writes the JSON.
set -eu
OUT=$1
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$(mktemp -d)
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -1; ncu --version | tail -1; } > "$OUT/gpu.txt"
nvcc -O3 -arch=sm_90a -o "$BIN/bw" "$HERE/broadcast_wavefronts.cu"
"$BIN/bw" > "$OUT/launches.txt"
ncu --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum \
    --csv --page raw --print-units base --clock-control none "$BIN/bw" > "$OUT/ncu.csv" 2> "$OUT/ncu.err"
cuobjdump -sass "$BIN/bw" | grep -E "LDS|STS" | sed 's/^ *//' | sort | uniq -c > "$OUT/sass.txt" || true
