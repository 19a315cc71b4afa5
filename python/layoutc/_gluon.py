"""Gluon layout objects read by their fields, without importing triton.

Each class of ``triton.experimental.gluon.language`` (and ``.amd``) is written
back as the constructor call layoutc reads (``gluon BlockedLayout(...)``), the
fields in the dataclass's order. Anything with the class's name and fields
works: a Gluon object, a dataclass of your own, a ``SimpleNamespace``.
"""

from typing import Any, Dict, List, Optional

# The fields of each class, in the dataclass's order (Triton 3.9).
FIELDS: Dict[str, List[str]] = {
    "BlockedLayout": ["size_per_thread", "threads_per_warp", "warps_per_cta", "order", "cga_layout"],
    "SliceLayout": ["dim", "parent"],
    "DistributedLinearLayout": ["reg_bases", "lane_bases", "warp_bases", "block_bases", "shape"],
    "DotOperandLayout": ["operand_index", "parent", "k_width"],
    "NVMMADistributedLayout": ["version", "warps_per_cta", "instr_shape", "cga_layout"],
    "AMDMFMALayout": [
        "version", "instr_shape", "transposed", "warps_per_cta", "element_bitwidth", "tiles_per_warp", "cga_layout",
    ],
    "AMDWMMALayout": ["version", "transposed", "warp_bases", "reg_bases", "instr_shape", "cga_layout", "rank"],
    "SwizzledSharedLayout": ["vec", "per_phase", "max_phase", "order", "cga_layout"],
    "NVMMASharedLayout": ["swizzle_byte_width", "element_bitwidth", "rank", "transposed", "fp4_padded", "cga_layout"],
    "SharedLinearLayout": ["offset_bases", "block_bases", "alignment"],
    "PaddedSharedLayout": ["interval_padding_pairs", "offset_bases", "cga_layout", "shape"],
}

SHARED = {"SwizzledSharedLayout", "NVMMASharedLayout", "SharedLinearLayout", "PaddedSharedLayout"}


def is_layout(obj: Any) -> bool:
    return type(obj).__name__ in FIELDS


def _value(v: Any) -> str:
    if is_layout(v):
        return text(v)
    if v is None or isinstance(v, bool):
        return repr(v)
    if isinstance(v, int):
        return str(int(v))
    # constexpr wrappers hold their value in `.value`.
    if hasattr(v, "value") and not isinstance(v, (list, tuple)):
        return _value(v.value)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"a Gluon layout field cannot be {type(v).__name__}: {v!r}")


def text(obj: Any) -> str:
    """The constructor call for a Gluon layout object."""
    name = type(obj).__name__
    fields = FIELDS.get(name)
    if fields is None:
        raise TypeError(f"{name} is not a Gluon layout class layoutc reads ({', '.join(FIELDS)})")
    args = [f"{f}={_value(getattr(obj, f))}" for f in fields if hasattr(obj, f)]
    return f"{name}({', '.join(args)})"


def warp_size(obj: Any) -> Optional[int]:
    """The lanes of a warp the layout is written for, where it says."""
    name = type(obj).__name__
    if name == "BlockedLayout":
        n = 1
        for t in obj.threads_per_warp:
            n *= int(t)
        return n
    if name == "DistributedLinearLayout":
        return 1 << len(obj.lane_bases)
    if name == "AMDMFMALayout":
        return 64
    if name in ("SliceLayout", "DotOperandLayout"):
        return warp_size(obj.parent)
    return None
