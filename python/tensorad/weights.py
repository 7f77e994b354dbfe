"""Derivatives with respect to a network's parameters: MindSpore's ``weights=`` and ``grad_position=``.

:func:`vjp`, :func:`grad` and :func:`value_and_grad` are tensorad's own
(JAX's shape, :mod:`tensorad.autodiff`) with MindSpore's keywords added:

- ``vjp(fn, *inputs, weights=params, has_aux=...)``: ``vjp_fn(v)`` returns
  ``(input gradients, weight gradients)``;
- ``grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False)``
  and ``value_and_grad(...)`` with MindSpore's result structure.

Other keywords (``options``) go to the JAX-shaped function unchanged.
``weights`` are :class:`~tensorad.nn.Parameter` objects (a list, a tuple, or
one), usually ``net.trainable_params()``. While ``fn`` is traced each one
holds a traced argument, so the compiled code reads their current arrays on
every call. Other parameters ``fn`` reads become constants of the compiled
code; when one of them changes (``set_data``) the code is compiled again
(:mod:`tensorad.baked`).

Examples
--------
>>> import numpy as np, tensorad as ta
>>> from tensorad import nn
>>> class Net(nn.Cell):
...     def construct(self, x, y):
...         return x ** 3 + y
>>> x = np.array([[1.0, 2.0], [3.0, 4.0]])
>>> out, vjp_fn = ta.vjp(Net(), x, x)
>>> [g.tolist() for g in vjp_fn(np.ones((2, 2)))]
[[[3.0, 12.0], [27.0, 48.0]], [[1.0, 1.0], [1.0, 1.0]]]
"""

from __future__ import annotations

import weakref
from typing import Callable, Sequence

from . import autodiff
from .compiler import Jitted
from .nn.module import Parameter
from .tracing import Tracer, function_name


def _weights_list(weights) -> tuple:
    """``(list of parameters, whether one was given alone)``."""
    single = isinstance(weights, Parameter)
    listed = [weights] if single else list(weights)
    if not all(isinstance(w, Parameter) for w in listed):
        raise TypeError("weights must be nn.Parameter objects (for example net.trainable_params())")
    if len(set(map(id, listed))) != len(listed):
        raise ValueError("a parameter appears twice in weights")
    return listed, single


class _WithWeights:
    """``fn`` as a function of ``(weight arrays, *inputs)``: the weights hold the given arrays while it runs."""

    def __init__(self, fn: Callable, weights: list):
        self.fn, self.weights = fn, weights
        self.__name__ = function_name(fn)

    def __call__(self, weight_arrays, *inputs):
        saved = [w.current for w in self.weights]
        try:
            for w, array in zip(self.weights, weight_arrays):
                w.substitute(array)
            return self.fn(*inputs)
        finally:
            for w, array in zip(self.weights, saved):
                w.substitute(array)


# One wrapper per (function, weights), so that the compiled code of each is reused.
_WRAPPERS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _with_weights(fn: Callable, weights: list) -> _WithWeights:
    key = tuple(id(w) for w in weights)
    try:
        per_fn = _WRAPPERS.setdefault(fn, {})
    except TypeError:  # not weakly referenceable
        return _WithWeights(fn, weights)
    wrapper = per_fn.get(key)
    if wrapper is None or wrapper.weights != weights:
        wrapper = per_fn[key] = _WithWeights(fn, weights)
    return wrapper


def _arrays(weights: list) -> tuple:
    return tuple(w.current for w in weights)


def vjp(fn: Callable, *inputs, weights=None, has_aux: bool = False, **options):
    """``(out, vjp_fn)`` (``(out, vjp_fn, aux)`` with ``has_aux``), as :func:`tensorad.vjp`; with ``weights``,
    ``vjp_fn(v)`` returns ``(input gradients, weight gradients)`` as MindSpore's ``vjp``.

    The input gradients are a tuple (one per input); the weight gradients a
    tuple (one per weight), or one array when ``weights`` is one Parameter.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> from tensorad import nn
    >>> dense = nn.Dense(2, 1, weight_init=np.array([[1.0, 2.0]]), bias_init="zeros")
    >>> out, vjp_fn = ta.vjp(dense, np.array([[3.0, 4.0]]), weights=dense.trainable_params())
    >>> (dx,), (dw, db) = vjp_fn(np.ones((1, 1)))
    >>> dx.tolist(), dw.tolist(), db.tolist()
    ([[1.0, 2.0]], [[3.0, 4.0]], [1.0])
    """
    if weights is None:
        return autodiff.vjp(fn, *inputs, has_aux=has_aux, **options)
    listed, single = _weights_list(weights)
    wrapped = _with_weights(fn, listed)
    results = autodiff.vjp(wrapped, _arrays(listed), *inputs, has_aux=has_aux, **options)

    def vjp_fn(cotangent):
        grads = results[1](cotangent)
        weight_grads = grads[0][0] if single else tuple(grads[0])
        return tuple(grads[1:]), weight_grads

    return (results[0], vjp_fn) + tuple(results[2:])


def _positions(grad_position, n_args: int) -> tuple:
    nums = (grad_position,) if isinstance(grad_position, int) else tuple(grad_position)
    for n in nums:
        if not isinstance(n, int) or not -n_args <= n < n_args:
            raise ValueError(f"grad_position {grad_position!r} for a function called with {n_args} inputs")
    return tuple(n % n_args for n in nums)


class _MindSporeDerivative:
    """MindSpore's ``grad``/``value_and_grad`` of ``fn``: compiled once, the weights passed on every call."""

    def __init__(self, fn: Callable, grad_position, weights, has_aux: bool, return_ids: bool, with_value: bool):
        if grad_position is None and weights is None:
            raise ValueError("grad_position and weights cannot both be None")
        self.listed, self.single = _weights_list(weights) if weights is not None else ([], False)
        self.fn, self.grad_position, self.has_aux = fn, grad_position, has_aux
        self.return_ids, self.with_value, self.asked_weights = return_ids, with_value, weights is not None
        self.jitted = self._build()

    def _build(self) -> Jitted:
        wrapped = _WithWeights(self.fn, self.listed)
        grad_position, has_aux = self.grad_position, self.has_aux

        def derivative(weight_arrays, *args):
            positions = () if grad_position is None else _positions(grad_position, len(args))

            def loss(arrays, *chosen):
                full = list(args)
                for n, value in zip(positions, chosen):
                    full[n] = value
                out = wrapped(arrays, *full)
                if not has_aux:
                    return out
                if not (isinstance(out, tuple) and len(out) >= 2):
                    raise TypeError("with has_aux=True the function must return two or more outputs")
                return out[0], tuple(out[1:])

            value, grads = autodiff.value_and_grad(loss, tuple(range(1 + len(positions))), has_aux).fun(
                weight_arrays, *[args[n] for n in positions])
            return value, tuple(grads[0]), tuple(grads[1:])

        derivative.__name__ = f"grad_{function_name(self.fn)}"
        return Jitted(derivative)

    def __call__(self, *args):
        value, weight_grads, input_grads = self.jitted(_arrays(self.listed), *args)
        positions = () if self.grad_position is None else _positions(self.grad_position, len(args))
        if self.return_ids:
            input_grads = tuple(zip(positions, input_grads))
            weight_grads = tuple(zip((w.name for w in self.listed), weight_grads))
        inputs_part = input_grads[0] if isinstance(self.grad_position, int) else input_grads
        weights_part = weight_grads[0] if self.single else weight_grads
        if self.grad_position is None:
            gradient = weights_part
        elif not self.asked_weights:
            gradient = inputs_part
        else:
            gradient = (inputs_part, weights_part)
        if self.with_value:
            return ((value[0],) + value[1] if self.has_aux else value), gradient
        if self.has_aux:
            aux = value[1]
            return gradient, aux[0] if len(aux) == 1 else aux
        return gradient


def _uses_mindspore(grad_position, weights, return_ids) -> bool:
    return grad_position is not None or weights is not None or return_ids


def _positional(argnums, more: tuple, has_aux, grad_position, weights) -> tuple:
    """``(argnums, has_aux, grad_position, weights)`` from JAX's ``(fn, argnums, has_aux)`` or
    MindSpore's ``(fn, grad_position, weights, has_aux)``: no JAX call passes None or parameters there."""
    if len(more) > 2:
        raise TypeError(f"too many positional arguments ({2 + len(more)})")
    mindspore = argnums is None or (more and isinstance(more[0], (list, tuple, Parameter)))
    if not mindspore:
        if len(more) > 1:
            raise TypeError("(fn, argnums, has_aux): too many positional arguments")
        return argnums, more[0] if more else has_aux, grad_position, weights
    if grad_position is not None or weights is not None:
        raise TypeError("grad_position/weights given both by position and by keyword")
    return 0, more[1] if len(more) > 1 else has_aux, argnums, more[0] if more else None


def _no_options(options: dict) -> None:
    if options:
        raise TypeError(f"{', '.join(options)}: not taken together with grad_position/weights/return_ids")


def value_and_grad(fn: Callable, argnums: int | Sequence[int] | None = 0, *more, has_aux: bool = False,
                   grad_position=None, weights=None, return_ids: bool = False, **options):
    """:func:`tensorad.value_and_grad`; with ``grad_position``/``weights``, MindSpore's ``value_and_grad``.

    In MindSpore's form the function returns ``(value, gradient)``: with
    ``has_aux``, ``value`` is the tuple of all outputs; ``gradient`` is as
    for :func:`grad`.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> value, g = ta.value_and_grad(lambda x, y: (x * y).sum(), grad_position=(0, 1))(np.ones(2), np.full(2, 3.0))
    >>> float(value), [v.tolist() for v in g]
    (6.0, [[3.0, 3.0], [1.0, 1.0]])
    """
    argnums, has_aux, grad_position, weights = _positional(argnums, more, has_aux, grad_position, weights)
    if not _uses_mindspore(grad_position, weights, return_ids):
        return autodiff.value_and_grad(fn, argnums, has_aux, **options)
    _no_options(options)
    return _MindSporeDerivative(fn, grad_position, weights, has_aux, return_ids, with_value=True)


def grad(fn: Callable, argnums: int | Sequence[int] | None = 0, *more, has_aux: bool = False,
         grad_position=None, weights=None, return_ids: bool = False, **options):
    """:func:`tensorad.grad`; with ``grad_position`` and/or ``weights``, MindSpore's ``grad``.

    The positional arguments after ``fn`` are JAX's ``(argnums, has_aux)``, or
    MindSpore's ``(grad_position, weights, has_aux)`` when the first is None
    or the second holds parameters. MindSpore's form differentiates the first output of ``fn`` with respect to
    the inputs at ``grad_position`` (an int: one gradient; a tuple: a tuple;
    None: none) and the parameters ``weights``; the result is the input
    gradients, the weight gradients, or the pair ``(inputs, weights)`` when
    both are asked for. ``has_aux``: ``fn`` returns two or more outputs; the
    result is ``(gradient, aux)``. ``return_ids``: each gradient becomes
    ``(position or parameter name, gradient)``.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> from tensorad import nn
    >>> net = nn.Dense(2, 1, weight_init=np.array([[1.0, 2.0]]), bias_init="zeros")
    >>> loss = lambda x: (net(x) ** 2).sum()
    >>> dx, (dw, db) = ta.grad(loss, grad_position=0, weights=net.trainable_params())(np.array([[1.0, 1.0]]))
    >>> dx.tolist(), dw.tolist(), db.tolist()
    ([[6.0, 12.0]], [[6.0, 6.0]], [6.0])
    """
    argnums, has_aux, grad_position, weights = _positional(argnums, more, has_aux, grad_position, weights)
    if not _uses_mindspore(grad_position, weights, return_ids):
        return autodiff.grad(fn, argnums, has_aux, **options)
    _no_options(options)
    return _MindSporeDerivative(fn, grad_position, weights, has_aux, return_ids, with_value=False)
