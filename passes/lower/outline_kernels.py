"""``tad-outline-repeated-kernels``: compile each repeated linalg op once, as a function it is called from.

An unrolled loop (a Python loop of N recurrent cells, a chain of identical
layers) repeats the same ops on values of the same types. In place, every copy
is tiled, vectorized, bufferized, lowered and optimized by LLVM on its own:
compile time grows with N at a large constant. This pass moves each linalg op
with static shapes into a private function, a kernel, one per distinct op
(the same op, attributes, body and types, operands aside), and calls it
wherever the op was, as XLA compiles a while loop's body once. The rest of
``tad-lower-to-llvm`` then compiles each kernel once, and the repeated code is
a sequence of calls.

It does so only where it pays: when the distinct ops are at most half of all
the ops, else the function is left as it is (a function without repeats
keeps every op among its neighbours, and compiles to what it did before).
A kernel's operands are its arguments; constants its body reads from the
enclosing function are copied into it; an op whose body reads any other
value from outside stays in place. Kernels are marked ``noinline`` (LLVM
would otherwise copy a small one back into every caller) and, unless a
buffer is empty, ``llvm.bareptr``: their buffers have static shapes and,
bufferized at the function boundary, the identity layout, so a call passes
one pointer per buffer rather than its descriptor's 3 + 2 * rank fields (on
a 64-step recurrence that is a third of the caller's LLVM IR); a function left
with nothing but calls, buffers and control flow is marked ``optnone``: its
code runs once per call of a kernel, and optimizing a long list of calls
would cost LLVM more than it could save. ``tad-lower-to-llvm`` runs this pass
after elementwise fusion and before ``tad-tile-and-vectorize``.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
...   %e = tensor.empty() : tensor<4xf32>
...   %0 = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
...   %1 = linalg.exp ins(%0 : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
...   %2 = linalg.exp ins(%1 : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
...   %3 = linalg.negf ins(%2 : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
...   return %3 : tensor<4xf32>
... }''', make_context())
>>> run_pipeline(m, "tad-outline-repeated-kernels")
>>> text = str(m)
>>> text.count("call @__tad_kernel_0("), text.count("linalg.exp"), "optnone" in text
(3, 1, True)
"""

from __future__ import annotations

import itertools

from mlir import ir
from mlir.dialects import func

from ..walk import collect, defined_outside, defining_op

KERNEL_PREFIX = "__tad_kernel_"
_PLACEHOLDER = "__tad_kernel"


class _Outlined:
    """One op moved into a kernel of its own: the call that replaced it, the kernel, and the op."""

    def __init__(self, op: ir.Operation, module_body: ir.Block):
        self.op = op
        operands = list(op.operands)
        with ir.InsertionPoint(op), op.location:
            self.call = func.CallOp([r.type for r in op.results], _PLACEHOLDER, operands).operation
        for result, replacement in zip(op.results, self.call.results):
            result.replace_all_uses_with(replacement)
        with ir.InsertionPoint(module_body), op.location:
            self.kernel = func.FuncOp(_PLACEHOLDER, ([v.type for v in operands], [r.type for r in op.results]),
                                      visibility="private")
            block = self.kernel.add_entry_block()
        with ir.InsertionPoint(block), op.location:
            returned = func.ReturnOp(list(op.results))
        op.move_before(returned)
        for i, argument in enumerate(block.arguments):
            op.operands[i] = argument
        copies: list = []  # (constant outside, its copy inside)
        for inner, number, constant in _captured_constants(op):
            copy = next((c for original, c in copies if original == constant), None)
            if copy is None:
                copy = constant.clone(ip=ir.InsertionPoint(op))
                copies.append((constant, copy))
            inner.operands[number] = copy.results[0]
        self.kernel = self.kernel.operation

    def key(self) -> str:
        """The kernel's text: equal for two ops that compute the same function of their operands."""
        return self.kernel.get_asm(use_local_scope=True, assume_verified=True)

    def put_back(self) -> None:
        """Undo the outlining: the op (and the constants copied for it) back in place of the call."""
        block = self.kernel.regions[0].blocks[0]
        for i, operand in enumerate(self.call.operands):  # the kernel's arguments, in order
            self.op.operands[i] = operand
        for inner in list(block.operations)[:-1]:
            inner.operation.move_before(self.call)
        for result, value in zip(self.call.results, self.op.results):
            result.replace_all_uses_with(value)
        self.call.erase()
        self.kernel.erase()


def _captured_constants(op: ir.Operation) -> list:
    """``(op inside, operand number, arith.constant outside)`` for each constant from outside read in ``op``.

    Found from the reading side: the constant's own uses run over the whole
    function, and walking them per op would cost the square of its length.
    """
    found = []
    for inner in collect(op):
        if inner == op:
            continue
        for number, value in enumerate(inner.operands):
            definer = defining_op(value)
            if definer is not None and defined_outside(value, op):
                found.append((inner, number, definer))
    return found


