"""Host code compiled apart from kernels, without optimization.

``tad-outline-repeated-kernels`` leaves an unrolled program's caller with
kernel calls only and marks it ``optnone``, as ``tad-split-long-functions``
marks its chunks: tens of thousands of instructions that LLVM could not
make faster. MLIR's ExecutionEngine optimizes a module at one level, with a
pass pipeline that has no instrumentation to skip ``optnone`` functions, so
that code went through -O3 with the kernels: most of the optimizer's time
on a 128-step recurrent gradient (3–4 s of it). :func:`split_host_code`
moves those functions into a module of their own, which
:class:`tensorad.runtime.Executable` compiles at -O0, its calls bound to
the kernels' addresses in the other module's engine.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> m = ir.Module.parse('''
... llvm.func @kernel(%x: i64) -> i64 {
...   %y = llvm.add %x, %x : i64
...   llvm.return %y : i64
... }
... llvm.func @caller(%x: i64) -> i64 attributes {passthrough = ["noinline", "optnone"]} {
...   %y = llvm.call @kernel(%x) : (i64) -> i64
...   llvm.return %y : i64
... }''', make_context())
>>> host, kernels, imported = split_host_code(m)
>>> imported, [f.attributes["sym_name"].value for f in kernels.body.operations]
(['kernel'], ['kernel'])
>>> [(f.attributes["sym_name"].value, len(f.regions[0].blocks)) for f in host.body.operations]
[('caller', 1), ('kernel', 0)]
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Optional, Sequence

from mlir import ir
from mlir.dialects import llvm

from .passes.lower.outline_kernels import has_passthrough

C_INTERFACE_PREFIX = "_mlir_ciface_"
# A function of the kernels' module that stores the address of each imported symbol, in order, at its
# argument: the engine looks up only the packed wrappers of functions, which the host code cannot call.
ADDRESS_TABLE = "__tad_host_imports"


def split_host_code(module: ir.Module) -> Optional[tuple]:
    """``(host, kernels, imported)``: ``module`` (LLVM dialect) as two modules, or None if it has no host code.

    ``host`` holds the ``optnone`` functions and their C interfaces, and a
    declaration of each symbol of ``kernels`` they use; ``imported`` names
    those that ``kernels`` defines (:func:`split_kernels` gives each part of
    ``kernels`` a function ``ADDRESS_TABLE`` that stores their addresses);
    ``kernels`` holds everything else. ``module`` is left as it is.
    """
    defined = [op for op in module.body.operations
               if op.operation.name == "llvm.func" and len(op.regions[0].blocks)]
    host_names = {op.attributes["sym_name"].value for op in defined if has_passthrough(op.operation, "optnone")}
    if not host_names:
        return None
    host_names |= {op.attributes["sym_name"].value for op in defined
                   if op.attributes["sym_name"].value.startswith(C_INTERFACE_PREFIX)
                   and op.attributes["sym_name"].value[len(C_INTERFACE_PREFIX):] in host_names}
    copy = module.operation.clone()
    with module.context, module.operation.location:
        host, kernels = ir.Module.create(), ir.Module.create()
    for part in (host, kernels):
        _copy_module_attributes(module, part)
    for op in list(copy.regions[0].blocks[0].operations):
        name = op.attributes["sym_name"].value if "sym_name" in op.attributes else None
        (host if name in host_names else kernels).body.append(op.operation)
    copy.erase()
    _inline_into_c_interfaces(host)
    used = _references(host)
    imported = []
    external = ir.Attribute.parse("#llvm.linkage<external>", module.context)
    for op in kernels.body.operations:
        name = op.attributes["sym_name"].value if "sym_name" in op.attributes else None
        if name not in used:
            continue
        with module.context, op.location, ir.InsertionPoint(host.body):
            if op.operation.name == "llvm.func":
                if len(op.regions[0].blocks):
                    imported.append(name)
                llvm.LLVMFuncOp(name, op.attributes["function_type"], linkage=external)
            elif op.operation.name == "llvm.mlir.global":
                imported.append(name)
                llvm.GlobalOp(op.attributes["global_type"], name, external)
    return host, kernels, imported


@dataclass
class KernelPart:
    """One module of the kernels, compiled in an engine of its own.

    Attributes
    ----------
    module : mlir.ir.Module
        Its functions and globals, a declaration of each symbol it uses from
        elsewhere, and ``ADDRESS_TABLE``.
    exports : list of str
        The symbols it defines that the host code or another part uses, in
        the order its ``ADDRESS_TABLE`` stores their addresses.
    imports : list of str
        The symbols it uses from the first part: that part is compiled
        first, and these are bound to its addresses.
    """

    module: ir.Module
    exports: list
    imports: list


def split_kernels(kernels: ir.Module, exported: Sequence[str], parts: int) -> list:
    """``kernels`` (from :func:`split_host_code`, consumed) as up to ``parts`` + 1 :class:`KernelPart` s.

    LLVM optimizes and generates code for a module on one thread; parts in
    engines of their own compile at once on as many. Every function or
    global that no other one uses (a kernel the host code calls) is a root,
    and what a root alone uses goes with it; the roots go to ``parts``
    parts by size, the largest first into the smallest part. What two roots
    use (the thread pool's launch protocol, with its one mailbox, and
    anything else shared) goes to a first part, which the others import
    from and which is compiled before them. With ``parts`` < 2, a top-level
    op without a symbol, or fewer than two roots, the result is one part:
    ``kernels`` whole.

    Examples
    --------
    Two kernels that share a helper: the helper is the first part, each
    kernel a part of its own that imports it.

    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse(\'\'\'
    ... llvm.func internal @twice(%x: i64) -> i64 {
    ...   %y = llvm.add %x, %x : i64
    ...   llvm.return %y : i64
    ... }
    ... llvm.func @k1(%x: i64) -> i64 {
    ...   %y = llvm.call @twice(%x) : (i64) -> i64
    ...   llvm.return %y : i64
    ... }
    ... llvm.func @k2(%x: i64) -> i64 {
    ...   %y = llvm.call @twice(%x) : (i64) -> i64
    ...   %z = llvm.mul %y, %y : i64
    ...   llvm.return %z : i64
    ... }\'\'\', make_context())
    >>> [(part.exports, part.imports) for part in split_kernels(m, ["k1", "k2"], parts=2)]
    [(['twice'], []), (['k2'], ['twice']), (['k1'], ['twice'])]
    """
    definitions, declarations = {}, {}
    for op in kernels.body.operations:
        if "sym_name" not in op.attributes:
            return [_whole(kernels, exported)]
        (definitions if _defines(op) else declarations)[op.attributes["sym_name"].value] = op
    uses = {name: _references(op) for name, op in definitions.items()}
    used = {other for name, names in uses.items() for other in names if other != name}
    roots = [name for name in definitions if name not in used]
    reach = {root: _closure(root, uses, definitions) for root in roots}
    counts = Counter(name for names in reach.values() for name in names)
    # Used by two roots, or by none (a cycle that no root reaches): the first part.
    first = {name for name in definitions if counts[name] != 1}
    groups = [reach[root] - first for root in roots]
    if parts < 2 or len(groups) < 2:
        return [_whole(kernels, exported)]
    size = {name: _op_count(op) for name, op in definitions.items()}
    bins = [set() for _ in range(min(parts, len(groups)))]
    for group in sorted(groups, key=lambda names: -sum(size[name] for name in names)):
        min(bins, key=lambda names: sum(size[name] for name in names)).update(group)
    imports = [sorted({other for name in names for other in uses[name] if other in first}) for names in bins]
    wanted = set(exported).union(*imports)
    external = ir.Attribute.parse("#llvm.linkage<external>", kernels.context)
    result = []
    for names, imported in zip([first] + bins, [[]] + imports):
        with kernels.context, kernels.operation.location:
            module = ir.Module.create()
        _copy_module_attributes(kernels, module)
        needed = {other for name in names for other in uses[name]}
        with kernels.context, kernels.operation.location, ir.InsertionPoint(module.body):
            for name, op in declarations.items():
                if name in needed:
                    op.operation.clone()
            for name in imported:
                _declare(definitions[name], external)
        for name, op in definitions.items():
            if name in names:
                if name in wanted and name in first:  # used from another module: no longer internal to this one
                    op.attributes["linkage"] = external
                module.body.append(op.operation)
        exports = [name for name in definitions if name in names and name in wanted]
        with kernels.context, kernels.operation.location, ir.InsertionPoint(module.body):
            _define_address_table(exports)
        result.append(KernelPart(module, exports, imported))
    return result


def _whole(kernels: ir.Module, exported: Sequence[str]) -> KernelPart:
    """``kernels`` as one part, with the address table of ``exported``."""
    with kernels.context, kernels.operation.location, ir.InsertionPoint(kernels.body):
        _define_address_table(list(exported))
    return KernelPart(kernels, list(exported), [])


def _copy_module_attributes(source: ir.Module, target: ir.Module) -> None:
    """Give ``target`` the data layout and target triple of ``source``."""
    for name in ("llvm.data_layout", "llvm.target_triple"):
        if name in source.operation.attributes:
            target.operation.attributes[name] = source.operation.attributes[name]


def _defines(op: ir.Operation) -> bool:
    """Whether the top-level ``op`` defines its symbol (a function with a body, a global with a value)."""
    if op.operation.name == "llvm.func":
        return len(op.regions[0].blocks) > 0
    if op.operation.name == "llvm.mlir.global":
        return "value" in op.attributes or len(op.regions[0].blocks) > 0 or \
            str(op.attributes["linkage"]) != "#llvm.linkage<external>"
    return True


def _declare(op: ir.Operation, linkage: ir.Attribute) -> None:
    """Declare the function or global that ``op`` defines, at the insertion point."""
    name = op.attributes["sym_name"].value
    if op.operation.name == "llvm.func":
        llvm.LLVMFuncOp(name, op.attributes["function_type"], linkage=linkage)
    else:
        llvm.GlobalOp(op.attributes["global_type"], name, linkage)


def _closure(root: str, uses: dict, definitions: dict) -> set:
    """``root`` and the definitions it uses, directly or through others."""
    seen, stack = {root}, [root]
    while stack:
        for other in uses[stack.pop()]:
            if other in definitions and other not in seen:
                seen.add(other)
                stack.append(other)
    return seen


def _op_count(op: ir.Operation) -> int:
    """Ops in the blocks of ``op``'s regions (an LLVM function's body is flat): what its compile time grows with."""
    return 1 + sum(len(block.operations) for region in op.regions for block in region.blocks)


def _define_address_table(symbols: list) -> None:
    """Define ``ADDRESS_TABLE(ptr)``: stores the address of each of ``symbols`` at the pointer, in order."""
    pointer = llvm.PointerType.get()
    table = llvm.LLVMFuncOp(ADDRESS_TABLE, ir.TypeAttr.get(ir.Type.parse("!llvm.func<void (ptr)>")))
    entry = table.regions[0].blocks.append(pointer)
    with ir.InsertionPoint(entry):
        for k, symbol in enumerate(symbols):
            address = llvm.AddressOfOp(pointer, symbol).result
            llvm.StoreOp(address, llvm.GEPOp(pointer, entry.arguments[0], [], [k], pointer, None).result)
        llvm.ReturnOp()


def _inline_into_c_interfaces(host: ir.Module) -> None:
    """Move each function of ``host`` that only its C interface calls into that interface.

    The entry takes every field of every memref descriptor as an argument
    and returns all its results as one struct (390 arguments and a struct of
    65 descriptors for a 32-layer gradient); its C interface unpacks the
    descriptors to call it and stores the struct. Code generation of such a
    call and return, which the -O0 engine still runs through LLVM's
    SelectionDAG and greedy register allocator, took three quarters of the
    host code's compile time. Inlined, the arguments are read where they are
    used and nothing is passed.
    """
    functions = {op.attributes["sym_name"].value: op for op in host.body.operations
                 if op.operation.name == "llvm.func" and len(op.regions[0].blocks)}
    calls: dict = {}

    def visit(op):
        if op.name == "llvm.call" and "callee" in op.attributes:
            calls.setdefault(ir.FlatSymbolRefAttr(op.attributes["callee"]).value, []).append(op)
        elif op.name == "llvm.mlir.addressof":  # a function whose address is taken is not inlined
            calls.setdefault(ir.FlatSymbolRefAttr(op.attributes["global_name"]).value, []).append(None)
        return ir.WalkResult.ADVANCE

    host.operation.walk(visit)
    for name, interface in functions.items():
        callee = functions.get(name[len(C_INTERFACE_PREFIX):]) if name.startswith(C_INTERFACE_PREFIX) else None
        sites = calls.get(name[len(C_INTERFACE_PREFIX):], [])
        if callee is None or len(sites) != 1 or sites[0] is None or sites[0].parent != interface.operation:
            continue
        if _inline(sites[0], callee):
            callee.erase()


def _inline(call: ir.Operation, callee: ir.Operation) -> bool:
    """Replace ``call`` by the body of ``callee``, whose blocks move to the caller; whether it did.

    Only a callee whose blocks end in ``llvm.br`` without operands, but one
    that ends in its single ``llvm.return``, is inlined: no value crosses a
    block boundary through arguments, so moving the blocks keeps every
    definition before its uses.
    """
    blocks = list(callee.regions[0].blocks)
    ends = [list(block.operations)[-1] for block in blocks]
    returns = [end for end in ends if end.name == "llvm.return"]
    if (len(returns) != 1 or any(block.arguments for block in blocks[1:])
            or any(end.name != "llvm.return" and (end.name != "llvm.br" or len(end.operands)) for end in ends)):
        return False
    for argument, value in zip(blocks[0].arguments, call.operands):
        argument.replace_all_uses_with(value)
    # What follows the call in its block (down to the block's terminator) follows the callee's return.
    after = list(call.block.operations)
    after = after[after.index(call) + 1:]
    for op in list(blocks[0].operations):
        op.move_before(call)
    for block in blocks[1:]:
        block.append_to(call.parent.regions[0])
    result = returns[0]
    for old, new in zip(call.results, result.operands):
        old.replace_all_uses_with(new)
    for op in after:
        op.move_before(result)
    result.erase()
    call.erase()
    return True


def _references(op: ir.Operation) -> set:
    """Names of the functions called and the globals whose address is taken inside ``op``."""
    used = set()

    def visit(op):
        if op.name == "llvm.call" and "callee" in op.attributes:
            used.add(ir.FlatSymbolRefAttr(op.attributes["callee"]).value)
        elif op.name == "llvm.mlir.addressof":
            used.add(ir.FlatSymbolRefAttr(op.attributes["global_name"]).value)
        return ir.WalkResult.ADVANCE

    op.operation.walk(visit)
    return used
