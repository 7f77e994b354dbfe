"""Typed pass options: each pass declares its options once, as a frozen dataclass.

A pass (or named pipeline) with options takes them as one parameter,
``options``, whose default is an instance of its options class, as xDSL's
transforms are dataclasses of their options::

    @dataclass(frozen=True)
    class ThreadOptions:
        threads: int = option(1, "chunks per parallel loop", check=lambda n: n >= 1, accepted="an integer >= 1")

    def run(op, pass_, options: ThreadOptions = ThreadOptions()): ...

The registry turns the text of ``name{key=value ...}`` into that class with
:func:`parse` before the pass runs, so a bad value is a usage error that names
the pass, the option, the value and what is accepted, never an exception
inside the pass. Field types are ``int``, ``float``, ``str``, ``bool``,
``Literal[...]`` choices, or ``Optional`` of one of them (default ``None``).
Keys are written with dashes or underscores (``vector-bits``, ``vector_bits``).

Examples
--------
>>> from dataclasses import dataclass
>>> from typing import Literal
>>> @dataclass(frozen=True)
... class Tiling:
...     size: int = option(8, "tile size", check=lambda n: n > 0, accepted="a positive integer")
...     order: Literal["rows", "columns"] = option("rows", "loop order")
>>> parse(Tiling, "size=16 order=columns", "tile")
Tiling(size=16, order='columns')
>>> parse(Tiling, "size=-2", "tile")
Traceback (most recent call last):
...
tensorad.passes.options.OptionError: pass 'tile': option 'size' cannot be '-2': expected a positive integer
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
import typing
from dataclasses import dataclass
from typing import Any, Callable, Literal, Optional, Union


class OptionError(ValueError):
    """A pass option that is unknown, malformed or out of range: a usage error, not a pass failure."""


def option(default: Any, doc: str, *, check: Optional[Callable[[Any], bool]] = None,
           accepted: Optional[str] = None, parse: Optional[Callable[[str], Any]] = None) -> Any:
    """Declare one option: a dataclass field with its help line and how its text is read.

    Parameters
    ----------
    default
        The value when the option is not given (never checked).
    doc : str
        One line for ``autodiff-opt --help``.
    check : callable, optional
        ``check(value)`` is true for acceptable values (after conversion).
    accepted : str, optional
        What the option accepts, for the error message and the help
        (``"an integer >= 1"``); derived from the type when not given.
    parse : callable, optional
        Converts the text instead of the type (``"64MiB"`` -> 67108864);
        raises ``ValueError`` on bad text.

    Examples
    --------
    >>> @dataclass(frozen=True)
    ... class Budget:
    ...     limit: Optional[int] = option(None, "bytes", parse=int, accepted="a number of bytes")
    >>> parse(Budget, "limit=2048", "p").limit * 2
    4096
    """
    return dataclasses.field(default=default, metadata={"doc": doc, "check": check, "accepted": accepted,
                                                        "parse": parse})


@functools.lru_cache(maxsize=None)  # read on every compile, for each of its ~30 passes
def options_class(entry: Callable) -> Optional[type]:
    """The options class of a pass entry (the type of its ``options`` default), or None when it has none.

    Examples
    --------
    >>> @dataclass(frozen=True)
    ... class Width:
    ...     bits: int = option(0, "vector width")
    >>> def run(op, pass_, options: Width = Width()): ...
    >>> options_class(run).__name__, options_class(lambda op, pass_: None)
    ('Width', None)
    """
    parameter = inspect.signature(entry).parameters.get("options")
    if parameter is None or not dataclasses.is_dataclass(parameter.default):
        return None
    return type(parameter.default)


@dataclass(frozen=True)
class OptionInfo:
    """What ``--help`` shows of one option.

    Attributes
    ----------
    key : str
        The name as written in pipeline text (``vector-bits``).
    accepted : str
        Its accepted values (``"an integer"``, ``"one of isa, llvm"``).
    default : Any
        Its default value.
    doc : str
        Its help line.
    """

    key: str
    accepted: str
    default: Any
    doc: str


def describe(cls: type) -> list[OptionInfo]:
    """The options of ``cls`` for ``--help``, in declaration order.

    Examples
    --------
    >>> @dataclass(frozen=True)
    ... class Width:
    ...     vector_bits: int = option(0, "vector width; 0 asks the host")
    >>> [(o.key, o.accepted, o.default) for o in describe(Width)]
    [('vector-bits', 'an integer', 0)]
    """
    hints = typing.get_type_hints(cls)
    return [OptionInfo(f.name.replace("_", "-"), _accepted(f, hints[f.name]), f.default, f.metadata.get("doc", ""))
            for f in dataclasses.fields(cls)]


def split_options(text: str) -> list[str]:
    """Split option text at whitespace outside quotes and braces.

    Raises
    ------
    OptionError
        For an unclosed quote or brace.

    Examples
    --------
    >>> split_options('budget=10 report="a b.json" names={x y}')
    ['budget=10', 'report="a b.json"', 'names={x y}']
    """
    items, current, depth, quoted = [], [], 0, False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "{":
            depth += 1
        elif not quoted and ch == "}":
            depth -= 1
            if depth < 0:
                raise OptionError(f"unbalanced '}}' in options '{text}'")
        if ch.isspace() and not quoted and depth == 0:
            if current:
                items.append("".join(current))
            current = []
        else:
            current.append(ch)
    if quoted or depth:
        raise OptionError(f"unclosed {'quote' if quoted else 'brace'} in options '{text}'")
    if current:
        items.append("".join(current))
    return items


def parse(cls: type, text: str, pass_name: str) -> Any:
    """Read ``key=value`` option text into an instance of ``cls``.

    Raises
    ------
    OptionError
        For an unknown or repeated key, a value of the wrong type or out of
        range; the message names the pass, the option, the value and what is
        accepted.

    Examples
    --------
    >>> @dataclass(frozen=True)
    ... class Flags:
    ...     fast: bool = option(False, "trade accuracy for speed")
    ...     scale: float = option(1.0, "factor")
    >>> parse(Flags, "fast scale=2.5", "p")
    Flags(fast=True, scale=2.5)
    """
    fields = {f.name: f for f in dataclasses.fields(cls)}
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    for item in split_options(text):
        key, eq, raw = item.partition("=")
        name = key.strip().replace("-", "_")
        if name not in fields:
            known = ", ".join(f.replace("_", "-") for f in fields) or "none"
            raise OptionError(f"pass '{pass_name}' has no option '{key}'; its options are: {known}")
        if name in values:
            raise OptionError(f"pass '{pass_name}': option '{key}' is given twice")
        field = fields[name]
        if not eq:
            if hints[name] is not bool:
                raise OptionError(f"pass '{pass_name}': option '{key}' needs a value ({key}=VALUE): "
                                  f"expected {_accepted(field, hints[name])}")
            raw = "true"
        values[name] = _convert(field, hints[name], _unquote(raw), pass_name)
    try:
        return cls(**values)
    except ValueError as err:  # checks across options, in the class's __post_init__
        raise OptionError(f"pass '{pass_name}': {err}") from None


def _unquote(text: str) -> str:
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] == '"' else text


def _base(hint) -> Any:
    """The type under ``Optional[...]``."""
    if typing.get_origin(hint) is Union:
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return hint


_TYPE_NAMES = {int: "an integer", float: "a finite number", bool: "true or false", str: "a string"}


def _accepted(field: dataclasses.Field, hint) -> str:
    if field.metadata.get("accepted"):
        return field.metadata["accepted"]
    base = _base(hint)
    if typing.get_origin(base) is Literal:
        return "one of " + ", ".join(str(choice) for choice in typing.get_args(base))
    return _TYPE_NAMES.get(base, str(base))


def _convert(field: dataclasses.Field, hint, text: str, pass_name: str) -> Any:
    base = _base(hint)
    try:
        if field.metadata.get("parse") is not None:
            value = field.metadata["parse"](text)
        elif typing.get_origin(base) is Literal:
            value = next(c for c in typing.get_args(base) if str(c) == text)
        elif base is bool:
            value = {"true": True, "1": True, "false": False, "0": False}[text.lower()]
        elif base is int:
            value = int(text, 10)
        elif base is float:
            value = float(text)
            if not math.isfinite(value):
                raise ValueError
        else:
            value = text
        check = field.metadata.get("check")
        if check is not None and not check(value):
            raise ValueError
    except (ValueError, KeyError, StopIteration, OverflowError):
        key = field.name.replace("_", "-")
        shown = f"'{text}'" if text else "empty"
        raise OptionError(f"pass '{pass_name}': option '{key}' cannot be {shown}: "
                          f"expected {_accepted(field, hint)}") from None
    return value
