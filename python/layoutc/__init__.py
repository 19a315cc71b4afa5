"""layoutc for Python: check, show and solve GPU/TPU tensor layouts.

The functions run layoutc's command line in process and return exactly the
objects its JSON holds (CONTRACT §3, §4): ``show``, ``check`` and ``solve`` take
the text of a ``.lay`` file or a Triton dump. ``linear_layout`` reads Gluon layout
objects by their fields (triton itself is not needed) or any notation layoutc
reads. ``picture`` draws a value for Jupyter. Errors in what you ask about raise
``LayoutcError``, which carries layoutc's diagnostics.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _gluon, _native

__version__: str = _native.version()

__all__ = [
    "Diagnostic",
    "Layout",
    "LayoutcError",
    "Picture",
    "bank_conflicts",
    "check",
    "layout",
    "linear_layout",
    "picture",
    "show",
    "solve",
]


@dataclass(frozen=True)
class Diagnostic:
    """One problem layoutc found: a stable code (``E0101``), where, and why."""

    severity: str
    code: str
    message: str
    line: Optional[int]
    column: Optional[int]

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> "Diagnostic":
        span = d.get("span") or {}
        return Diagnostic(d.get("severity", "error"), d.get("code", ""), d.get("message", ""),
                          span.get("line"), span.get("column"))

    def __str__(self) -> str:
        at = f"{self.line}:{self.column}: " if self.line is not None else ""
        return f"{at}{self.severity}[{self.code}]: {self.message}"


class LayoutcError(Exception):
    """What was asked has errors; ``diagnostics`` lists them."""

    def __init__(self, message: str, diagnostics: Iterable[Diagnostic] = ()):
        super().__init__(message)
        self.diagnostics: List[Diagnostic] = list(diagnostics)


def _run(command: str, text: str, path: str, *extra: str) -> Tuple[int, str]:
    """Runs ``layoutc COMMAND FILE EXTRA...`` on ``text`` saved as ``path``'s
    name in a fresh temporary folder; the output names ``path``."""
    name = os.path.basename(path) or "input.lay"
    with tempfile.TemporaryDirectory(prefix="layoutc-") as folder:
        file = os.path.join(folder, name)
        with open(file, "w", encoding="utf-8") as fh:
            fh.write(text)
        code, out = _native.run([command, file, *extra])
    if code == 2:
        raise LayoutcError(out.strip() or f"layoutc {command} failed")
    return code, out.replace(json.dumps(file)[1:-1], json.dumps(path)[1:-1])


def show(text: str, *, path: str = "input.lay") -> Dict[str, Any]:
    """``layoutc show --format json`` of a file with this text: every
    declaration's value (``values``) and the ``diagnostics``."""
    return json.loads(_run("show", text, path, "--format", "json")[1])


def check(text: str, *, path: str = "input.lay") -> Dict[str, Any]:
    """``layoutc check --format json`` of a file with this text."""
    return json.loads(_run("check", text, path, "--format", "json")[1])


def solve(text: str, *, path: str = "input.lay", timeout_ms: Optional[int] = None) -> Dict[str, Any]:
    """``layoutc solve --format json``: each solve block's answer. A swizzle
    answer's ``notations`` hold every exact notation: ``triton`` (TTGIR),
    ``gluon`` (the constructor, ``ttgl.SwizzledSharedLayout(...)``), ``cute``
    (``Sw<3,3,3> o ...``), ..."""
    extra = ["--format", "json"]
    if timeout_ms is not None:
        extra += ["--timeout", str(int(timeout_ms))]
    return json.loads(_run("solve", text, path, *extra)[1])


def _errors(result: Mapping[str, Any]) -> List[Diagnostic]:
    return [Diagnostic.from_json(d) for d in result.get("diagnostics", []) if d.get("severity") == "error"]


LayoutLike = Union[str, Any]

_ELEMENT_TYPES = {8: "i8", 16: "f16", 32: "f32", 64: "f64"}


def _notation(obj: LayoutLike) -> str:
    if isinstance(obj, str):
        return obj
    if _gluon.is_layout(obj):
        return "gluon " + _gluon.text(obj)
    raise TypeError(f"expected a Gluon layout object or a notation string, not {type(obj).__name__}")