def _outlinable(op: ir.Operation) -> bool:
    """A linalg op on static shapes whose regions read nothing from outside but constants."""
    if not op.results:
        return False
    for value in (*op.operands, *op.results):
        t = value.type
        if isinstance(t, ir.ShapedType) and not (isinstance(t, ir.RankedTensorType) and t.has_static_shape):
            return False
    for inner in collect(op):
        if inner == op:
            continue
        for value in inner.operands:
            if defined_outside(value, op):
                definer = defining_op(value)
                if definer is None or definer.name != "arith.constant":
                    return False
    return True


def run(op: ir.Operation, pass_) -> None:
    """Outline every linalg op inside ``op`` (a ``builtin.module``) that occurs twice or more into a kernel."""
    body = op.regions[0].blocks[0]
    functions = [f for f in body.operations if f.operation.name == "func.func"]
    candidates = [inner for f in functions for inner in collect(f.operation, _is_candidate, prune=_is_candidate)
                  if _outlinable(inner)]
    groups: dict = {}
    for candidate in candidates:
        outlined = _Outlined(candidate, body)
        groups.setdefault(outlined.key(), []).append(outlined)
    if 2 * len(groups) > len(candidates):  # too few repeats to pay for the calls and the copies at them
        for members in groups.values():
            for outlined in members:
                outlined.put_back()
        return
    taken = {f.operation.attributes["sym_name"].value for f in functions}
    names = (name for name in (f"{KERNEL_PREFIX}{i}" for i in itertools.count()) if name not in taken)
    for members, name in zip(groups.values(), names):
        first = members[0]
        first.kernel.attributes["sym_name"] = ir.StringAttr.get(name)
        add_passthrough(first.kernel, "noinline")
        if _takes_bare_pointers(first.kernel):
            first.kernel.attributes["llvm.bareptr"] = ir.UnitAttr.get()
        for member in members:
            member.call.attributes["callee"] = ir.FlatSymbolRefAttr.get(name)
            if member is not first:
                member.kernel.erase()
    found = {function: collect(function.operation, lambda inner: inner.name == "func.call" or _computes(inner))
             for function in functions}
    # A function that another one calls (a library's kernel) is compiled with the code that calls it:
    # an optnone function is host code, which the kernels' code cannot call (tensorad.host_code).
    called = {ir.FlatSymbolRefAttr(inner.attributes["callee"]).value
              for inners in found.values() for inner in inners if inner.name == "func.call"}
    for function, inners in found.items():
        if function.attributes["sym_name"].value not in called and not any(map(_computes, inners)):
            # Only calls, buffers and loops over them are left: LLVM need not optimize them.
            add_passthrough(function.operation, "noinline", "optnone")


def _takes_bare_pointers(kernel: ir.Operation) -> bool:
    """Whether every tensor ``kernel`` takes or returns can be passed as a bare pointer.

    Each has a static shape and (bufferized at the function boundary) the
    identity layout, so a call passes one pointer per buffer, not its
    exploded descriptor; upstream's function lowering refuses an empty one
    (a dim of size 0), which keeps its descriptor.
    """
    signature = ir.FunctionType(ir.TypeAttr(kernel.attributes["function_type"]).value)
    return all(0 not in t.shape for t in [*signature.inputs, *signature.results]
               if isinstance(t, ir.RankedTensorType))


def has_passthrough(function: ir.Operation, name: str) -> bool:
    """Whether ``function`` (a ``func.func`` or ``llvm.func``) has LLVM function attribute ``name`` in its ``passthrough``."""
    if "passthrough" not in function.attributes:
        return False
    return any(isinstance(a, ir.StringAttr) and a.value == name for a in function.attributes["passthrough"])


def add_passthrough(function: ir.Operation, *names: str) -> None:
    """Add LLVM function attributes ``names`` to ``function``'s ``passthrough`` (which the LLVM dialect keeps)."""
    old = list(function.attributes["passthrough"]) if "passthrough" in function.attributes else []
    have = {a.value for a in old if isinstance(a, ir.StringAttr)}
    function.attributes["passthrough"] = ir.ArrayAttr.get(old + [ir.StringAttr.get(n) for n in names if n not in have])


def _computes(inner: ir.Operation) -> bool:
    """Whether ``inner`` is a loop nest of its own (a linalg op, a tensor.pad, ...) rather than control flow."""
    return bool(len(inner.regions)) and not inner.name.startswith(("scf.", "func."))


def _is_candidate(inner: ir.Operation) -> bool:
    """A linalg op with a body (not ``linalg.yield`` or ``linalg.index`` inside one)."""
    return inner.name.startswith("linalg.") and len(inner.regions) == 1
