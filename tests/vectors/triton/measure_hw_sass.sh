#!/usr/bin/env bash
# Per-SASS-instruction shared-memory counters of chosen gen_hw_kernels.py / gen_hw_ptx_answers.py
# kernels on a real sm90 GPU, each measured RUNS times (default 2) to tell what repeats from what
# varies. Usage: measure_hw_sass.sh HW_DIR NAMES_FILE OUT_DIR [RUNS]
# NAMES_FILE lists kernels as PAIR.KIND, one per line. OUT_DIR receives, per kernel and run,
# raw/NAME.RUN.csv (the kernel-wide counters) and sass/NAME.RUN.csv (Nsight Compute's source
# page: per SASS instruction, warp-instructions executed and L1 shared wavefronts, with and
# without conflicts). collect_hw.py HW_DIR MEASURED OUT_NAME OUT_DIR joins them.
set -u
HW=$1
NAMES=$2
OUT=$3
RUNS=${4:-2}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT/sass" "$OUT/raw"
METRICS=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,smsp__inst_executed_op_ldsm.sum
export HW OUT HERE METRICS
one() {
  name=$1; run=$2; rep=/tmp/ncu-sass-$name-$run
  timeout 60 ncu --metrics "$METRICS" --section SourceCounters --clock-control none \
      --kernel-name-base function --kernel-name 'regex:^(cvt|rt|wr)' -f -o "$rep" \
      python3 "$HERE/measure_hw.py" --probe "$HW" "$name" > /dev/null 2>> "$OUT/ncu.err"
  ncu -i "$rep.ncu-rep" --csv --page raw --print-units base > "$OUT/raw/$name.$run.csv" 2>> "$OUT/ncu.err"
  ncu -i "$rep.ncu-rep" --csv --page source --print-source sass > "$OUT/sass/$name.$run.csv" 2>> "$OUT/ncu.err"
}
export -f one
for ((run = 1; run <= RUNS; run++)); do sed "s/$/ $run/" "$NAMES"; done > /tmp/sass-jobs.txt
# Six processes at a time: Nsight Compute profiles one kernel at a time, the rest is start-up.
xargs -P 6 -n 2 bash -c 'one "$0" "$1"' < /tmp/sass-jobs.txt
