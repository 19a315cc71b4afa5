#!/usr/bin/env bash
# Shared-memory counters of the gen_corpus_hw.py kernels on a real sm90 GPU (H100/H200), read with
# Nsight Compute: every kernel launched once, fifty kernels to a process.
# Usage: measure_corpus_hw.sh HW_DIR OUT_DIR
# OUT_DIR receives gpu.txt (device, driver, ncu, the metrics read), probes.txt (each kernel
# launched without the profiler: ok or its fault) and, for each batch of 50 kernels that ran,
# batch.NN.txt (its kernels, in launch order) and raw.NN.csv (one row of counters per launch, in
# that order; one profiler process per batch, so that a batch cut short spoils no other).
# collect_kernel_hw.py --corpora turns them into hw_sm90_corpora.json.
set -u
shopt -s nullglob
HW=$1
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
rm -f "$OUT"/batch.*.txt "$OUT"/raw.*.csv "$OUT"/profiled.*.txt
command -v ncu >/dev/null || export PATH=$PATH:$(ls -d /opt/nvidia/nsight-compute/* 2>/dev/null | tail -1)
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; ncu --version | tail -1; } > "$OUT/gpu.txt"
ncu --query-metrics > /tmp/all_metrics.txt 2>&1
metrics=""
for m in l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st \
         l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm l1tex__data_pipe_lsu_wavefronts_mem_shared_op_stsm \
         smsp__inst_executed_op_shared_ld smsp__inst_executed_op_shared_st \
         smsp__inst_executed_op_ldsm smsp__inst_executed_op_stsm l1tex__data_pipe_lsu_wavefronts_mem_shared; do
  grep -Eq "^$m[[:space:]]" /tmp/all_metrics.txt && metrics="$metrics,$m.sum"
done
metrics=${metrics#,}
grep -E "wavefronts_mem_shared|inst_executed_op_(shared|ldsm|stsm|ldgsts)" /tmp/all_metrics.txt > "$OUT/shared_metrics.txt"
echo "metrics: $metrics" >> "$OUT/gpu.txt"
python3 -c "import json, sys; [print(k['kernel']) for k in json.load(open(sys.argv[1]))['kernels']]" \
  "$HW/manifest.json" > "$OUT/all.txt"
total=$(wc -l < "$OUT/all.txt")
# Without the profiler first: a fault ends its process, the next one starts after that kernel.
: > "$OUT/probes.txt"
while [ "$(wc -l < "$OUT/probes.txt")" -lt "$total" ]; do
  done_before=$(wc -l < "$OUT/probes.txt")
  timeout 300 python3 "$HERE/launch_kernel_hw.py" "$HW" --batch "$OUT/all.txt" "$done_before" "$OUT/probes.txt" \
    2>> "$OUT/launch.err"
  if [ "$(wc -l < "$OUT/probes.txt")" -eq "$done_before" ]; then
    sed -n "$((done_before + 1))p" "$OUT/all.txt" | sed 's/$/ fault: no verdict/' >> "$OUT/probes.txt"
  fi
done
grep " ok$" "$OUT/probes.txt" | cut -d' ' -f1 | split -d -l 50 --additional-suffix=.txt - "$OUT/batch."
# The kernels' entry names (cupy's own fills are no kernels of theirs).
entries=$(python3 -c "import json, sys; print('|'.join(sorted({k['entry'] for k in json.load(open(sys.argv[1]))['kernels']})))" \
  "$HW/manifest.json")
for batch in "$OUT"/batch.*.txt; do
  n=$(basename "$batch" .txt); n=${n#batch.}
  ncu --metrics "$metrics" --csv --page raw --print-units base --clock-control none \
      --kernel-name-base function --kernel-name "regex:^($entries)\$" \
      python3 "$HERE/launch_kernel_hw.py" "$HW" --batch "$batch" 0 "$OUT/profiled.$n.txt" \
      > "$OUT/raw.$n.csv" 2>> "$OUT/ncu.err"
done
