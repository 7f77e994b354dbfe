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
        The symbols it uses from parts of earlier waves, bound to their
        addresses before it is compiled.
    wave : int
        Parts of one wave compile at once, after those of earlier waves.
    """

    module: ir.Module
    exports: list
    imports: list
    wave: int = 0


def split_kernels(kernels: ir.Module, exported: Sequence[str], parts: int, min_ops: int = MIN_PART_OPS) -> list:
    """``kernels`` (consumed) as :class:`KernelPart` s that compile ``parts`` at a time, in order.

    LLVM optimizes and generates code for a module on one thread; parts in
    engines of their own compile at once on as many. A function or global
    is in a group with what it alone calls or reads: a group starts at a
    root, which nothing calls (a kernel the host code calls, a thread loop's
    work function, whose address its launcher takes), and what two roots
    share (the thread pool's launch protocol) is a group of its own. Groups
    that need each other's addresses merge, and so does a small group with
    the one it goes with (:func:`_merge_small`); a group compiles after those
    it needs, in waves, and the groups of a wave go to ``parts`` parts by size,
    the largest first into the smallest part. With ``parts`` < 2, or a
    top-level op without a symbol, the result is one part: ``kernels`` whole.
    A group of fewer than ``min_ops`` ops is not a part of its own, and a
    wave has a part for at most every ``min_ops`` ops.

    Examples
    --------
    Two kernels that call one helper: the helper is compiled first, then
    the kernels, at once.

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
    >>> [(part.exports, part.imports, part.wave) for part in split_kernels(m, ["k1", "k2"], parts=2, min_ops=0)]
    [(['twice'], [], 0), (['k2'], ['twice'], 1), (['k1'], ['twice'], 1)]
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
    # A function whose address is taken is a root: its caller runs it through the pointer.
    called = {name: (calls | (addressed - functions)) & definitions.keys()
              for name, (calls, addressed) in references.items()}
    groups = _groups(definitions, called)
    owner = {name: k for k, group in enumerate(groups) for name in group}
    needs = [{owner[other] for name in group for other in uses[name]} - {k} for k, group in enumerate(groups)]
    groups, needs = _merge_cycles(groups, needs)
    size = {name: _op_count(op) for name, op in definitions.items()}
    groups, needs = _merge_small(groups, needs, [sum(size[name] for name in group) for group in groups], min_ops)
    waves = _waves(needs)
    members = []  # (names, wave) of each part, in the order they compile
    for wave in range(max(waves) + 1):
        ready = sorted((groups[k] for k in range(len(groups)) if waves[k] == wave),
                       key=lambda names: -sum(size[name] for name in names))
        total = sum(size[name] for names in ready for name in names)
        bins = [set() for _ in range(max(min(parts, len(ready), total // min_ops if min_ops else parts), 1))]
        for group in ready:
            min(bins, key=lambda names: sum(size[name] for name in names)).update(group)
        members += [(names, wave) for names in bins]
    if len(members) < 2:
        return [_whole(kernels, exported)]
    imports = [sorted({other for name in names for other in uses[name]} - names) for names, _ in members]
    imported_elsewhere = set().union(*imports)
    wanted = imported_elsewhere | set(exported)
    external = ir.Attribute.parse("#llvm.linkage<external>", kernels.context)
    result = []
    for (names, wave), imported in zip(members, imports):
        with kernels.context, kernels.operation.location:
            module = ir.Module.create()
        _copy_module_attributes(kernels, module)
        needed = set().union(*(references[name][0] | references[name][1] for name in names))
        with kernels.context, kernels.operation.location, ir.InsertionPoint(module.body):
            for name, op in declarations.items():
                if name in needed:
                    op.operation.clone()
            for name in imported:
                _declare(definitions[name], external)
        for name, op in definitions.items():
            if name in names:
                if name in imported_elsewhere:  # used from another part: no longer internal to its own
                    op.attributes["linkage"] = external
                module.body.append(op.operation)
        exports = [name for name in definitions if name in names and name in wanted]
        with kernels.context, kernels.operation.location, ir.InsertionPoint(module.body):
            _define_address_table(exports)
        result.append(KernelPart(module, exports, imported, wave))
    return result


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


def _merge_cycles(groups: list, needs: list) -> tuple:
    """``(groups, needs)`` with the groups that need each other, directly or not, merged into one."""
    reach = [_closure(k, dict(enumerate(needs))) for k in range(len(groups))]
    component = {}
    for k in range(len(groups)):
        if k not in component:
            for other in reach[k]:
                if k in reach[other]:
                    component[other] = k
    leaders = sorted(set(component.values()))
    merged = {leader: set() for leader in leaders}
    for k, group in enumerate(groups):
        merged[component[k]] |= group
    merged_needs = {leader: set() for leader in leaders}
    for k in range(len(groups)):
        merged_needs[component[k]] |= {component[other] for other in needs[k]} - {component[k]}
    index = {leader: i for i, leader in enumerate(leaders)}
    return [merged[leader] for leader in leaders], [{index[other] for other in merged_needs[leader]}
                                                     for leader in leaders]


def _merge_small(groups: list, needs: list, sizes: list, min_ops: int) -> tuple:
    """``(groups, needs)`` with each group of fewer than ``min_ops`` ops merged into the one group it goes with.

    That is the one group that needs it, or, when none does, the one group
    it needs: an engine of its own would cost more than compiling it apart
    saves, and a wave of its own more still. Neither merge makes a cycle.
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
    index = {k: i for i, k in enumerate(sorted(alive))}
    return [groups[k] for k in sorted(alive)], [{index[other] for other in needs[k]} for k in sorted(alive)]


def _waves(needs: list) -> list:
    """The wave of each group of a graph without cycles: 0 for one that needs none, else one after its needs'."""
    waves = [None] * len(needs)

    def wave(k: int) -> int:
        stack = [k]
        while stack:
            top = stack[-1]
            pending = [other for other in needs[top] if waves[other] is None]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            waves[top] = 1 + max((waves[other] for other in needs[top]), default=-1)
        return waves[k]

    return [wave(k) for k in range(len(needs))]


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
