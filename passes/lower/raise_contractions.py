"""``tad-raise-contractions``: upstream linalg contractions become ``tad.dot_general``.

A ``linalg.matmul`` (any named contraction) or a ``linalg.generic`` whose
body is ``out + a * b`` over projected-permutation maps, every loop read by
an operand as a dot product reads it (batch: both inputs and the output;
contracting: both inputs; free: one input and the output), is the
contraction ``init + dot_general(a, b)`` with a transpose of its result.
Written that way it lowers like a traced contraction (``linalg.contract``
with its tuned tile schedule, never fused with its operands' producers) and
the remat cost model sees a contraction. A zero init (a fill of 0) adds
nothing. ``tad-jit-differentiate`` runs this pass after ``tad-differentiate``,
so that hand-written matmuls and the adjoint generics of their derivatives
run as fast as traced ones. Contractions with dynamic shapes, integer
elements or conversions in their body are left as they are.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
...   %z = arith.constant 0.0 : f32
...   %e = tensor.empty() : tensor<2x4xf32>
...   %c = linalg.fill ins(%z : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
...   %0 = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x4xf32>) outs(%c : tensor<2x4xf32>) -> tensor<2x4xf32>
...   return %0 : tensor<2x4xf32>
... }''', make_context())
>>> run_pipeline(m, "tad-raise-contractions")
>>> "tad.dot_general" in str(m) and "linalg.matmul" not in str(m)
True
"""

from __future__ import annotations

from typing import Optional

from mlir import ir, passmanager
from mlir.dialects import func

from tensorad.dialects import builder
from tensorad.dialects.families.linalg import operand_segments
from tensorad.dialects.record import Trait, has_trait
from tensorad.dialects.shapes import window_output_size

from ..walk import collect


def _generic_form(op: ir.Operation, module: Optional[ir.Module]) -> Optional[ir.Operation]:
    """``op`` itself for a generic; for a named op, its generic in the scratch ``module`` (a named op has no captures)."""
    if op.name == "linalg.generic":
        return op
    with ir.InsertionPoint(module.body):
        fn = func.FuncOp("scratch", ([v.type for v in op.operands], [r.type for r in op.results]))
        block = fn.add_entry_block()
        with ir.InsertionPoint(block):
            copy = op.clone()
            for i, arg in enumerate(block.arguments):
                copy.operands[i] = arg
            func.ReturnOp(list(copy.results))
    passmanager.PassManager.parse("builtin.module(func.func(linalg-generalize-named-ops))").run(module.operation)
    generic = collect(module.operation, lambda inner: inner.name == "linalg.generic")
    return generic[0] if len(generic) == 1 else None


def loop_dims(m: ir.AffineMap) -> Optional[list]:
    """The loop each result of ``m`` reads, if each is a plain loop index (a projected permutation); else None."""
    if not m.is_projected_permutation or any(not isinstance(e, ir.AffineDimExpr) for e in m.results):
        return None
    return [e.position for e in m.results]


def contraction_dims(op: ir.Operation) -> Optional[tuple]:
    """``(lhs dims, rhs dims, out dims)``: the loop each dim of each operand reads, for a contraction; None otherwise.

    A contraction is a ``linalg.contract``, or a ``linalg.generic`` computing
    ``out + lhs * rhs`` on floats of one type, of two static tensors into one,
    reading plain loop indices, each loop read by both inputs or by one
    input and the output (``tad-collapse-loops`` reads it too).
    """
    if op.name not in ("linalg.contract", "linalg.generic"):
        return None
    inputs, outputs = operand_segments(op)
    if len(inputs) != 2 or len(outputs) != 1:
        return None
    types = [v.type for v in inputs + outputs]
    if any(not isinstance(t, ir.RankedTensorType) or not t.has_static_shape for t in types):
        return None
    if op.name == "linalg.generic" and (
            len({t.element_type for t in types}) != 1 or not isinstance(types[0].element_type, ir.FloatType)
            or _body_operands(op) is None):
        return None
    maps = [loop_dims(ir.AffineMapAttr(m).value) for m in op.attributes["indexing_maps"]]
    if any(m is None for m in maps):
        return None
    lhs, rhs, result = maps
    for d in range(ir.AffineMapAttr(op.attributes["indexing_maps"][0]).value.n_dims):
        where = (d in lhs, d in rhs, d in result)
        if where not in ((True, True, True), (True, True, False), (True, False, True), (False, True, True)):
            return None  # a loop only one input reads and the output does not: not a dot product
    return lhs, rhs, result


