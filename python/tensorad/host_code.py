"""Host code compiled apart from kernels, without optimization.

``tad-outline-repeated-kernels`` leaves an unrolled program's caller with
kernel calls only and marks it ``optnone``, as ``tad-split-long-functions``
marks its chunks: tens of thousands of instructions that LLVM could not
make faster. MLIR's ExecutionEngine optimizes a module at one level, with a
pass pipeline that has no instrumentation to skip ``optnone`` functions, so
that code went through the kernels' optimization (-O3 then) with them: most of the optimizer's time
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

import ctypes
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from mlir import ir
from mlir.dialects import llvm

from .passes.lower.outline_kernels import has_passthrough

C_INTERFACE_PREFIX = "_mlir_ciface_"
# Groups of fewer ops than this are not compiled apart (see split_kernels): an
# engine costs about 10 ms, what LLVM takes for a few hundred LLVM-dialect ops.
MIN_PART_OPS = 256
# A function of the kernels' module that stores the address of each imported symbol, in order, at its
# argument: the engine looks up only the packed wrappers of functions, which the host code cannot call.
ADDRESS_TABLE = "__tad_host_imports"
# A global of a kernels' part: the addresses of the symbols it uses from other parts (see split_kernels).
IMPORT_TABLE = "__tad_imports"


def split_host_code(module: ir.Module) -> tuple:
    """``(host, kernels, imported)``: ``module`` (LLVM dialect) as two modules; ``host`` None if it has no host code.

    ``host`` holds the ``optnone`` functions and their C interfaces, and a
    declaration of each symbol of ``kernels`` they use; ``imported`` names
    those that ``kernels`` defines (:func:`split_kernels` gives each part of
    ``kernels`` a function ``ADDRESS_TABLE`` that stores their addresses);
    ``kernels`` holds everything else: without host code, a copy of
    ``module``. ``module`` is left as it is.
    """
    defined = [op for op in module.body.operations
               if op.operation.name == "llvm.func" and len(op.regions[0].blocks)]
    host_names = {op.attributes["sym_name"].value for op in defined if has_passthrough(op.operation, "optnone")}
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
    if not host_names:
        return None, kernels, []
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
    """One module of the kernels, compiled in an engine of its own, at once with the others.

    Attributes
    ----------
    module : mlir.ir.Module
        Its functions and globals, a declaration of each library symbol it
        uses, ``ADDRESS_TABLE`` and, if it imports any symbol, ``IMPORT_TABLE``.
    exports : list of str
        The symbols it defines that the host code or another part uses, in
        the order its ``ADDRESS_TABLE`` stores their addresses.
    imports : list of str
        The symbols it uses from other parts. Its code reads their addresses
        from ``IMPORT_TABLE``, in this order, whose own address
        ``ADDRESS_TABLE`` stores after the exports'; they are written there
        once every part is compiled (:func:`bind_imports`), before any runs.
    """

    module: ir.Module
    exports: list
    imports: list

    @property
    def table_size(self) -> int:
        """How many addresses its ``ADDRESS_TABLE`` stores: the exports', then ``IMPORT_TABLE``'s if it imports."""
        return len(self.exports) + bool(self.imports)


def bind_imports(part: KernelPart, found: Sequence, addresses: dict) -> None:
    """Write the addresses of ``part``'s imports (from ``addresses``) into its ``IMPORT_TABLE``.

    ``found`` is what ``part``'s ``ADDRESS_TABLE`` stored (``ctypes.c_void_p``).
    """
    if part.imports:
        table = (ctypes.c_void_p * len(part.imports)).from_address(found[len(part.exports)].value)
        for k, name in enumerate(part.imports):
            table[k] = addresses[name].value


def split_kernels(kernels: ir.Module, exported: Sequence[str], parts: int, min_ops: int = MIN_PART_OPS) -> list:
    """``kernels`` (consumed) as at most ``parts`` :class:`KernelPart` s, compiled at once.

    LLVM optimizes and generates code for a module on one thread; parts in
    engines of their own compile at once on as many. A function or global
    is in a group with what it alone calls or reads: a group starts at a
    root, which nothing calls (a kernel the host code calls, a thread loop's
    work function, whose address its launcher takes) or which has at least
    ``min_ops`` ops (a chunk of a long function, see
    ``tad-split-long-functions``), and what two roots share (the thread
    pool's launch protocol) is a group of its own. A small
    group merges with the one it goes with (:func:`_merge_small`); the groups
    go to the parts by size, the largest first into the smallest part. A
    part reaches what other parts define through its ``IMPORT_TABLE``, so
    no part waits for another's code: a call across parts is an indirect
    call, a symbol's address a load. With ``parts`` < 2, or a top-level op
    without a symbol, the result is one part: ``kernels`` whole. A group of
    fewer than ``min_ops`` ops is not a part of its own, and there is a part
    for at most every ``min_ops`` ops.

    Examples
    --------
    Two kernels that call one helper: the helper goes with one of them
    (the parts' sizes even out), and the other calls it through its import
    table.

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
    >>> split = split_kernels(m, ["k1", "k2"], parts=2, min_ops=0)
    >>> [(sorted(part.exports), part.imports) for part in split]
    [(['k2'], ['twice']), (['k1', 'twice'], [])]
    >>> "llvm.call %" in str(split[0].module)  # k2 calls twice through the pointer it loads
    True
    """
    definitions, declarations = {}, {}
    for op in kernels.body.operations:
        if "sym_name" not in op.attributes:
            return [_whole(kernels, exported)]
        (definitions if _defines(op) else declarations)[op.attributes["sym_name"].value] = op
    if parts < 2 or not definitions:  # (host code may call only what other libraries define)
        return [_whole(kernels, exported)]
    functions = {name for name, op in definitions.items() if op.operation.name == "llvm.func"}
    references = {name: _calls_and_addresses(op) for name, op in definitions.items()}
    uses = {name: (calls | addressed) & definitions.keys() for name, (calls, addressed) in references.items()}
    size = {name: _op_count(op) for name, op in definitions.items()}
    # A function whose address is taken is a root: its caller runs it through the pointer. So is a
    # function of min_ops ops or more (a chunk of a long function): it compiles apart from its caller.
    large = {name for name in functions if size[name] >= min_ops} if min_ops else set()
    called = {name: ((calls - large) | (addressed - functions)) & definitions.keys()
              for name, (calls, addressed) in references.items()}
    groups = _groups(definitions, called)
    owner = {name: k for k, group in enumerate(groups) for name in group}
    needs = [{owner[other] for name in group for other in uses[name]} - {k} for k, group in enumerate(groups)]
    groups = _merge_small(groups, needs, [sum(size[name] for name in group) for group in groups], min_ops)
    groups.sort(key=lambda names: -sum(size[name] for name in names))
    total = sum(size.values())
    members = [set() for _ in range(max(min(parts, len(groups), total // min_ops if min_ops else parts), 1))]
    for group in groups:
        min(members, key=lambda names: sum(size[name] for name in names)).update(group)
    if len(members) < 2:
        return [_whole(kernels, exported)]
    imports = [sorted({other for name in names for other in uses[name]} - names) for names in members]
    imported_elsewhere = set().union(*imports)
    wanted = imported_elsewhere | set(exported)
    external = ir.Attribute.parse("#llvm.linkage<external>", kernels.context)
    result = []
    for names, imported in zip(members, imports):
        with kernels.context, kernels.operation.location:
            module = ir.Module.create()
        _copy_module_attributes(kernels, module)
        needed = set().union(*(references[name][0] | references[name][1] for name in names))
        with kernels.context, kernels.operation.location, ir.InsertionPoint(module.body):
            for name, op in declarations.items():
                if name in needed:
                    op.operation.clone()
        for name, op in definitions.items():
            if name in names:
                if name in imported_elsewhere:  # used from another part: no longer internal to its own
                    op.attributes["linkage"] = external
                module.body.append(op.operation)
        exports = [name for name in definitions if name in names and name in wanted]
        with kernels.context, kernels.operation.location, ir.InsertionPoint(module.body):
            if imported:
                _read_through_import_table(module, imported)
            _define_address_table(exports + ([IMPORT_TABLE] if imported else []))
        result.append(KernelPart(module, exports, imported))
    return result


def _read_through_import_table(module: ir.Module, imported: list) -> None:
    """Make ``module`` read the address of each symbol of ``imported`` from ``IMPORT_TABLE``, defined here.

    A direct call becomes a call through the loaded pointer, and the address
    of a symbol the pointer itself (at the insertion point's location).
    """
    pointer = llvm.PointerType.get()
    slot = {name: k for k, name in enumerate(imported)}
    table_type = ir.Type.parse(f"!llvm.array<{len(imported)} x ptr>")
    table = llvm.GlobalOp(table_type, IMPORT_TABLE, ir.Attribute.parse("#llvm.linkage<internal>"))
    with ir.InsertionPoint(table.regions[0].blocks.append()):
        llvm.ReturnOp(arg=llvm.ZeroOp(table_type).result)
    uses = []

    def visit(op):
        if op.name == "llvm.call" and "callee" in op.attributes:
            if ir.FlatSymbolRefAttr(op.attributes["callee"]).value in slot:
                uses.append(op)
        elif op.name == "llvm.mlir.addressof" and ir.FlatSymbolRefAttr(op.attributes["global_name"]).value in slot:
            uses.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for op in uses:
        symbol = "callee" if op.name == "llvm.call" else "global_name"
        with ir.InsertionPoint(op), op.location:
            start = llvm.AddressOfOp(pointer, IMPORT_TABLE).result
            entry = llvm.GEPOp(pointer, start, [], [0, slot[ir.FlatSymbolRefAttr(op.attributes[symbol]).value]],
                               table_type, None).result
            address = llvm.LoadOp(pointer, entry).result
            if op.name == "llvm.call":
                replacement = llvm.CallOp(op.results[0].type if len(op.results) else None,
                                          [address, *op.operands], [], []).operation
            else:
                replacement = address.owner
        for old, new in zip(op.results, replacement.results):
            old.replace_all_uses_with(new)
        op.erase()


def _groups(definitions: dict, called: dict) -> list:
    """The groups of :func:`split_kernels`: each root with what it alone calls or reads, and what roots share."""
    reached = {other for name in definitions for other in called[name] if other != name}
    roots = [name for name in definitions if name not in reached]
    reach = {root: _closure(root, called) for root in roots}
    counts = Counter(name for names in reach.values() for name in names)
    # Called by two roots, or by none (a cycle that no root reaches): a group of its own.
    shared = {name for name in definitions if counts[name] != 1}
    groups = [reach[root] - shared for root in roots]
    return groups + [shared] if shared else groups


def _merge_small(groups: list, needs: list, sizes: list, min_ops: int) -> list:
    """``groups`` with each group of fewer than ``min_ops`` ops merged into the one group it goes with.

    That is the one group that needs it, or, when none does, the one group
    it needs (``needs[k]``: the indices of the groups group ``k`` uses):
    an engine of its own would cost more than compiling it apart saves, and
    together they reach each other directly.
    """
    alive = set(range(len(groups)))
    groups, needs, sizes = [set(g) for g in groups], [set(n) for n in needs], list(sizes)
    changed = True
    while changed:
        changed = False
        for k in sorted(alive):
            needers = [other for other in alive if k in needs[other]]
            into = needers[0] if len(needers) == 1 else (next(iter(needs[k])) if not needers and len(needs[k]) == 1
                                                         else None)
            if sizes[k] >= min_ops or into is None:
                continue
            groups[into] |= groups[k]
            sizes[into] += sizes[k]
            needs[into] = (needs[into] | needs[k]) - {k, into}
            for other in alive:
                if k in needs[other]:
                    needs[other] = (needs[other] - {k}) | ({into} if other != into else set())
            alive.remove(k)
            changed = True
    return [groups[k] for k in sorted(alive)]


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


def _closure(start, edges: dict) -> set:
    """``start`` and what it reaches through ``edges`` (a dict of sets)."""
    seen, stack = {start}, [start]
    while stack:
        for other in edges[stack.pop()]:
            if other not in seen:
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
    """Names of the functions called and the symbols whose address is taken inside ``op``."""
    called, addressed = _calls_and_addresses(op)
    return called | addressed


def _calls_and_addresses(op: ir.Operation) -> tuple:
    """``(called, addressed)``: names of the functions called, and of the symbols whose address is taken, in ``op``."""
    called, addressed = set(), set()

    def visit(op):
        if op.name == "llvm.call" and "callee" in op.attributes:
            called.add(ir.FlatSymbolRefAttr(op.attributes["callee"]).value)
        elif op.name == "llvm.mlir.addressof":
            addressed.add(ir.FlatSymbolRefAttr(op.attributes["global_name"]).value)
        return ir.WalkResult.ADVANCE

    op.operation.walk(visit)
    return called, addressed
