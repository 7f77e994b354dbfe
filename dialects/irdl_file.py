"""Write ``tad.irdl.mlir`` from the op records: ``python -m tensorad.dialects.irdl_file``.

The records (``tensorad.dialects.families``) are the single source of the
dialect; the file exists for ``mlir-opt --irdl-file`` and for readers, and a
test checks that it matches the records.

Examples
--------
>>> from tensorad.dialects import IRDL_PATH
>>> IRDL_PATH.read_text() == generated_text()
True
"""

from __future__ import annotations

from . import IRDL_PATH, families  # noqa: F401  (registers the records)
from .record import irdl_text


def generated_text() -> str:
    """The text ``tad.irdl.mlir`` must hold."""
    return irdl_text()


def main() -> int:
    """Rewrite ``tad.irdl.mlir`` beside this module; print whether it changed."""
    text = generated_text()
    changed = IRDL_PATH.read_text() != text
    IRDL_PATH.write_text(text)
    print(f"{IRDL_PATH}: {'rewritten' if changed else 'up to date'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
