"""The persistent compile cache: lowered code kept on disk, so that another process does not lower it again.

``tensorad.jit`` looks up each signature it compiles by a hash of the traced
IR (without source locations), the stage it lowers to, the stage options
(memory budget, threads, vector width) and the versions of the compiler
(a hash of tensorad's compiler sources and the MLIR build). A hit gives the
LLVM-dialect module that the stages would produce, read from MLIR bytecode;
LLVM still turns it into machine code in the new process. As JAX's
compilation cache, it is off unless asked for:

* ``TENSORAD_COMPILE_CACHE=1``: on, in ``$XDG_CACHE_HOME/tensorad/compile``
  (``~/.cache/tensorad/compile`` without ``XDG_CACHE_HOME``);
* ``TENSORAD_COMPILE_CACHE=/some/folder``: on, in that folder;
* unset, empty or ``0``: off.

Entries are written to a temporary file and renamed into place, so processes
sharing the folder never see half an entry; an entry whose checksum does not
match, or that does not parse, is ignored (and compiled again). Nothing is
ever evicted: delete the folder to empty the cache.

Examples
--------
>>> import os
>>> os.environ[CACHE_VARIABLE] = "1"
>>> cache_dir().endswith(os.path.join("tensorad", "compile"))
True
>>> os.environ[CACHE_VARIABLE] = "0"
>>> cache_dir() is None
True
>>> del os.environ[CACHE_VARIABLE]
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import tempfile
from importlib import metadata

from mlir import ir

CACHE_VARIABLE = "TENSORAD_COMPILE_CACHE"
_MAGIC = b"tensorad-compile-cache-1\n"
_DIGEST = 32  # bytes of the sha256 of the payload, after the magic line


def cache_dir() -> str | None:
    """The folder of the persistent compile cache, or None when it is off (see the module's text)."""
    text = os.environ.get(CACHE_VARIABLE, "").strip()
    if text in ("", "0"):
        return None
    if text == "1":
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        return os.path.join(base, "tensorad", "compile")
    return text


@functools.lru_cache(maxsize=None)
def compiler_version() -> str:
    """A hash of what decides the code a given IR compiles to: tensorad's sources and the MLIR build.

    The sources are those of the packages ``tensorad``, ``tensorad.passes``
    and ``tensorad.dialects`` (their ``.py`` and ``.mlir`` files), so that a
    changed pass never serves code it would no longer make.

    Examples
    --------
    >>> len(compiler_version())
    64
    """
    import tensorad
    from tensorad import dialects, passes
    digest = hashlib.sha256()
    for root in sorted({*tensorad.__path__, *passes.__path__, *dialects.__path__}):
        for folder, subfolders, files in os.walk(root):
            subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
            for name in sorted(files):
                if name.endswith((".py", ".mlir")):
                    path = os.path.join(folder, name)
                    digest.update(os.path.relpath(path, root).encode() + b"\0")
                    with open(path, "rb") as source:
                        digest.update(source.read())
    try:
        digest.update(metadata.version("xtc-mlir-python-bindings").encode())
    except metadata.PackageNotFoundError:
        pass
    import mlir._mlir_libs as libs
    folder = os.path.dirname(libs.__file__)
    for name in sorted(os.listdir(folder)):
        if name.endswith(".so"):
            stat = os.stat(os.path.join(folder, name))
            digest.update(f"{name}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()


def cache_key(ir_text: str, *settings) -> str:
    """The name of the entry of IR ``ir_text`` compiled with ``settings`` (each written with ``repr``).

    Examples
    --------
    >>> cache_key("module {}", "llvm", 4) == cache_key("module {}", "llvm", 4) != cache_key("module {}", "llvm", 2)
    True
    """
    digest = hashlib.sha256(compiler_version().encode())
    for setting in settings:
        digest.update(b"\0" + repr(setting).encode())
    digest.update(b"\0" + ir_text.encode())
    return digest.hexdigest()


def load(key: str, context: ir.Context) -> ir.Module | None:
    """The module stored under ``key`` in ``context``; None when the cache is off, or has no sound entry.

    Examples
    --------
    >>> import os, tempfile
    >>> from tensorad.dialects import make_context
    >>> os.environ[CACHE_VARIABLE] = tempfile.mkdtemp()
    >>> ctx = make_context()
    >>> store("k", ir.Module.parse("func.func private @f()", ctx))
    >>> "func.func private @f()" in str(load("k", ctx)), load("other", ctx)
    (True, None)
    >>> del os.environ[CACHE_VARIABLE]
    """
    folder = cache_dir()
    if folder is None:
        return None
    try:
        with open(os.path.join(folder, key), "rb") as entry:
            data = entry.read()
    except OSError:
        return None
    header, digest, payload = data[:len(_MAGIC)], data[len(_MAGIC):len(_MAGIC) + _DIGEST], data[len(_MAGIC) + _DIGEST:]
    if header != _MAGIC or hashlib.sha256(payload).digest() != digest:
        return None  # written by something else, or damaged: compiled again and overwritten
    try:
        return ir.Module.parse(payload, context)
    except ir.MLIRError:
        return None


def store(key: str, module: ir.Module) -> None:
    """Keep ``module`` under ``key`` (nothing when the cache is off; an unwritable folder is no error)."""
    folder = cache_dir()
    if folder is None:
        return
    buffer = io.BytesIO()
    module.operation.write_bytecode(buffer)
    payload = buffer.getvalue()
    try:
        os.makedirs(folder, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".writing-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(_MAGIC + hashlib.sha256(payload).digest() + payload)
            os.replace(temporary, os.path.join(folder, key))  # atomic: readers see all of it or nothing
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass
