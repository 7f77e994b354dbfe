"""The differentiation API: ``grad``, ``value_and_grad``, ``vjp``, ``jvp``, Jacobians, ``custom_vjp``.

Each transformation works on IR, not by tapes in Python: the function is traced
into its own ``func.func`` of the module being built, its derivative is
*declared* (``tad.vjp``/``tad.jvp``, see DESIGN.md) and called; the
``tad-differentiate`` pass gives the declaration its body when the module is
compiled. Transformations therefore compose (``grad(grad(f))``, ``jit(vjp)``)
and every derivative is visible as IR (``jit(...).lower(...).as_text("differentiated")``).

Called outside a trace, each transformed function compiles itself with
:func:`tensorad.jit` (cached per signature).

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> df = ta.grad(lambda x: tnp.sum(tnp.sin(x)))
>>> np.allclose(df(np.zeros(3)), 1.0)
True
"""

from __future__ import annotations

import weakref
from typing import Callable, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import func

from tensorad.dialects import builder

from . import numpy as tnp
from . import tree
from .compiler import Jitted
from .dtypes import tensor_type
from .errors import TracingError
from .tracing import Tracer, current_module, emits_ops, function_name, trace_into, unique_symbol


@emits_ops
def stop_gradient(x):
    """Identity whose derivative is zero (TVM Relax's ``no_grad``); works on pytrees.

    Examples
    --------
    >>> import tensorad as ta
    >>> ta.grad(lambda x: x * ta.stop_gradient(x))(3.0)
    array(3.)
    """
    return tree.tree_map(lambda leaf: Tracer.of(builder.marker("stop_gradient", tnp.asarray(leaf).value)), x)


def _call(name: str, operands: Sequence[Tracer], result_avals) -> list:
    op = func.CallOp([tensor_type(s, d) for s, d in result_avals], name, [x.value for x in operands])
    return [Tracer.of(r) for r in op.results]


def _declare(kind: str, of: str, wrt: Sequence[int], inputs, results) -> str:
    """Declare the ``kind`` derivative of ``@of`` (as ``@<of>_<kind>``) in the module being traced; return its name."""
    module = current_module()
    name = unique_symbol(module, f"{of}_{kind}")
    with ir.InsertionPoint(module.body):
        decl = func.FuncOp(name, ir.FunctionType.get([tensor_type(s, d) for s, d in inputs],
                                                     [tensor_type(s, d) for s, d in results]),
                           visibility="private")
        decl.attributes[f"tad.{kind}"] = ir.DictAttr.get({
            "of": ir.FlatSymbolRefAttr.get(of), "wrt": ir.DenseI64ArrayAttr.get(list(wrt))})
    return name


class _Traced:
    """A Python function traced into a private ``func.func`` of the current module."""

    def __init__(self, fun: Callable, args: tuple, name: str | None = None):
        leaves, self.in_tree = tree.flatten(args)
        self.inputs = [tnp.asarray(x) for x in leaves]
        self.name, self.out_tree, self.out_avals, captured = trace_into(
            current_module(), lambda *xs: fun(*tree.unflatten(self.in_tree, xs)),
            [(x.shape, x.dtype) for x in self.inputs], name=name or function_name(fun))
        # Only the explicit inputs are differentiated; closed-over values ride along.
        self.float_inputs = tuple(i for i, x in enumerate(self.inputs) if x.dtype.kind == "f")
        self.explicit = len(self.inputs)
        self.inputs += [Tracer.of(v) for v in captured]

    def call(self) -> list:
        return _call(self.name, self.inputs, self.out_avals)

    def pullback(self, seeds: Sequence[Tracer], prefix: tuple = ()) -> list:
        """Gradients (with batch ``prefix``) of every input; zeros for non-float inputs."""
        wrt = self.float_inputs
        batched = [(prefix + s, d) for s, d in self.out_avals]
        grads = [(prefix + self.inputs[i].shape, self.inputs[i].dtype) for i in wrt]
        name = _declare("vjp", self.name, wrt, [(x.shape, x.dtype) for x in self.inputs] + batched,
                        self.out_avals + grads)
        outs = iter(_call(name, self.inputs + list(seeds), self.out_avals + grads)[len(self.out_avals):])
        return [next(outs) if i in wrt else tnp.zeros(prefix + x.shape, x.dtype)
                for i, x in enumerate(self.inputs[:self.explicit])]

    def pushforward(self, tangents: dict, prefix: tuple = ()) -> list:
        """Output tangents for input tangents ``{input index: tangent}`` (with batch ``prefix``)."""
        wrt = tuple(sorted(tangents))
        inputs = [(x.shape, x.dtype) for x in self.inputs]
        batched_out = [(prefix + s, d) for s, d in self.out_avals]
        name = _declare("jvp", self.name, wrt,
                        inputs + [(prefix + self.inputs[i].shape, self.inputs[i].dtype) for i in wrt],
                        self.out_avals + batched_out)
        outs = _call(name, self.inputs + [tangents[i] for i in wrt], self.out_avals + batched_out)
        return outs[len(self.out_avals):]


