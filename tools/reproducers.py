"""Crash reproducers as ``mlir-opt`` writes and reads them, for ``autodiff-opt``'s reproducer flags.

A reproducer is the module a pipeline was given, followed by
``{-# external_resources: { mlir_reproducer: { pipeline: "...", disable_threading: ..., verify_each: ... } } #-}``.
:func:`tensorad.passes.isolation.write_reproducer` writes one where
tensorad keeps them; ``--mlir-pass-pipeline-crash-reproducer=FILE`` needs one at
a path of the user's, and ``--run-reproducer`` honours its recorded options.

Examples
--------
>>> import tempfile
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> path = os.path.join(tempfile.mkdtemp(), "repro.mlir")
>>> write_reproducer_file(path, ir.Module.parse("func.func @f() { return }", make_context()), "cse",
...                       verify_each=False)
>>> text = open(path).read()
>>> 'pipeline: "builtin.module(cse)"' in text, reproducer_flag(text, "verify_each")
(True, False)
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Optional

from mlir import ir

from tensorad.passes.isolation import write_reproducer

_RESOURCE = "{-#"


def reproducer_flag(text: str, key: str) -> Optional[bool]:
    """The boolean ``key`` (``verify_each``, ``disable_threading``) of a reproducer's resource, or None.

    Examples
    --------
    >>> reproducer_flag('{-# external_resources: { mlir_reproducer: { verify_each: false } } #-}', "verify_each")
    False
    """
    resource = text[text.rfind(_RESOURCE):] if _RESOURCE in text else ""
    found = re.search(r"mlir_reproducer\s*:\s*\{[^}]*?\b" + re.escape(key) + r"\s*:\s*(true|false)\b", resource)
    return None if found is None else found[1] == "true"


def write_reproducer_file(path: str, module: ir.Module, pipeline: str, verify_each: bool = True) -> None:
    """Write ``module`` and ``pipeline`` as a reproducer to ``path``, recording ``verify_each``.

    Raises
    ------
    OSError
        When ``path`` cannot be written.
    """
    folder = os.path.dirname(os.path.abspath(path))
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        written = write_reproducer(module, pipeline, scratch)
        if written is None:
            raise OSError(f"cannot write a reproducer in '{folder}'")
        text = Path(written).read_text(encoding="utf-8")
    head, resource, tail = text.rpartition(_RESOURCE)
    tail = tail.replace("verify_each: true", f"verify_each: {'true' if verify_each else 'false'}")
    Path(path).write_text(head + resource + tail, encoding="utf-8")
