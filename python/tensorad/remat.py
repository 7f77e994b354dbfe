"""Checkpointing from Python: what the backward sweep stores, and what it costs in memory.

* :func:`checkpoint` wraps a function in ``tad.start_checkpoint`` /
  ``tad.end_checkpoint`` markers: the values it computes are recomputed in the
  backward sweep instead of stored, except those its ``policy`` lets be kept
  (JAX's policies: :data:`checkpoint_policies`).
* :func:`checkpoint_name` names a value for ``save_only_these_names``.
* :func:`print_saved_residuals` lists what a function's backward sweep reads
  from memory, with sizes and source lines.
* :func:`memory_report` compiles a function (optionally under a memory budget),
  runs it, and returns what ``tad-remat`` decided next to the measured peak.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> layer = ta.checkpoint(lambda x: tnp.sin(tnp.sin(x)))
>>> float(ta.grad(lambda x: layer(x).sum())(np.zeros(3))[0])
1.0
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Callable

from mlir import ir

from . import tree
from tensorad.dialects.builder import marker
from tensorad.passes.registry import PassResults
from tensorad.passes.remat.graph import POLICIES

from .compiler import Jitted, jit, run_stages
from .runtime import last_call_stats, record_live_bytes
from .tracing import Tracer, emits_ops

_REGION_IDS = itertools.count(1)


def save_only_these_names(*names: str) -> str:
    """Policy keeping only the values named with :func:`checkpoint_name` ``names``.

    Examples
    --------
    >>> save_only_these_names("h1", "h2")
    'save_only_these_names:h1,h2'
    """
    return "save_only_these_names:" + ",".join(names)


checkpoint_policies = SimpleNamespace(
    everything_saveable="everything_saveable", nothing_saveable="nothing_saveable",
    dots_saveable="dots_saveable", save_only_these_names=save_only_these_names)


def _mark(kind: str, leaf, region: int, policy: str | None):
    if not isinstance(leaf, Tracer):
        return leaf
    value = marker(kind, leaf.value)
    op = value.owner
    op.attributes["tad.region"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), region)
    if policy is not None:
        op.attributes["tad.policy"] = ir.StringAttr.get(policy)
    return Tracer.of(value)


def checkpoint(fun: Callable, policy: str | None = None) -> Callable:
    """``fun`` whose intermediate values are recomputed in the backward sweep (``jax.checkpoint``).

    Parameters
    ----------
    fun : callable
        Takes and returns pytrees of arrays.
    policy : str, optional
        One of :data:`checkpoint_policies`: which intermediate values may still
        be stored (default: none of them, ``nothing_saveable``).

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> f = ta.checkpoint(lambda x: tnp.tanh(x @ x), policy=ta.checkpoint_policies.dots_saveable)
    >>> ta.grad(lambda x: f(x).sum())(np.eye(2)).shape
    (2, 2)
    """
    if policy is not None and policy.partition(":")[0] not in POLICIES:
        raise ValueError(f"unknown checkpoint policy '{policy}'; known: {', '.join(POLICIES)}")

    @emits_ops
    def checkpointed(*args, **kwargs):
        leaves = tree.flatten((args, kwargs))[0]
        if not any(isinstance(x, Tracer) for x in leaves):
            return fun(*args, **kwargs)  # nothing is differentiated outside a trace
        region = next(_REGION_IDS)
        args, kwargs = tree.tree_map(lambda x: _mark("start_checkpoint", x, region, policy),
                                     (args, kwargs))
        out = fun(*args, **kwargs)
        return tree.tree_map(lambda x: _mark("end_checkpoint", x, region, None), out)

    checkpointed.__name__ = getattr(fun, "__name__", "checkpointed")
    return checkpointed


def checkpoint_name(x, name: str):
    """Name ``x`` for the ``save_only_these_names`` policy (``jax.ad_checkpoint.checkpoint_name``).

    Examples
    --------
    >>> import numpy as np
    >>> checkpoint_name(np.ones(2), "h")
    array([1., 1.])
    """
    if isinstance(x, Tracer) and not isinstance(x.value.owner, ir.Block):
        x.value.owner.attributes["tad.checkpoint_name"] = ir.StringAttr.get(name)
    return x


@dataclass
class MemoryReport:
    """What ``tad-remat`` decided for a compiled function, and what running it measured.

    Attributes
    ----------
    functions : list of FunctionReport
        One per function (the entry point, named after the user's function, first); see
        :class:`tensorad.passes.remat.report.FunctionReport`.
    measured_peak_bytes : int
        Peak live bytes of one call, from the runtime's allocation hooks.
    measured_timeline : list of int
        Live bytes of that call after each allocation and free.
    """

    functions: list
    measured_peak_bytes: int | None
    measured_timeline: list | None = None

    def plot(self, path: str) -> None:
        """Draw live bytes over the timeline: store-all and the schedule as predicted, and as measured.

        Needs matplotlib (the ``bench`` extra: ``pip install -e ".[bench]"``);
        without it, an ``ImportError`` says so.
        """
        from tensorad.passes.remat.report import plot

        plot(self.functions, path)

    def __str__(self) -> str:
        lines = []
        for r in self.functions:
            lines.append(f"@{r.function}: tier {r.tier} ({r.status}), budget {r.budget}")
            lines.append(f"  peak live bytes: store-all {r.store_all_peak_bytes}, "
                         f"predicted {r.predicted_peak_bytes}, measured {r.measured_peak_bytes}")
            lines.append(f"  stored {len(r.stored)} values, recomputed {len(r.recomputed)}, "
                         f"extra FLOPs {r.extra_flops}")
        return "\n".join(lines)


def _schedule_reports(jitted: Jitted, args, inline: bool = True) -> list:
    """The :class:`~tensorad.passes.remat.report.FunctionReport` of each function of ``jitted`` traced for ``args``.

    The compiler's own stages run, up to ``tad-jit-differentiate``'s; with
    ``inline`` false the derivative functions stay apart from the entry.
    """
    lowered = jitted.lower(*args)
    results = PassResults()
    run_stages(lowered.module(), "differentiated",
               dataclasses.replace(lowered.differentiate_options, inline=inline, report=True), results)
    return results.last("tad-remat").functions


def memory_report(fun: Callable, *args, memory_budget=None) -> MemoryReport:
    """Compile ``fun`` (e.g. ``ta.grad(loss)``), run it once on ``args``, report its memory.

    ``fun`` may be a ``tensorad.jit`` function: its own ``memory_budget``
    holds unless ``memory_budget`` is given here. The run records live bytes
    after every allocation and free (``measured_timeline``).

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> report = ta.memory_report(ta.grad(lambda x: tnp.sin(tnp.sin(x)).sum()), np.ones(4))
    >>> report.functions[0].measured_peak_bytes == report.measured_peak_bytes
    True
    """
    jitted = fun if isinstance(fun, Jitted) and memory_budget is None else jit(fun, memory_budget=memory_budget)
    reports = jitted.compile_with_reports(*args).last("tad-remat").functions  # the code the call below runs
    with record_live_bytes():
        jitted(*args)
    stats = last_call_stats()
    reports[0].measured_peak_bytes, reports[0].measured_timeline = stats.peak_live_bytes, list(stats.timeline)
    return MemoryReport(reports, stats.peak_live_bytes, list(stats.timeline))


def print_saved_residuals(fun: Callable, *args) -> list:
    """Print (and return) the forward values the backward sweep of ``fun`` reads from memory.

    ``fun``'s vjp at ``args`` is compiled with a cotangent of ones; each line
    gives the op, its bytes and the user's source line.

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> saved = ta.print_saved_residuals(lambda w: tnp.tanh(w @ w), np.eye(3))  # doctest: +ELLIPSIS
    math.tanh: 72 bytes at ...
    >>> len(saved)
    1
    """
    from .autodiff import vjp
    import tensorad.numpy as tnp

    def pullback_of_ones(*primals):
        out, pullback = vjp(fun, *primals)
        return pullback(tree.tree_map(tnp.ones_like, out))

    reports = _schedule_reports(jit(pullback_of_ones), args, inline=False)
    saved = [value for r in reports if r.is_vjp for value in r.stored]
    for value in saved:
        name = f" '{value['name']}'" if value["name"] else ""
        print(f"{value['op']}{name}: {value['bytes']} bytes at {value['location']}")
    return saved
