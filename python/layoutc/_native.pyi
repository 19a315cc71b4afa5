"""The native module: layoutc's command line, in process."""

from typing import List, Tuple

def run(args: List[str]) -> Tuple[int, str]:
    """Runs ``layoutc ARGS...``; the exit status and what it wrote to stdout."""

def main(argv: List[str]) -> int:
    """Runs the command line with ``argv`` (the program's name first)."""

def version() -> str:
    """The version of the Rust crates in this build."""