def _linear(expr: ir.AffineExpr) -> Optional[dict]:
    """``{dim: coefficient, None: constant}`` of an affine expression that is linear; None otherwise."""
    if isinstance(expr, ir.AffineDimExpr):
        return {expr.position: 1}
    if isinstance(expr, ir.AffineConstantExpr):
        return {None: expr.value}
    if isinstance(expr, (ir.AffineAddExpr, ir.AffineMulExpr)):
        lhs, rhs = _linear(expr.lhs), _linear(expr.rhs)
        if lhs is None or rhs is None:
            return None
        if isinstance(expr, ir.AffineAddExpr):
            return {k: lhs.get(k, 0) + rhs.get(k, 0) for k in {**lhs, **rhs}}
        for scale, term in ((lhs, rhs), (rhs, lhs)):
            if set(scale) == {None}:
                return {k: v * scale[None] for k, v in term.items()}
    return None


def _window_read(form: Optional[dict], out_dim: int, tap_dim: int) -> Optional[tuple]:
    """``(stride, dilation)`` when ``form`` is ``out * stride + tap * dilation``."""
    if form is None or form.get(None, 0) != 0 or set(form) - {None} != {out_dim, tap_dim}:
        return None
    return form[out_dim], form[tap_dim]


def _convolution(generic: ir.Operation) -> Optional[tuple]:
    """``(data, weight, strides, dilation)`` of a generic computing an NCHW x OIHW convolution (no padding)."""
    inputs, outputs = operand_segments(generic)
    if len(inputs) != 2 or len(outputs) != 1 or _body_operands(generic) is None:
        return None
    types = [v.type for v in inputs + outputs]
    if any(not isinstance(t, ir.RankedTensorType) or not t.has_static_shape or t.rank != 4 for t in types):
        return None
    maps = [ir.AffineMapAttr(m).value for m in generic.attributes["indexing_maps"]]
    out = loop_dims(maps[2])
    if out is None or len(set(out)) != 4 or maps[2].n_dims != 7:
        return None
    n, f, y, x = out
    for data, weight in ((0, 1), (1, 0)):
        taps = loop_dims(maps[weight])
        if taps is None or taps[0] != f:
            continue
        c, ky, kx = taps[1:]
        forms = [_linear(e) for e in maps[data].results]
        if forms[0] != {n: 1} or forms[1] != {c: 1}:
            continue
        rows, cols = _window_read(forms[2], y, ky), _window_read(forms[3], x, kx)
        if rows is None or cols is None or min(rows + cols) < 1:
            continue
        strides, dilation = (rows[0], cols[0]), (rows[1], cols[1])
        (batch, _, h, w), (o, _, kh, kw) = types[data].shape, types[weight].shape
        expected = (batch, o, window_output_size(h, kh, strides[0], 0, 0, dilation[0]),
                    window_output_size(w, kw, strides[1], 0, 0, dilation[1]))
        if tuple(types[2].shape) == expected:
            return inputs[data], inputs[weight], strides, dilation
    return None


def _body_operands(generic: ir.Operation) -> Optional[tuple]:
    """The block arguments ``(a, b)`` of a body computing ``out + a * b``; None for any other body."""
    block = generic.regions[0].blocks[0]
    if len(block.arguments) != 3:
        return None
    a, b, out = block.arguments
    ops = [o.operation for o in block.operations]
    if [o.name for o in ops] != ["arith.mulf", "arith.addf", "linalg.yield"]:
        return None
    mul, add, done = ops
    if set(mul.operands) != {a, b} or a == b or set(add.operands) != {out, mul.results[0]} \
            or list(done.operands) != [add.results[0]]:
        return None
    return a, b


