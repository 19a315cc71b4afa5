#!/usr/bin/env bash
# Shared-memory wavefronts of the gen_hw_kernels.py kernels on a real sm90 GPU (H100/H200),
# read with Nsight Compute. Usage: measure_hw_sm90.sh HW_DIR OUT_DIR [CHUNK [KERNELS]]
# KERNELS is Nsight Compute's --kernel-name filter (default: gen_hw_kernels.py's kernels).
# PROBE_PADDED=0 skips launching the padded kernels alone first (for answers whose every lane
# the PTX interpreter found aligned: gen_hw_ptx_answers.py).
# OUT_DIR receives gpu.txt (device, driver, ncu), shared_metrics.txt (the shared-memory
# counters this ncu knows), ncu.csv (one row per launch, chunks appended), launched.txt
# (the launches in order), probes.txt (each padded kernel launched alone: ok, or the fault it
# raises; those that fault are not profiled), sanitizer.txt (compute-sanitizer on the first three
# faults) and ncu.err. collect_hw.py turns them into
# hw_sm90_wavefronts.json.
set -u
HW=$1
OUT=$2
CHUNK=${3:-100}
KERNELS=${4:-regex:^(cvt|rt)[123]d}
HERE=$(cd "$(dirname "$0")" && pwd)
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; ncu --version | tail -1; } > "$OUT/gpu.txt"
ncu --query-metrics > /tmp/all_metrics.txt 2>&1
grep -E "shared|ldsm|stsm" /tmp/all_metrics.txt > "$OUT/shared_metrics.txt"
metrics=""
# METRICS (space-separated) narrows the counters read: fewer replays per kernel.
for m in ${METRICS:-l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st \
         l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st \
         smsp__inst_executed_op_shared_ld smsp__inst_executed_op_shared_st \
         smsp__inst_executed_op_ldsm smsp__inst_executed_op_stsm \
         l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm l1tex__data_pipe_lsu_wavefronts_mem_shared_op_stsm \
         l1tex__data_pipe_lsu_wavefronts_mem_shared smsp__sass_inst_executed_op_shared_ld \
         smsp__sass_inst_executed_op_shared_st smsp__sass_inst_executed_op_ldsm}; do
  grep -Eq "^$m[[:space:]]" /tmp/all_metrics.txt && metrics="$metrics,$m.sum"
done
metrics=${metrics#,}
echo "metrics: $metrics" >> "$OUT/gpu.txt"
# Padded layouts can fault (a misaligned vector): launch each alone first, 8 at a time.
: > "$OUT/probes.txt"
[ "${PROBE_PADDED:-1}" = 0 ] || python3 -c "import json; [print(f\"{k['pair']}.{k['kind']}\") for k in json.load(open('$HW/manifest.json'))['kernels'] if k['kind'] == 'padded' and 'cubin' in k]" \
  | xargs -P 8 -I{} python3 "$HERE/measure_hw.py" --probe "$HW" {} > "$OUT/probes.txt" 2>> "$OUT/ncu.err"
grep " fault:" "$OUT/probes.txt" | cut -d' ' -f1 > /tmp/skip.txt
# What the first faults are, instruction by instruction.
for name in $(head -3 /tmp/skip.txt); do
  compute-sanitizer --print-limit 4 python3 "$HERE/measure_hw.py" --probe "$HW" "$name" >> "$OUT/sanitizer.txt" 2>&1
done
total=$(python3 -c "import json,sys; print(len(json.load(open('$HW/manifest.json'))['kernels']))")
: > "$OUT/launched.txt"
: > "$OUT/ncu.csv"
for ((first = 0; first < total; first += CHUNK)); do
  ncu --metrics "$metrics" --csv --page raw --print-units base --clock-control none \
      --kernel-name-base function --kernel-name "$KERNELS" \
      python3 "$HERE/measure_hw.py" "$HW" "$OUT/launched.txt" $first $((first + CHUNK)) /tmp/skip.txt \
      >> "$OUT/ncu.csv" 2>> "$OUT/ncu.err"
  echo "chunk $first done at $(date +%s)" >> "$OUT/ncu.err"
done