def _in_trace(leaves) -> bool:
    return any(isinstance(x, Tracer) for x in leaves)


# Compiled top-level transformations, per user function; dropped with the function.
_TOP_LEVEL: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _compiled(build: Callable, user_fun: Callable, kind: tuple) -> Jitted:
    """The cached ``Jitted(build)`` for transformation ``kind`` of ``user_fun``."""
    build.__name__ = f"{kind[0]}_{function_name(user_fun)}".replace("-", "_")  # e.g. @jvp_loss
    try:
        per_fun = _TOP_LEVEL.setdefault(user_fun, {})
    except TypeError:  # not weakly referenceable: compile without caching
        return Jitted(build)
    if kind not in per_fun:
        per_fun[kind] = Jitted(build)
    return per_fun[kind]


def _split_aux(out, has_aux: bool):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise TracingError("a function with has_aux=True must return a pair (output, aux)")
    return out[0], out[1]


def _seed_leaves(cotangent, avals, prefix=()) -> list:
    leaves, _ = tree.flatten(cotangent)
    if len(leaves) != len(avals):
        raise TracingError(f"the cotangent has {len(leaves)} arrays, the output has {len(avals)}")
    seeds = []
    for leaf, (shape, dtype) in zip(leaves, avals):
        seed = tnp.astype(tnp.asarray(leaf), dtype)
        if seed.shape != prefix + tuple(shape):
            raise TracingError(f"cotangent of shape {seed.shape} for an output of shape {tuple(shape)}")
        seeds.append(seed)
    return seeds


def _vjp_traced(fun: Callable, primals: tuple, has_aux: bool):
    traced = _Traced(lambda *args: _main_and_stopped_aux(fun(*args), has_aux), primals, function_name(fun))
    outs = tree.unflatten(traced.out_tree, traced.call())
    out, aux = _split_aux(outs, has_aux)
    n_main = len(tree.flatten(out)[0])

    def vjp_fn(cotangent, prefix: tuple = ()):
        seeds = _seed_leaves(cotangent, traced.out_avals[:n_main], prefix)
        seeds += [tnp.zeros(prefix + s, d) for s, d in traced.out_avals[n_main:]]
        grads = traced.pullback(seeds, prefix)
        return tree.unflatten(traced.in_tree, grads)

    return out, vjp_fn, aux


def _main_and_stopped_aux(out, has_aux: bool):
    main, aux = _split_aux(out, has_aux)
    return (main, stop_gradient(aux)) if has_aux else main


