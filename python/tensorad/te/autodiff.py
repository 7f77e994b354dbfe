"""Reverse-mode differentiation of tensor-expression graphs, with TVM's interface.

:func:`differentiate` walks the graph from the output back to its inputs, as
``tvm.differentiate`` does: the adjoint of each tensor is the sum of its
users' contributions, and the contribution along one edge ``out -> inp`` is
``fdiff(out, inp, head)``, ``head`` being the adjoint of ``out`` (of shape
``prefix + out.shape``; the identity of shape ``out.shape + out.shape`` by
default, which makes the results full Jacobians).

The default ``fdiff``, :func:`DiffBuildingBlock`, is tensorad's own reverse
mode applied to the one ``linalg.generic`` of ``out``: the adjoint of an
input read at map ``M`` is a generic that writes it at ``M`` (a matmul's
adjoints are contractions, raised to ``tad.dot_general``; an elementwise
body gives an elementwise adjoint; a max reduction passes the cotangent to
its maximal element, split among ties, with no mask tensor). A head with a
prefix is one batched pullback, not a loop.

Examples
--------
>>> import numpy as np
>>> from tensorad import te
>>> X = te.placeholder((3,), "float64", name="X")
>>> Y = te.compute((3,), lambda i: X[i] * X[i], name="Y")
>>> k = te.reduce_axis((0, 3), name="k")
>>> L = te.compute((), lambda: te.sum(Y[k], axis=k), name="L")
>>> [dX] = te.differentiate(L, [X])
>>> te.build([X, dX])(np.array([1.0, 2.0, 3.0])).tolist()
[2.0, 4.0, 6.0]
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence

from .. import autodiff as _ad
from .emit import emit_compute
from .tensor import ComputeOp, PlaceholderOp, Tensor, compute, const, function_tensor, if_then_else
from . import tensor as T


class DifferentiationResult:
    """What :func:`differentiate` returns: the requested adjoints, and every adjoint it made.

    It reads as the list ``result`` (``[dW, dB] = differentiate(L, [W, B])``).

    Attributes
    ----------
    result : list of Tensor
        The adjoints of the requested inputs, in their order.
    adjoints : dict
        The adjoint of every tensor the output depends on (intermediates included).
    adjoint_summands : dict
        ``adjoint_summands[t][user]``: the contribution of ``user`` to ``t``'s adjoint.
    """

    def __init__(self, result: list, adjoints: dict, adjoint_summands: dict):
        self.result, self.adjoints, self.adjoint_summands = result, adjoints, adjoint_summands

    def _requested(self) -> list:
        if not self.result:
            raise ValueError("no inputs were requested from differentiate(), so the result is no list; "
                             "read .adjoints[tensor] instead")
        return self.result

    def __getitem__(self, i):
        return self._requested()[i]

    def __len__(self):
        return len(self._requested())

    def __iter__(self):
        return iter(self._requested())


def _emit_of(t: Tensor, values: dict):
    """Emit ``t`` from the tracers of its direct inputs in ``values``."""
    if isinstance(t.op, ComputeOp):
        return emit_compute(t, values, t.op.pads)
    return t.op.emit(*[values[i] for i in t.op.input_tensors])


def _prefix_of(output: Tensor, head: Tensor) -> tuple:
    n = len(head.shape) - output.ndim
    if n < 0 or head.shape[n:] != output.shape:
        raise ValueError(f"the head of {output.name} must have shape prefix + {output.shape}, not {head.shape}")
    if head.dtype != output.dtype:
        raise TypeError(f"the head of {output.name} is {head.dtype}; {output.name} is {output.dtype}")
    return head.shape[:n]


def DiffBuildingBlock(output: Tensor, input: Tensor, head: Tensor) -> Tensor:  # noqa: N802, A002 (TVM's names)
    """``head`` times the Jacobian of ``output`` with respect to its direct input ``input``.

    The result has shape ``prefix + input.shape`` where ``head`` has shape
    ``prefix + output.shape``. It is tensorad's pullback of ``output``'s op
    (one ``tad.vjp`` of the function holding its ``linalg.generic``), so no
    Jacobian is formed.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorad import te
    >>> X = te.placeholder((2,), "float64", name="X")
    >>> Y = te.compute((2,), lambda i: te.exp(X[i]), name="Y")
    >>> H = te.placeholder((2,), "float64", name="H")
    >>> dX = te.autodiff.DiffBuildingBlock(Y, X, H)
    >>> te.build([X, H, dX])(np.zeros(2), np.array([1.0, 2.0])).tolist()
    [1.0, 2.0]
    """
    if isinstance(output.op, PlaceholderOp) or input not in output.op.input_tensors:
        raise ValueError(f"{input.name} is not a direct input of {output.name}; differentiate through the "
                         "tensors between them (differentiate(output, [input], head))")
    prefix = _prefix_of(output, head)
    dependencies = list(output.op.input_tensors)

    def pullback(*values):
        known, cotangent = dict(zip(dependencies, values[:-1])), values[-1]

        def edge(x):
            return _emit_of(output, {**known, input: x})

        edge.__name__ = f"{output.name}_of_{input.name}"  # the traced function's symbol: @T_of_X, @T_of_X_vjp
        _, pull = _ad.vjp(edge, known[input])
        return pull(cotangent, prefix=prefix)[0]

    return function_tensor(prefix + input.shape, input.dtype, dependencies + [head], pullback,
                           f"{output.name}.{input.name}.grad", f"the pullback of {output.name} to {input.name}")


def identity(output: Tensor) -> Tensor:
    """The identity head of ``output``: shape ``output.shape + output.shape``, ones where the halves agree."""
    n = output.ndim

    def entry(*idx):
        if n == 0:
            return const(1.0, output.dtype)
        same = T.all(*[idx[d] == idx[n + d] for d in range(n)])
        return if_then_else(same, const(1.0, output.dtype), const(0.0, output.dtype))

    return compute(output.shape + output.shape, entry, name=f"{output.name}.identity")


def Jacobian(output: Tensor, input: Tensor, optimize: bool = True) -> Tensor:  # noqa: N802, A002
    """The full Jacobian of ``output`` with respect to its direct input ``input``: shape ``output.shape + input.shape``.

    ``optimize`` is accepted as in TVM; the Jacobian is always one batched
    pullback of the identity.
    """
    return DiffBuildingBlock(output, input, identity(output))


def _sum_of(parts: list, name: str) -> Tensor:
    if len(parts) == 1:
        return parts[0]
    return compute(parts[0].shape, lambda *idx: _added([p[idx] for p in parts]), name=name)


def _added(loads: list):
    total = loads[0]
    for load in loads[1:]:
        total = total + load
    return total


def _zeros(shape: tuple, dtype: str, name: str) -> Tensor:
    return compute(shape, lambda *idx: const(0.0, dtype), name=name)


def differentiate(output: Tensor, inputs: Optional[Sequence[Tensor]] = None, head: Optional[Tensor] = None,
                  override: Optional[dict] = None, fdiff: Optional[Callable] = None) -> DifferentiationResult:
    """Adjoints of ``output`` with respect to ``inputs`` and every tensor between (TVM's ``differentiate``).

    Parameters
    ----------
    output : Tensor
        The tensor to differentiate.
    inputs : list of Tensor, optional
        The tensors whose adjoints form ``result``, in order. None: none are
        listed, and ``.adjoints`` holds every adjoint.
    head : Tensor, optional
        The adjoint of ``output``, of shape ``prefix + output.shape``. None:
        the identity of shape ``output.shape + output.shape``, so the results
        are full Jacobians (``output.shape + input.shape``).
    override : dict, optional
        ``{t: (dependencies, custom_diff)}``: ``t``'s inputs are taken to be
        ``dependencies`` (not necessarily its direct inputs), and
        ``custom_diff(t, dependencies, head_of_t)`` returns their adjoints.
    fdiff : callable, optional
        ``fdiff(out, inp, head)`` gives the contribution along one edge
        (default :func:`DiffBuildingBlock`).

    Returns
    -------
    DifferentiationResult

    Examples
    --------
    >>> import numpy as np
    >>> from tensorad import te
    >>> X = te.placeholder((2,), "float64", name="X")
    >>> Y = te.compute((2,), lambda i: X[i] * 3.0, name="Y")
    >>> [J] = te.differentiate(Y, [X])          # full Jacobian: head=None
    >>> te.build([X, J])(np.ones(2)).tolist()
    [[3.0, 0.0], [0.0, 3.0]]
    """
    inputs = list(inputs or [])
    override = dict(override or {})
    fdiff = fdiff or DiffBuildingBlock
    head = identity(output) if head is None else head
    prefix = _prefix_of(output, head)

    def dependencies(t: Tensor) -> list:
        return list(override[t][0]) if t in override else list(t.op.input_tensors)

    order, seen, stack = [], set(), [(output, False)]
    while stack:  # dependencies before users
        t, done = stack.pop()
        if done:
            order.append(t)
        elif t not in seen:
            seen.add(t)
            stack.append((t, True))
            stack.extend((d, False) for d in dependencies(t) if d not in seen)

    summands = {t: {} for t in order}
    adjoints = {}
    for t in reversed(order):
        adjoint = head if t is output else _sum_of(list(summands[t].values()), f"{t.name}.adjoint")
        adjoints[t] = adjoint
        deps = dependencies(t)
        if not deps:
            continue
        if t in override:
            contributions = list(override[t][1](t, deps, adjoint))
            if len(contributions) != len(deps):
                raise ValueError(f"the override of {t.name} returned {len(contributions)} adjoints "
                                 f"for {len(deps)} dependencies")
        else:
            contributions = [fdiff(t, d, adjoint) for d in deps]
        for d, contribution in zip(deps, contributions):
            if not isinstance(contribution, Tensor) or contribution.shape != prefix + d.shape:
                raise ValueError(f"the adjoint of {d.name} from {t.name} must be a te tensor of shape "
                                 f"{prefix + d.shape}, got {getattr(contribution, 'shape', contribution)!r}")
            summands[d][t] = contribution
    result = [adjoints[x] if x in adjoints else _zeros(prefix + x.shape, x.dtype, f"{x.name}.adjoint")
              for x in inputs]
    return DifferentiationResult(result, adjoints, {t: s for t, s in summands.items() if s})


def gradient(output: Tensor, inputs: Sequence[Tensor], head: Optional[Tensor] = None) -> list:
    """The adjoints of ``inputs`` as a list (TVM's ``te.gradient``).

    Examples
    --------
    >>> import numpy as np
    >>> from tensorad import te
    >>> X = te.placeholder((2,), "float64", name="X")
    >>> Y = te.compute((2,), lambda i: X[i] * X[i], name="Y")
    >>> [dX] = te.gradient(Y, [X], head=te.placeholder((2,), "float64", name="H"))
    >>> dX.shape
    (2,)
    """
    return list(differentiate(output, inputs, head).result)
