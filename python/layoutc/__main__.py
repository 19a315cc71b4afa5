"""`layoutc ...` and `python -m layoutc ...`: the command line, in process."""

import sys

from . import _native


def main() -> None:
    sys.exit(_native.main(["layoutc", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
