"""Shared helpers: the repository's vectors, and Gluon-like objects built
without triton (a class of each Gluon name, fields in the dataclass's order)."""

import json
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VECTORS = os.path.join(ROOT, "tests", "vectors")


def vectors(rel):
    with open(os.path.join(VECTORS, rel)) as fh:
        return json.load(fh)


def fake_gluon_namespace():
    """Classes named as Gluon's, that take its fields positionally or by
    name and hold them as attributes: what `eval(repr(obj))` needs."""
    from layoutc import _gluon

    def make(name, fields):
        def __init__(self, *args, **kwargs):
            for field, value in zip(fields, args):
                setattr(self, field, value)
            for field, value in kwargs.items():
                assert field in fields, (name, field)
                setattr(self, field, value)

        return type(name, (), {"__init__": __init__})

    ns = {name: make(name, fields) for name, fields in _gluon.FIELDS.items()}

    class Module:
        pass

    ttgl = Module()
    ttgl.amd = Module()
    for name, cls in ns.items():
        setattr(ttgl, name, cls)
        setattr(ttgl.amd, name, cls)
    ns["ttgl"] = ttgl
    return ns


def without_zero_registers(bases):
    """Triton keeps zero register bases for MMA-like layouts and drops them
    for blocked ones; layoutc drops them."""
    return {dim: [b for b in v if dim != "register" or any(b)] for dim, v in bases.items()}


def linear_bases(linear):
    return {d["name"]: [list(b) for b in d["bases"]] for d in linear["ins"]}


@pytest.fixture(scope="session")
def gluon_ns():
    return fake_gluon_namespace()