def vjp(fun: Callable, *primals, has_aux: bool = False):
    """Evaluate ``fun`` and return a function that pulls cotangents back to the primals.

    Returns ``(out, vjp_fn)``, or ``(out, vjp_fn, aux)`` with ``has_aux``, as
    in JAX and MindSpore. ``vjp_fn(cotangent)`` returns a tuple with one
    gradient pytree per primal.

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> out, pullback = ta.vjp(lambda x: tnp.exp(x), np.zeros(2))
    >>> pullback(np.ones(2))
    (array([1., 1.]),)
    """
    leaves, _ = tree.flatten(primals)
    if _in_trace(leaves):
        out, vjp_fn, aux = _vjp_traced(fun, primals, has_aux)
        return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)

    def forward(*args):
        out, _, aux = _vjp_traced(fun, args, has_aux)
        return out, aux

    def backward(args, cotangent):
        return _vjp_traced(fun, args, has_aux)[1](cotangent)

    out, aux = _compiled(forward, fun, ("vjp-forward", has_aux))(*primals)
    pull = _compiled(backward, fun, ("vjp-backward", has_aux))
    vjp_fn = lambda cotangent: pull(primals, cotangent)  # noqa: E731
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


def _normalize_argnums(argnums, nargs: int) -> tuple:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for n in nums:
        if not -nargs <= n < nargs:
            raise TracingError(f"argnums {argnums} is out of range for {nargs} positional arguments")
    return tuple(n % nargs for n in nums)


def _with_args(fun: Callable, args: tuple, nums: tuple, kwargs: dict) -> Callable:
    def partial(*diff):
        merged = list(args)
        for n, value in zip(nums, diff):
            merged[n] = value
        return fun(*merged, **kwargs)

    partial.__name__ = function_name(fun)  # the IR names the user's function, not this wrapper
    return partial


def _check_float(args: tuple, nums: tuple, what: str) -> None:
    for n in nums:
        for leaf in tree.flatten(args[n])[0]:
            dtype = leaf.dtype if hasattr(leaf, "dtype") else np.asarray(leaf).dtype
            if np.dtype(dtype).kind != "f":
                raise TypeError(f"{what} requires floating-point inputs, but argument {n} has dtype "
                                f"{np.dtype(dtype).name}; convert it with .astype(float) or leave it "
                                "out of argnums")


def value_and_grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Jitted:
    """Return a function computing ``fun``'s value and its gradient with respect to ``argnums``.

    ``fun`` must return a float scalar (with ``has_aux``, a pair
    ``(scalar, aux)``). Returns ``(value, grad)`` or ``((value, aux), grad)``;
    ``grad`` has the structure of the chosen argument (a tuple of them when
    ``argnums`` is a tuple).

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.value_and_grad(lambda p: (p["w"] ** 2).sum())({"w": np.arange(3.0)})
    (array(5.), {'w': array([0., 2., 4.])})
    """

    def value_and_grad_fun(*args, **kwargs):
        nums = _normalize_argnums(argnums, len(args))
        _check_float(args, nums, "grad")
        out, vjp_fn, aux = _vjp_traced(_with_args(fun, args, nums, kwargs),
                                       tuple(args[n] for n in nums), has_aux)
        if not isinstance(out, Tracer) or out.shape != () or out.dtype.kind != "f":
            raise TracingError("grad requires a function returning a float scalar, got "
                               f"{getattr(out, 'shape', type(out).__name__)}; use vjp or jacrev "
                               "for other outputs")
        grads = vjp_fn(tnp.ones((), out.dtype))
        grads = grads[0] if isinstance(argnums, int) else grads
        return ((out, aux) if has_aux else out), grads

    value_and_grad_fun.__name__ = f"value_and_grad_{function_name(fun)}"
    return Jitted(value_and_grad_fun)


def grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Jitted:
    """Return a function computing the gradient of the scalar function ``fun``.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.grad(lambda x: (x ** 3).sum())(np.array([1.0, 2.0]))
    array([ 3., 12.])
    >>> ta.grad(ta.grad(lambda x: x ** 3))(2.0)
    array(12.)
    """
    both = value_and_grad(fun, argnums, has_aux)

    def grad_fun(*args, **kwargs):
        value, grads = both.fun(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    grad_fun.__name__ = f"grad_{function_name(fun)}"
    return Jitted(grad_fun)


def _jvp_traced(fun: Callable, primals: tuple, tangents: tuple):
    traced = _Traced(fun, primals)
    tangent_leaves = tree.flatten(tangents)[0]
    if len(tangent_leaves) != len(traced.inputs):
        raise TracingError("tangents must have the structure of the primals")
    chosen = {}
    for i in traced.float_inputs:
        t = tnp.astype(tnp.asarray(tangent_leaves[i]), traced.inputs[i].dtype)
        if t.shape != traced.inputs[i].shape:
            raise TracingError(f"tangent of shape {t.shape} for a primal of shape {traced.inputs[i].shape}")
        chosen[i] = t
    outs = traced.call()
    out_tangents = traced.pushforward(chosen) if chosen else \
        [tnp.zeros(s, d) for s, d in traced.out_avals]
    return tree.unflatten(traced.out_tree, outs), tree.unflatten(traced.out_tree, out_tangents)


def jvp(fun: Callable, primals: Sequence, tangents: Sequence):
    """Forward mode: return ``(fun(*primals), directional derivative along tangents)``.

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> ta.jvp(tnp.sin, (np.zeros(2),), (np.ones(2),))
    (array([0., 0.]), array([1., 1.]))
    """
    primals, tangents = tuple(primals), tuple(tangents)
    if _in_trace(tree.flatten((primals, tangents))[0]):
        return _jvp_traced(fun, primals, tangents)
    return _compiled(lambda p, t: _jvp_traced(fun, p, t), fun, ("jvp",))(primals, tangents)


def _single_argnum(argnums) -> int:
    if not isinstance(argnums, int):
        raise TracingError("jacobians take one argnums index; nest them for several")
    return argnums


def jacrev(fun: Callable, argnums: int = 0) -> Jitted:
    """Jacobian by reverse mode: one pullback of the identity cotangent (TVM's ``head``).

    The result has shape ``out.shape + input.shape`` (per leaf of the input pytree).

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jacrev(lambda x: x * 2.0)(np.ones(2))
    array([[2., 0.],
           [0., 2.]])
    """
    n = _single_argnum(argnums)

    def jacobian(*args, **kwargs):
        nums = _normalize_argnums(n, len(args))
        _check_float(args, nums, "jacrev")
        out, vjp_fn, _ = _vjp_traced(_with_args(fun, args, nums, kwargs), (args[nums[0]],), False)
        if not isinstance(out, Tracer):
            raise TracingError("jacrev needs a function returning one array")
        identity = tnp.reshape(tnp.eye(out.size, dtype=out.dtype), out.shape + out.shape)
        return vjp_fn(identity, prefix=out.shape)[0]

    jacobian.__name__ = f"jacrev_{function_name(fun)}"
    return Jitted(jacobian)


def jacfwd(fun: Callable, argnums: int = 0) -> Jitted:
    """Jacobian by forward mode: one pushforward of identity tangents.

    The result has shape ``out.shape + input.shape`` for an array input.

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> ta.jacfwd(lambda x: tnp.sum(x ** 2))(np.arange(3.0))
    array([0., 2., 4.])
    """
    n = _single_argnum(argnums)

    def jacobian(*args, **kwargs):
        nums = _normalize_argnums(n, len(args))
        _check_float(args, nums, "jacfwd")
        x = tnp.asarray(args[nums[0]])
        traced = _Traced(_with_args(fun, args, nums, kwargs), (x,))
        identity = tnp.reshape(tnp.eye(x.size, dtype=x.dtype), x.shape + x.shape)
        (tangent,) = traced.pushforward({0: identity}, prefix=x.shape)
        if len(traced.out_avals) != 1:
            raise TracingError("jacfwd needs a function returning one array")
        k = x.ndim  # move the batch prefix (input dims) behind the output dims
        return tnp.transpose(tangent, list(range(k, tangent.ndim)) + list(range(k)))

    jacobian.__name__ = f"jacfwd_{function_name(fun)}"
    return Jitted(jacobian)


def hessian(fun: Callable, argnums: int = 0) -> Jitted:
    """Hessian of a scalar function: ``jacfwd(jacrev(fun))``.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.hessian(lambda x: (x ** 3).sum())(np.array([1.0, 2.0]))
    array([[ 6.,  0.],
           [ 0., 12.]])
    """
    return jacfwd(jacrev(fun, argnums), argnums)


class custom_vjp:
    """A function with a user-supplied reverse-mode rule, as ``jax.custom_vjp``.

    ``fwd(*args) -> (out, residuals)`` and ``bwd(residuals, cotangent) ->
    tuple of one gradient per argument``. In IR the function carries
    ``tad.custom_vjp = @bwd`` where ``@bwd`` recomputes ``fwd``'s residuals.

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> @ta.custom_vjp
    ... def clipped_identity(x):
    ...     return x
    >>> clipped_identity.defvjp(lambda x: (x, None), lambda res, g: (tnp.clip(g, -1.0, 1.0),))
    >>> ta.grad(lambda x: (clipped_identity(x) * 5.0).sum())(np.ones(2))
    array([1., 1.])
    """

    def __init__(self, fun: Callable):
        self.fun = fun
        self.fwd = self.bwd = None
        self.__name__ = getattr(fun, "__name__", "custom_vjp")
        self.__doc__ = fun.__doc__

        def call(*args):
            return self._traced_call(*args)

        call.__name__ = function_name(fun)  # compiled on its own, the IR shows the user's name
        self._jitted = Jitted(call)

    def defvjp(self, fwd: Callable, bwd: Callable) -> None:
        """Set the forward (with residuals) and backward functions."""
        self.fwd, self.bwd = fwd, bwd

    def _traced_call(self, *args):
        if self.bwd is None:
            raise TracingError(f"{self.__name__}: call defvjp(fwd, bwd) before using it")
        traced = _Traced(self.fun, args)
        n_out = len(traced.out_avals)

        def backward(*inputs_and_cts):
            inputs = tree.unflatten(traced.in_tree, inputs_and_cts[:len(traced.inputs)])
            cotangent = tree.unflatten(traced.out_tree, inputs_and_cts[len(traced.inputs):])
            _, residuals = self.fwd(*inputs)
            grads = self._cotangent_leaves(self.bwd(residuals, cotangent), inputs)
            for i, (g, x) in enumerate(zip(grads, traced.inputs)):
                if g is not None and tuple(np.shape(g)) != tuple(x.shape):
                    raise TracingError(f"{self.__name__}: bwd's cotangent {i} has shape {tuple(np.shape(g))}, "
                                       f"but its input has shape {tuple(x.shape)}")
            return [tnp.zeros(x.shape, x.dtype) if g is None else tnp.astype(tnp.asarray(g), x.dtype)
                    for g, x in zip(grads, traced.inputs)]

        bwd_name, _, _, _ = trace_into(
            current_module(), backward,
            [(x.shape, x.dtype) for x in traced.inputs] + list(traced.out_avals[:n_out]),
            name=f"{traced.name}_bwd")
        module = current_module()
        for op in module.body.operations:
            if op.operation.name == "func.func" and op.attributes["sym_name"].value == traced.name:
                op.attributes["tad.custom_vjp"] = ir.FlatSymbolRefAttr.get(bwd_name)
        return tree.unflatten(traced.out_tree, traced.call())

    def _cotangent_leaves(self, cotangents, args: tuple) -> list:
        """The leaves of bwd's result, one per leaf of the arguments (None: a zero cotangent)."""
        cotangents = tuple(cotangents) if isinstance(cotangents, (tuple, list)) else (cotangents,)
        if len(cotangents) != len(args):
            raise TracingError(f"{self.__name__}: bwd must return a tuple with one cotangent per argument "
                               f"({len(args)}), got {len(cotangents)}")
        leaves = []
        for i, (ct, arg) in enumerate(zip(cotangents, args)):
            n_leaves = len(tree.flatten(arg)[0])
            ct_leaves = [None] * n_leaves if ct is None else tree.flatten(ct)[0]
            if len(ct_leaves) != n_leaves:
                raise TracingError(f"{self.__name__}: bwd's cotangent for argument {i} has {len(ct_leaves)} "
                                   f"arrays, but the argument has {n_leaves}")
            leaves += ct_leaves
        return leaves

    def __call__(self, *args):
        return self._jitted(*args)
