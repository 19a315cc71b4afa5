"""The API against the command line it runs, and against independent
computations: `show`/`check`/`solve` are the CLI's JSON, a Layout's owner
table inverts its bases, errors raise with their diagnostics."""

import json
import os
import shutil
import subprocess

import pytest

import layoutc

CONTRACT = """target = sm90
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#dot_a = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
layout acc = tensor<32x16xf32, #mma>
let n = 7
layout t = cute ((4,2),4):((8,4),1)
layout x = xla f32[3,5]{1,0:T(2,2)}
check size(acc) == 512
solve smem64 {
    kind = swizzle
    write = tensor<64x64xf16, #blocked>
    read = tensor<64x64xf16, #dot_a>
    instructions = matrix
}
solve tpu {
    kind = tiling
    array = xla bf16[1000,300]
    target = tpu
}
"""


def cli(command, text, tmp_path, *extra):
    path = tmp_path / "input.lay"
    path.write_text(text)
    exe = shutil.which("layoutc")
    assert exe, "the wheel installs the layoutc command"
    out = subprocess.run([exe, command, str(path), *extra], capture_output=True, text=True)
    return out.returncode, json.loads(out.stdout.replace(str(path), "input.lay"))


def without_times(value):
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items() if k != "solve_ms"}
    if isinstance(value, list):
        return [without_times(v) for v in value]
    return value


@pytest.mark.parametrize("command", ["show", "check", "solve"])
def test_the_api_returns_the_command_lines_json(command, tmp_path):
    code, expected = cli(command, CONTRACT, tmp_path, "--format", "json")
    assert code == 0
    got = getattr(layoutc, command)(CONTRACT)
    assert without_times(got) == without_times(expected)


def test_solve_answers_in_gluon_and_cute_terms():
    solutions = layoutc.solve(CONTRACT.replace("    instructions = matrix\n", "    family = triton\n"))["solutions"]
    smem = next(s for s in solutions if s["name"] == "smem64")
    notations = smem["notations"]
    assert notations["gluon"].startswith("ttgl.SwizzledSharedLayout(vec=")
    assert notations["cute"].startswith("Sw<")
    # The Gluon text is the same layout as the TTGIR one.
    ttgir = layoutc.linear_layout(notations["triton"], [64, 64])
    gluon = layoutc.linear_layout("gluon " + notations["gluon"], [64, 64])
    assert ttgir == gluon == smem["linear"]


def test_a_layout_is_called_on_hardware_indices_and_its_owner_table_inverts_it():
    l = layoutc.layout("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>", [64, 64])
    assert [n for n, _ in l.ins] == ["register", "lane", "warp", "block"]
    assert l(register=1) == {"dim0": 0, "dim1": 1}
    assert l(lane=1) == {"dim0": 0, "dim1": 8}
    table = l.owner_table()
    names = [n for n, _ in l.ins]
    for d0 in range(0, 64, 7):
        for d1 in range(0, 64, 5):
            owner = [int(x) for x in table[d0][d1]]
            assert l(**dict(zip(names, owner))) == {"dim0": d0, "dim1": d1}


def test_bank_conflicts_equal_tritons_measure():
    """Triton's own count (generated.json's bank cases: the wheel's
    get_shared_bank_conflicts), the layouts given as their exact linear
    notations."""
    from conftest import vectors

    cases = vectors("triton/generated.json")["bank_conflicts"]
    assert len(cases) >= 100
    dtypes = {8: "i8", 16: "f16", 32: "f32", 64: "f64"}
    for case in cases:
        reg, shared = case["reg_ll"], case["shared_ll"]
        dist = "#ttg.linear<{" + ", ".join(f"{k} = {reg[k]}" for k in ("register", "lane", "warp", "block")) + "}>"
        smem = f"#ttg.shared_linear<{{offset = {shared['offset']}, block = {shared['block']}}}, alignment = 16>"
        lanes = len(reg["lane"])
        target = f"t {{ warp_size = {1 << lanes}, num_warps = {1 << len(reg['warp'])}, num_ctas = {1 << len(reg['block'])} }}"
        got = layoutc.bank_conflicts(dist, smem, dtypes[case["bitwidth"]], shape=case["shape"], target=target)
        assert got == case["conflicts"], case["name"]


def test_errors_raise_with_their_diagnostics():
    with pytest.raises(layoutc.LayoutcError) as e:
        layoutc.linear_layout("#ttg.blocked<{sizePerThread = [3], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>", [64])
    codes = [d.code for d in e.value.diagnostics]
    assert codes == ["E0301"], e.value.diagnostics
    assert e.value.diagnostics[0].line == 1
    with pytest.raises(layoutc.LayoutcError):
        layoutc.picture("layout a = cute (4,8):(1,4)\n", "nothing_here").svg()
    with pytest.raises(TypeError):
        layoutc.linear_layout(3.5, [4])
    # `show` answers what it can, as the command line does.
    shown = layoutc.show("let a = 1\nlet b = nope\n")
    assert [v["name"] for v in shown["values"]] == ["a", "b"]
    assert shown["diagnostics"][0]["code"] == "E0101"


def test_a_picture_is_html_for_jupyter_and_svg():
    p = layoutc.picture("layout a = cute (4,8):(1,4)\n", "a")
    assert "<svg" in p.svg()
    assert "<html" in p._repr_html_().lower()


def test_the_command_is_installed_and_runs_in_process():
    exe = shutil.which("layoutc")
    out = subprocess.run([exe, "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("layoutc ")
    out = subprocess.run([exe, "explain", "E0101"], capture_output=True, text=True)
    assert "undefined name" in out.stdout.lower()
    assert layoutc.__version__ == os.popen(f"{exe} --version").read().split()[1]