def _is_zero(value: ir.Value) -> bool:
    """Whether ``value`` is a tensor of zeros: a fill of 0, or a zero constant."""
    owner = value.owner
    if not isinstance(owner, (ir.Operation, ir.OpView)):
        return False
    owner = owner.operation
    if owner.name == "tad.constant":
        return builder.splat_value(value).value == 0
    if owner.name == "arith.constant":
        attr = owner.attributes["value"]
        if isinstance(attr, ir.DenseElementsAttr):
            return attr.is_splat and attr.get_splat_value().value == 0
        return isinstance(attr, ir.FloatAttr) and attr.value == 0
    if owner.name == "linalg.fill" or (owner.name == "linalg.generic" and _copies_a_scalar(owner)):
        return _is_zero(operand_segments(owner)[0][0])
    return False


def _copies_a_scalar(generic: ir.Operation) -> bool:
    """Whether a generic fills its output with its one scalar input (a generalized ``linalg.fill``)."""
    inputs, _ = operand_segments(generic)
    ops = list(generic.regions[0].blocks[0].operations)
    return (len(inputs) == 1 and not isinstance(inputs[0].type, ir.ShapedType) and len(ops) == 1
            and list(ops[0].operands) == [generic.regions[0].blocks[0].arguments[0]])


def _raise(op: ir.Operation, dims: tuple) -> None:
    lhs_dims, rhs_dims, out_dims = dims
    (lhs, rhs), (init,) = operand_segments(op)
    batch = [d for d in out_dims if d in lhs_dims and d in rhs_dims]
    contracting = [d for d in lhs_dims if d in rhs_dims and d not in out_dims]
    lhs_free = [d for d in lhs_dims if d not in rhs_dims]
    rhs_free = [d for d in rhs_dims if d not in lhs_dims]
    with ir.InsertionPoint(op), op.location:
        result = builder.dot_general(lhs, rhs, [lhs_dims.index(d) for d in batch],
                                     [rhs_dims.index(d) for d in batch],
                                     [lhs_dims.index(d) for d in contracting],
                                     [rhs_dims.index(d) for d in contracting])
        order = batch + lhs_free + rhs_free
        permutation = [order.index(d) for d in out_dims]
        if permutation != sorted(permutation):
            result = builder.transpose(result, permutation)
        if not _is_zero(init):
            result = builder.wrap(init) + result
    op.results[0].replace_all_uses_with(result)
    op.erase()


def _raise_convolution(op: ir.Operation, generic: ir.Operation, convolution: tuple) -> None:
    data, weight, strides, dilation = convolution
    if generic is not op:  # a named convolution: its operands, not the scratch copy's
        inputs = operand_segments(generic)[0]
        data, weight = (op.operands[inputs.index(v)] for v in (data, weight))
    init = operand_segments(op)[1][0]
    with ir.InsertionPoint(op), op.location:
        result = builder.conv2d(data, weight, strides, (0, 0, 0, 0), dilation)
        if not _is_zero(init):
            result = builder.wrap(init) + result
    op.results[0].replace_all_uses_with(result)
    op.erase()


def run(op: ir.Operation, pass_) -> None:
    """Raise every contraction inside ``op`` (a ``builtin.module``) to ``tad.dot_general``."""
    candidates = collect(op, lambda inner: inner.name == "linalg.generic"
                         or has_trait(inner, Trait.GENERALIZABLE))
    for candidate in candidates:
        # A named op is read in its generic form, in a scratch module kept alive while it is read.
        scratch = None if candidate.name == "linalg.generic" else ir.Module.create()
        generic = _generic_form(candidate, scratch)
        if generic is None:
            continue
        dims = contraction_dims(generic)
        if dims is not None:
            _raise(candidate, dims)
            continue
        convolution = _convolution(generic)
        if convolution is not None:
            _raise_convolution(candidate, generic, convolution)
