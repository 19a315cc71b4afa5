#!/usr/bin/env bash
# Shared-memory counters of the gen_kernel_hw.py kernels on a real sm90 GPU (H100/H200), read
# with Nsight Compute, one process per kernel (a kernel that faults cannot spoil the others).
# Usage: [SOURCE=1] measure_kernel_hw.sh HW_DIR OUT_DIR
# OUT_DIR receives gpu.txt (device, driver, ncu, the metrics read), probes.txt (each kernel
# launched alone: ok or its fault) and ncu/KERNEL.csv for each kernel that ran.
# collect_kernel_hw.py turns them into hw_sm90_kernels.json.
set -u
HW=$1
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT/ncu"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; ncu --version | tail -1; } > "$OUT/gpu.txt"
ncu --query-metrics > /tmp/all_metrics.txt 2>&1
metrics=""
for m in l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st \
         l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom \
         l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st \
         smsp__inst_executed_op_shared_ld smsp__inst_executed_op_shared_st smsp__inst_executed_op_shared_atom \
         smsp__inst_executed_op_ldsm smsp__inst_executed_op_stsm \
         l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm l1tex__data_pipe_lsu_wavefronts_mem_shared_op_stsm \
         l1tex__data_pipe_lsu_wavefronts_mem_shared; do
  grep -Eq "^$m[[:space:]]" /tmp/all_metrics.txt && metrics="$metrics,$m.sum"
done
metrics=${metrics#,}
echo "metrics: $metrics" >> "$OUT/gpu.txt"
names=$(python3 -c "import json; [print(k['kernel']) for k in json.load(open('$HW/manifest.json'))['kernels'] if 'cubin' in k]")
: > "$OUT/probes.txt"
# Each alone first, eight at a time: a fault leaves its CUDA context unusable.
echo "$names" | xargs -P 8 -I{} sh -c \
  'timeout 60 python3 "$0/launch_kernel_hw.py" "$1" {} || echo "{} fault: exit $?"' "$HERE" "$HW" \
  >> "$OUT/probes.txt" 2>> "$OUT/ncu.err"
# Then each under Nsight Compute, PARALLEL processes at a time (4 unless set; the profiling
# itself takes turns, the processes' start-up does not).
# With SOURCE=1 the counters are also read per SASS instruction (the SourceCounters section:
# instructions executed and shared wavefronts of each load and store) into sass/KERNEL.csv.
export HW OUT HERE metrics
mkdir -p "$OUT/sass"
profile() {
  name=$1
  entry=$(python3 -c "import json; print(next(k['entry'] for k in json.load(open('$HW/manifest.json'))['kernels'] if k['kernel'] == '$name'))")
  if [ "${SOURCE:-0}" = 1 ]; then
    rep=/tmp/ncu-$name
    timeout 120 ncu --metrics "$metrics" --section SourceCounters --clock-control none \
        --kernel-name-base function --kernel-name "$entry" -f -o "$rep" \
        python3 "$HERE/launch_kernel_hw.py" "$HW" "$name" > /dev/null 2>> "$OUT/ncu.err"
    ncu -i "$rep.ncu-rep" --csv --page raw --print-units base > "$OUT/ncu/$name.csv" 2>> "$OUT/ncu.err"
    ncu -i "$rep.ncu-rep" --csv --page source --print-source sass > "$OUT/sass/$name.csv" 2>> "$OUT/ncu.err"
  else
    timeout 120 ncu --metrics "$metrics" --csv --page raw --print-units base --clock-control none \
        --kernel-name-base function --kernel-name "$entry" \
        python3 "$HERE/launch_kernel_hw.py" "$HW" "$name" > "$OUT/ncu/$name.csv" 2>> "$OUT/ncu.err"
  fi
}
export -f profile
grep " ok$" "$OUT/probes.txt" | cut -d' ' -f1 | xargs -P "${PARALLEL:-4}" -I{} bash -c 'profile {}'