def _machine(objs: Sequence[LayoutLike], target: Optional[str]) -> str:
    if target:
        # A preset (`sm90`) or a machine of its own (`t { warp_size = 64 }`).
        return f"target {target}\n" if "{" in target else f"target = {target}\n"
    sizes = {_gluon.warp_size(o) for o in objs if _gluon.is_layout(o)} - {None, 32}
    if sizes:
        return f"target t {{ warp_size = {sizes.pop()} }}\n"
    return ""


def _tensor(obj: LayoutLike, shape: Sequence[int], dtype: Optional[str]) -> str:
    if dtype is None:
        bits = getattr(obj, "element_bitwidth", None) if type(obj).__name__ == "NVMMASharedLayout" else None
        dtype = _ELEMENT_TYPES.get(int(bits), "f16") if bits else "f16"
    dims = "x".join(str(int(d)) for d in shape)
    return f"tensor<{dims}x{dtype}, {_notation(obj)}>"


def _value(text: str, name: str, key: str) -> Any:
    """The ``key`` of declaration ``name``'s value (``linear``, ``int``), or
    LayoutcError with the diagnostics that say why it has none. A padded
    layout's ``linear`` is its linear component (``padded.unpadded``)."""
    result = show(text)
    for value in result["values"]:
        if value["name"] != name:
            continue
        if key in value:
            return value[key]
        if key == "linear" and "padded" in value:
            return value["padded"]["unpadded"]
    errors = _errors(result)
    message = errors[0].message if errors else f"`{name}` has no {key} value"
    raise LayoutcError(message, errors)


def linear_layout(layout: LayoutLike, shape: Optional[Sequence[int]] = None, *, target: Optional[str] = None,
                  dtype: Optional[str] = None) -> Dict[str, Any]:
    """The linear layout (``{"ins": [...], "outs": [...]}``, CONTRACT §3) of a
    Gluon layout object over ``shape``, or of any notation layoutc reads: a
    ``#ttg`` attribute with a shape, ``"cute (4,8):(1,4)"``,
    ``"xla f32[8,128]{1,0:T(8,128)}"``, ``"linear {...} -> [...]"``.

    A padded layout's linear layout is its linear component (the element
    each offset holds before the padding); ``show`` has the padding.

    ``target`` names the machine: a preset (``"sm90"``, ``"gfx942"``) or a
    machine of its own (``"t { warp_size = 64, num_warps = 8 }"``); by
    default a Gluon layout's own warp size is used."""
    if shape is not None:
        declaration = f"layout x = {_tensor(layout, shape, dtype)}\n"
    else:
        declaration = f"layout x = {_notation(layout)}\n"
    return _value(_machine([layout], target) + declaration, "x", "linear")


def layout(layout: LayoutLike, shape: Optional[Sequence[int]] = None, *, target: Optional[str] = None,
           dtype: Optional[str] = None) -> "Layout":
    """``linear_layout`` as a ``Layout`` object."""
    return Layout(linear_layout(layout, shape, target=target, dtype=dtype))


def bank_conflicts(dist: LayoutLike, shared: LayoutLike, dtype: str = "f16", *, shape: Sequence[int],
                   target: Optional[str] = None) -> int:
    """Triton's measure of bank conflicts (extra wavefronts per wavefront)
    when ``dist`` writes a ``shape`` tensor of ``dtype`` into ``shared``."""
    text = _machine([dist, shared], target) + (
        f"let c = bank_conflicts({_tensor(dist, shape, dtype)}, {_tensor(shared, shape, dtype)})\n")
    return int(_value(text, "c", "int"))


