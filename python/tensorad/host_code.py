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
(['kernel'], ['kernel', '__tad_host_imports'])
>>> [(f.attributes["sym_name"].value, len(f.regions[0].blocks)) for f in host.body.operations]
[('caller', 1), ('kernel', 0)]
"""

from __future__ import annotations

from typing import Optional

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
    those that ``kernels`` defines, whose addresses its function
    ``ADDRESS_TABLE`` stores in that order (``kernels`` holds everything
    else). ``module`` is left as it is.
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
    for name in ("llvm.data_layout", "llvm.target_triple"):
        if name in module.operation.attributes:
            for part in (host, kernels):
                part.operation.attributes[name] = module.operation.attributes[name]
    for op in list(copy.regions[0].blocks[0].operations):
        name = op.attributes["sym_name"].value if "sym_name" in op.attributes else None
        (host if name in host_names else kernels).body.append(op.operation)
    copy.erase()
    _inline_into_c_interfaces(host)
    used = _symbols_used(host)
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
    with module.context, module.operation.location, ir.InsertionPoint(kernels.body):
        _define_address_table(imported)
    return host, kernels, imported


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


def _symbols_used(module: ir.Module) -> set:
    """Names of the functions ``module`` calls and the globals it takes the address of."""
    used = set()

    def visit(op):
        if op.name == "llvm.call" and "callee" in op.attributes:
            used.add(ir.FlatSymbolRefAttr(op.attributes["callee"]).value)
        elif op.name == "llvm.mlir.addressof":
            used.add(ir.FlatSymbolRefAttr(op.attributes["global_name"]).value)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return used
