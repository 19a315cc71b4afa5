#!/usr/bin/env python3
"""Join measure_broadcast.sh's launches with their Nsight Compute rows.

Command (from the repository root)::

    python3 tests/vectors/nvidia/collect_broadcast.py MEASURED_DIR

writes ``tests/vectors/nvidia/broadcast_wavefronts.json``: per launch the direction, access
width in bits, pattern name, the five byte offsets lane bits 0..4 move the address by, and the
wavefronts and instructions Nsight Compute counted, divided by the kernel's 16 repetitions.
"""

import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPS = 16


def main():
    measured = sys.argv[1]
    launches = [line.split() for line in open(os.path.join(measured, "launches.txt")).read().splitlines()]
    rows, header = [], None
    with open(os.path.join(measured, "ncu.csv"), newline="") as fh:
        for row in csv.reader(fh):
            if row and row[0] == "ID":
                header = row
            elif header and row and row[0].isdigit():
                rows.append(dict(zip(header, row)))
    if len(rows) != len(launches):
        sys.exit(f"{len(rows)} profiled launches for {len(launches)} launches")
    cases = []
    for l, row in zip(launches, rows):
        direction, bits, name = l[0], int(l[1]), l[2]
        offsets = [int(x) for x in l[3:8]]
        if l[8] != "cudaSuccess":
            sys.exit(f"{l}: {l[8]}")
        op = "ld" if direction == "load" else "st"
        get = lambda m: int(float(row[m].replace(",", "")))
        wavefronts = get(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum")
        instructions = get(f"smsp__inst_executed_op_shared_{op}.sum")
        if instructions == 0 or wavefronts % instructions:
            sys.exit(f"{l}: {instructions} instructions, {wavefronts} wavefronts")
        cases.append({"direction": direction, "bits": bits, "pattern": name, "lane_offsets": offsets,
                      "wavefronts": wavefronts // instructions})
    gpu = open(os.path.join(measured, "gpu.txt")).read().splitlines()
    doc = {"command": "tests/vectors/nvidia/measure_broadcast.sh (see broadcast_wavefronts.cu)",
           "gpu": gpu[0], "nvcc": gpu[1], "ncu": gpu[2], "cases": cases}
    with open(os.path.join(HERE, "broadcast_wavefronts.json"), "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    print(f"{len(cases)} cases")


if __name__ == "__main__":
    main()
