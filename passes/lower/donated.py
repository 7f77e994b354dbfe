"""Donated arguments: buffers the caller gives up, written and returned in place.

An argument of a public function marked ``tad.donated`` (``jit(...,
donate_argnums=...)``) is a buffer the caller will not read again: the
function may write into it and may return it (a result aliasing it is the
caller's to keep). The mark asks for no copy of its own; two passes use it:

* ``tad-write-into-donated`` (on tensors, after elementwise fusion, before
  tiling): the last op to read a donated argument, when it is an all-parallel
  ``linalg.generic`` that reads the argument element by element where it
  writes a fresh result of the same type, writes into the argument instead
  (the argument becomes that result's init; the payload reads the init).
  Bufferization then does it in place where it is safe — the argument is
  ``bufferization.writable`` — and copies where it is not;
* ``tad-return-donated`` (on buffers, after deallocation, before
  ``convert-bufferization-to-memref``): ownership-based deallocation hands
  a result that is an argument back as a ``bufferization.clone`` (a new
  buffer and a copy), because arguments are not the function's to give;
  a donated one is, so the clone goes and the argument is returned.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... #id = affine_map<(d0) -> (d0)>
... func.func @f(%x: tensor<4xf64> {tad.donated}) -> tensor<4xf64> {
...   %e = tensor.empty() : tensor<4xf64>
...   %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
...       ins(%x : tensor<4xf64>) outs(%e : tensor<4xf64>) {
...   ^bb0(%a: f64, %b: f64):
...     %1 = arith.mulf %a, %a : f64
...     linalg.yield %1 : f64
...   } -> tensor<4xf64>
...   return %0 : tensor<4xf64>
... }''', make_context())
>>> run_pipeline(m, "tad-write-into-donated")
>>> "outs(%arg0 : tensor<4xf64>)" in str(m)
True
"""

from __future__ import annotations

from mlir import ir

from tensorad.dialects.record import Trait, has_trait

#: The argument attribute that marks a donated buffer.
DONATED = "tad.donated"
_PARALLEL = "#linalg.iterator_type<parallel>"


def donated_arguments(func: ir.Operation) -> list:
    """The block arguments of ``func`` (a ``func.func`` with a body) marked ``tad.donated``."""
    if "arg_attrs" not in func.attributes or not func.regions[0].blocks:
        return []
    arguments = func.regions[0].blocks[0].arguments
    return [arguments[i] for i, attrs in enumerate(ir.ArrayAttr(func.attributes["arg_attrs"]))
            if DONATED in ir.DictAttr(attrs)]


def _functions(module: ir.Operation) -> list:
    return [op.operation for op in module.regions[0].blocks[0].operations if op.operation.name == "func.func"]


def _ancestor_in(op: ir.Operation, block: ir.Block):
    """The op of ``block`` that is ``op`` or contains it; None if ``op`` is elsewhere."""
    while op is not None:
        if op.block == block:
            return op
        parent = op.parent
        op = parent.operation if parent is not None and parent.name != "builtin.module" else None
    return None


def _views_of(value: ir.Value) -> list:
    """``value`` and every value that views its storage through ops with the VIEW trait."""
    seen, todo = [], [value]
    while todo:
        v = todo.pop()
        if any(v == s for s in seen):
            continue
        seen.append(v)
        for use in v.uses:
            if has_trait(use.owner.name, Trait.VIEW):
                todo.extend(use.owner.results)
    return seen


def _last_reader(argument: ir.Value, block: ir.Block):
    """The last op of ``block`` that uses ``argument`` or a view of it, and whether it uses only ``argument``."""
    order = {op.operation: i for i, op in enumerate(block.operations)}
    last, direct = None, True
    for value in _views_of(argument):
        for use in value.uses:
            user = _ancestor_in(use.owner.operation, block)
            if user is None:
                continue
            if last is None or order[user] > order[last]:
                last, direct = user, value == argument and user == use.owner.operation
            elif user == last:
                direct = direct and value == argument and user == use.owner.operation
    return last, direct


def _write_into(generic: ir.Operation, argument: ir.Value) -> bool:
    """Make the all-parallel ``generic`` write into ``argument``, which it reads where it writes; True if done."""
    if generic.name != "linalg.generic" or any(str(t) != _PARALLEL for t in generic.attributes["iterator_types"]):
        return False
    n_in, n_out = list(ir.DenseI32ArrayAttr(generic.attributes["operandSegmentSizes"]))
    maps = [ir.AffineMapAttr(m).value for m in generic.attributes["indexing_maps"]]
    operands = list(generic.operands)
    reads = [i for i, v in enumerate(operands) if v == argument]
    if not reads or any(i >= n_in or maps[i] != maps[reads[0]] for i in reads) or not maps[reads[0]].is_permutation:
        return False
    body = generic.regions[0].blocks[0]
    outputs = [k for k in range(n_in, n_in + n_out)
               if maps[k] == maps[reads[0]] and operands[k].type == argument.type
               and not list(body.arguments[k].uses)]  # the init is not read: a fresh result
    if not outputs:
        return False
    out = outputs[0]
    kept = [i for i in range(n_in + n_out) if i not in reads]
    attributes = {name: generic.attributes[name] for name in generic.attributes}
    attributes["indexing_maps"] = ir.ArrayAttr.get([ir.AffineMapAttr.get(maps[i]) for i in kept])
    attributes["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get([n_in - len(reads), n_out])
    new_operands = [argument if i == out else operands[i] for i in kept]
    replacement = ir.Operation.create("linalg.generic", results=[r.type for r in generic.results],
                                      operands=new_operands, attributes=attributes, regions=1,
                                      loc=generic.location, ip=ir.InsertionPoint(generic))
    for i in reads:
        body.arguments[i].replace_all_uses_with(body.arguments[out])
    for i in reversed(reads):
        body.erase_argument(i)
    body.append_to(replacement.regions[0])
    for old, new in zip(generic.results, replacement.results):
        old.replace_all_uses_with(new)
    generic.erase()
    return True


def write_into(op: ir.Operation, pass_) -> None:
    """``tad-write-into-donated``: the last elementwise reader of each donated argument writes into it."""
    with op.context, op.location:
        for func in _functions(op):
            for argument in donated_arguments(func):
                block = func.regions[0].blocks[0]
                last, direct = _last_reader(argument, block)
                if last is not None and direct:
                    _write_into(last, argument)


def return_in_place(op: ir.Operation, pass_) -> None:
    """``tad-return-donated``: a donated argument is returned as it is, not as a clone."""
    for func in _functions(op):
        for argument in donated_arguments(func):
            block = func.regions[0].blocks[0]
            ops = [o.operation for o in block.operations]
            order = {o: i for i, o in enumerate(ops)}
            aliases = _views_of(argument)
            last_touch = max((order[user] for value in aliases for use in value.uses
                              if (user := _ancestor_in(use.owner.operation, block)) is not None
                              and user.name != "bufferization.clone"), default=-1)
            for clone in [o for o in ops if o.name == "bufferization.clone"]:
                source, result = clone.operands[0], clone.results[0]
                users = [use.owner.operation for use in result.uses]
                # Only a clone handed straight to the return, taken after the last write of the buffer.
                if any(source == a for a in aliases) and source.type == result.type \
                        and order[clone] > last_touch and users and all(u.name == "func.return" for u in users):
                    result.replace_all_uses_with(source)
                    clone.erase()