class Layout:
    """A linear layout: named in-dims (``register``, ``lane``, ``warp``,
    ``block``, or ``offset``) with bases, onto named out-dims."""

    def __init__(self, linear: Mapping[str, Any]):
        self.linear = dict(linear)
        self.ins: List[Tuple[str, int]] = [(d["name"], int(d["size"])) for d in linear["ins"]]
        self.outs: List[Tuple[str, int]] = [(d["name"], int(d["size"])) for d in linear["outs"]]
        self.bases: Dict[str, List[List[int]]] = {d["name"]: [list(b) for b in d["bases"]] for d in linear["ins"]}

    def __repr__(self) -> str:
        ins = ", ".join(f"{n}: {len(self.bases[n])} bases" for n, _ in self.ins)
        outs = ", ".join(f"{n}: {s}" for n, s in self.outs)
        return f"Layout({ins} -> {outs})"

    def __call__(self, **indices: int) -> Dict[str, int]:
        """The out coordinates of hardware indices (``register=3, lane=5``):
        the XOR of the bases of each index's set bits."""
        unknown = set(indices) - set(self.bases)
        if unknown:
            raise KeyError(f"no in-dim {sorted(unknown)}; the in-dims are {[n for n, _ in self.ins]}")
        out = [0] * len(self.outs)
        for name, index in indices.items():
            for bit, basis in enumerate(self.bases[name]):
                if int(index) >> bit & 1:
                    out = [a ^ b for a, b in zip(out, basis)]
        return {n: v for (n, _), v in zip(self.outs, out)}

    def owner_table(self) -> Any:
        """For each element of the tensor, the hardware index that holds it
        (the smallest, when several do): an array of shape ``outs + (len(ins),)``,
        a numpy array when numpy is installed, else nested lists."""
        sizes = [s for _, s in self.outs]
        total = 1
        for s in sizes:
            total *= s
        table: List[Optional[Tuple[int, ...]]] = [None] * total
        names = [n for n, _ in self.ins]
        counts = [1 << len(self.bases[n]) for n in names]
        index = [0] * len(names)

        def flat(coords: Sequence[int]) -> int:
            at = 0
            for c, s in zip(coords, sizes):
                at = at * s + c
            return at

        while True:
            coords = self(**dict(zip(names, index)))
            at = flat([coords[n] for n, _ in self.outs])
            if table[at] is None:
                table[at] = tuple(index)
            # The next hardware index, the last in-dim fastest.
            i = len(index) - 1
            while i >= 0:
                index[i] += 1
                if index[i] < counts[i]:
                    break
                index[i] = 0
                i -= 1
            if i < 0:
                break
        rows = [list(t) if t is not None else [-1] * len(names) for t in table]
        try:
            import numpy as np
        except ImportError:
            return _nest(rows, sizes)
        return np.array(rows, dtype=np.int64).reshape(*sizes, len(names))


def _nest(rows: List[Any], sizes: Sequence[int]) -> List[Any]:
    if len(sizes) <= 1:
        return rows
    step = len(rows) // sizes[0]
    return [_nest(rows[i * step:(i + 1) * step], sizes[1:]) for i in range(sizes[0])]


class Picture:
    """``layoutc render``'s picture of one value: Jupyter shows its HTML
    (hover a cell for its details); ``svg()`` is the static drawing."""

    def __init__(self, text: str, name: str):
        self.text = text
        self.name = name

    def _render(self, extension: str) -> str:
        with tempfile.TemporaryDirectory(prefix="layoutc-") as folder:
            source = os.path.join(folder, "input.lay")
            with open(source, "w", encoding="utf-8") as fh:
                fh.write(self.text)
            out = os.path.join(folder, f"picture.{extension}")
            code, message = _native.run(["render", source, self.name, "-o", out])
            if code != 0 or not os.path.exists(out):
                raise LayoutcError(message.strip() or f"cannot draw `{self.name}`")
            with open(out, encoding="utf-8") as fh:
                return fh.read()

    def html(self) -> str:
        return self._render("html")

    def svg(self) -> str:
        return self._render("svg")

    def _repr_html_(self) -> str:
        return self.html()

    def _repr_svg_(self) -> str:
        return self.svg()


def picture(text: str, name: str) -> Picture:
    """The picture of declaration ``name`` of ``text`` (a ``.lay`` file or a
    dump): a layout's owners, a shared layout's offsets and banks, an
    access's bank heatmap."""
    return Picture(text, name)
