"""``tad-map-to-gpu``: every linalg op on buffers becomes a kernel (``gpu.launch``).

Each op is scheduled with the upstream transform dialect, applied op by op
from Python:

* its innermost (up to three) parallel loops are tiled with ``scf.forall``
  mapped to GPU blocks (``#gpu.block<x>`` on the innermost loop, so that
  neighbouring threads touch neighbouring elements), and each block tile
  again with ``scf.forall`` mapped to threads; the remaining loops
  (reductions, outer batch loops) run inside each thread;
* a contraction (``linalg.contract``, ``matmul``, ``batch_matmul``) gets
  32 x 32 output tiles per block: its reduction loop is tiled by 16, the two
  operand tiles of each step are promoted to workgroup (shared) memory,
  copied in by all threads of the block between two ``gpu.barrier`` and
  read from there by 16 x 16 threads, each computing 2 x 2 outputs;
* ``gpu.map_forall_to_blocks`` / ``map_nested_forall_to_threads`` turn the
  loops into one ``gpu.launch``, and the promoted buffers become workgroup
  attributions of that launch.

A copy between buffers (``memref.copy``) becomes a ``linalg.copy`` kernel
too. An op without parallel loops (a full reduction to a scalar) stays in
the host function, which reads and writes the same managed memory
(see ``tad-allocate-on-device``).

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%x: memref<64x128xf32>, %y: memref<64x128xf32>) {
...   linalg.copy ins(%x : memref<64x128xf32>) outs(%y : memref<64x128xf32>)
...   return
... }''', make_context())
>>> run_pipeline(m, "tad-map-to-gpu")
>>> "gpu.launch" in str(m), "#gpu.block" in str(m)
(True, False)
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects.transform import interpreter

from ...dialects import linalg_builder as linalg

from ..walk import collect, position_in_block

_CONTRACTIONS = {"linalg.contract": None, "linalg.matmul": [True, True, False],
                 "linalg.batch_matmul": [True, True, True, False]}
# Threads per block for ops without shared memory: 64 along the innermost loop.
_BLOCK_THREADS, _X_THREADS = 256, 64
# Contractions: output tile per block, reduction step, threads per tile side.
_MM_TILE, _MM_K_TILE, _MM_THREADS = 32, 16, 16
_TARGET, _BLOCKS, _COPY, _LAUNCH = "tad.gpu_target", "tad.gpu_blocks", "tad.gpu_copy", "tad.gpu_launch"
_WORKGROUP = "#gpu.address_space<workgroup>"


def run(op: ir.Operation, pass_) -> None:
    """Turn every linalg op (and buffer copy) of host code in ``op`` into a ``gpu.launch``."""
    for target in _host_ops(op, lambda o: o.name == "memref.copy"):
        with ir.InsertionPoint(target), target.location:
            linalg.copy(target.operands[0], outs=[target.operands[1]])
        target.erase()
    for target in _host_ops(op, lambda o: o.name.startswith("linalg.")):
        if target.results:
            raise ValueError(f"{target.name} works on tensors: tad-map-to-gpu runs after bufferization")
        kinds, extents = _loop_kinds(target), _loop_extents(target)
        if any(kinds) and None not in extents:
            _map(target, kinds, extents)


def _host_ops(op: ir.Operation, wanted) -> list:
    """Ops of host code (outside any ``gpu.launch``) for which ``wanted`` holds, in order."""
    # A launch's body is device code; a wanted (linalg) op's body holds no ops to map.
    return collect(op, lambda inner: inner.name != "gpu.launch" and wanted(inner),
                   prune=lambda inner: inner.name == "gpu.launch" or wanted(inner))


def _loop_kinds(op: ir.Operation) -> list:
    """One bool per loop of a linalg op: True for a parallel loop."""
    attrs = op.attributes
    if "iterator_types" in attrs:
        return ["parallel" in str(kind) for kind in attrs["iterator_types"]]
    if "indexing_maps" in attrs:
        maps = [ir.AffineMapAttr(m).value for m in attrs["indexing_maps"]]
        out = {ir.AffineDimExpr(e).position for e in maps[-1].results if isinstance(e, ir.AffineDimExpr)}
        return [d in out for d in range(maps[0].n_dims)]
    if _CONTRACTIONS.get(op.name):
        return list(_CONTRACTIONS[op.name])
    return [True] * ir.ShapedType(op.operands[-1].type).rank  # copy, fill, transpose: all parallel


def _loop_extents(op: ir.Operation) -> list:
    """Trip count of each loop, from the operand dims indexed by a plain loop dim (None if unknown)."""
    shapes = [ir.ShapedType(v.type).shape for v in op.operands if isinstance(v.type, ir.ShapedType)]
    if "indexing_maps" not in op.attributes:
        if op.name == "linalg.matmul":
            return [shapes[0][0], shapes[1][1], shapes[0][1]]
        if op.name == "linalg.batch_matmul":
            return [*shapes[0][:2], shapes[1][2], shapes[0][2]]
        return list(shapes[-1])
    maps = [ir.AffineMapAttr(m).value for m in op.attributes["indexing_maps"]]
    extents: list = [None] * maps[0].n_dims
    for amap, shape in zip(maps, shapes[-len(maps):]):
        for j, expr in enumerate(amap.results):
            if isinstance(expr, ir.AffineDimExpr):
                extents[ir.AffineDimExpr(expr).position] = shape[j]
    return extents


def _list(values) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _mapping(kind: str, dims: list) -> str:
    return "(mapping = [" + ", ".join(f"#gpu.{kind}<{d}>" for d in dims) + "])"


def _map(op: ir.Operation, kinds: list, extents: list) -> None:
    """Schedule one linalg op as a kernel with the transform dialect."""
    parallel = [i for i, k in enumerate(kinds) if k]
    contraction = op.name in _CONTRACTIONS and len(parallel) >= 2 and not all(kinds)
    mapped = parallel[-3:]
    axes = dict(zip(reversed(mapped), "xyz"))  # innermost loop -> x
    if contraction:
        tile = {"x": min(extents[mapped[-1]], _MM_TILE), "y": min(extents[mapped[-2]], _MM_TILE), "z": 1}
        threads = {"x": min(tile["x"], _MM_THREADS), "y": min(tile["y"], _MM_THREADS)}
    else:
        tile = {"x": min(extents[mapped[-1]], _X_THREADS), "z": 1}
        tile["y"] = min(extents[mapped[-2]], _BLOCK_THREADS // tile["x"]) if len(mapped) > 1 else 1
        threads = {"x": tile["x"], "y": tile["y"]}
    block_sizes = [tile[axes[i]] if i in axes else 0 for i in range(len(kinds))]
    thread_counts = [threads.get(axes.get(i), 0) for i in range(len(kinds))]
    thread_axes = [axes[i] for i in mapped if thread_counts[i]]
    steps = [
        f"%t0, %blocks = transform.structured.tile_using_forall %op tile_sizes {_list(block_sizes)} "
        f"{_mapping('block', [axes[i] for i in mapped])} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)",
        f'transform.annotate %blocks "{_BLOCKS}" : !transform.any_op',
    ]
    last = "%t0"
    if contraction:
        reduction = [i for i, k in enumerate(kinds) if not k]
        k_sizes = [0 if kinds[i] else (min(extents[i], _MM_K_TILE) if i == reduction[-1] else 1)
                   for i in range(len(kinds))]
        # One loop handle per tiled reduction dim (a convolution's filter gradient has three).
        loops = [f"%k{i}" for i in range(len(reduction))]
        steps += [
            f"%t1, {', '.join(loops)} = transform.structured.tile_using_for %t0 tile_sizes {_list(k_sizes)} "
            f": (!transform.any_op) -> ({', '.join(['!transform.any_op'] * (1 + len(loops)))})",
            "%t2 = transform.structured.promote %t1 {operands_to_promote = [0, 1], "
            "mapping = [#gpu.memory_space<workgroup>]} : (!transform.any_op) -> !transform.any_op",
        ]
        last = "%t2"
    steps.append(f"%t3, %th = transform.structured.tile_using_forall {last} num_threads {_list(thread_counts)} "
                 f"{_mapping('thread', thread_axes)} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)")
    func_op = _parent_function(op)
    op.attributes[_TARGET] = ir.UnitAttr.get()
    _apply(func_op, f"transform.structured.match attributes{{{_TARGET}}} in %root", "%op", steps)
    blocks = _tagged(func_op, _BLOCKS)
    steps = []
    if contraction:
        steps += _copy_steps(blocks, threads)
    block_dims = [threads["x"], threads["y"], 1]
    steps += [f"%launch = transform.gpu.map_forall_to_blocks %blocks generate_gpu_launch "
              ": (!transform.any_op) -> !transform.any_op",
              f'transform.annotate %launch "{_LAUNCH}" : !transform.any_op',
              f"transform.gpu.map_nested_forall_to_threads %launch block_dims = {_list(block_dims)} "
              ": (!transform.any_op) -> !transform.any_op"]
    _apply(func_op, f"transform.structured.match attributes{{{_BLOCKS}}} in %root", "%blocks", steps)
    launch = _tagged(func_op, _LAUNCH)
    _clear_tags(func_op)
    if contraction:
        _attribute_workgroup_buffers(func_op, launch)


def _copy_steps(blocks: ir.Operation, threads: dict) -> list:
    """Make the copies into workgroup memory ``linalg.copy`` ops split over the block's threads."""
    copies = collect(blocks, lambda inner: inner.name == "memref.copy"
                     and _WORKGROUP in str(inner.operands[1].type))
    steps = []
    for n, copy in enumerate(copies):
        with ir.InsertionPoint(copy), copy.location:
            linalg.copy(copy.operands[0], outs=[copy.operands[1]])
        new = copy.operation.block.operations[position_in_block(copy) - 1]
        new.attributes[_COPY] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), n)
        copy.erase()
        rank = ir.ShapedType(new.operands[1].type).rank
        counts = [0] * (rank - 2) + [threads["y"], threads["x"]] if rank >= 2 else [threads["x"] * threads["y"]]
        axes = ["y", "x"] if rank >= 2 else ["x"]
        steps += [f"%c{n} = transform.structured.match attributes{{{_COPY} = {n} : i64}} in %root "
                  ": (!transform.any_op) -> !transform.any_op",
                  f"%c{n}t, %c{n}f = transform.structured.tile_using_forall %c{n} num_threads {_list(counts)} "
                  f"{_mapping('thread', axes)} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)"]
    return steps


def _parent_function(op: ir.Operation) -> ir.Operation:
    parent = op.parent
    while parent.name != "func.func":
        parent = parent.parent
    return parent


def _apply(func_op: ir.Operation, match: str, handle: str, steps: list) -> None:
    """Run a transform sequence on ``func_op``; ``handle`` names the ops that ``match`` finds."""
    body = "\n    ".join([f"{handle} = {match} : (!transform.any_op) -> !transform.any_op", *steps])
    text = ("module attributes {transform.with_named_sequence} {\n"
            "  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {\n"
            f"    {body}\n    transform.yield\n  }}\n}}")
    script = ir.Module.parse(text, func_op.context)
    interpreter.apply_named_sequence(func_op, script.body.operations[0], script)


def _tagged(func_op: ir.Operation, tag: str) -> ir.Operation:
    """The op of ``func_op`` carrying attribute ``tag``."""
    return collect(func_op, lambda inner: tag in inner.attributes)[0]


def _clear_tags(func_op: ir.Operation) -> None:
    for inner in collect(func_op):
        for tag in (_TARGET, _BLOCKS, _COPY, _LAUNCH):
            if tag in inner.attributes:
                del inner.attributes[tag]


def _attribute_workgroup_buffers(func_op: ir.Operation, launch: ir.Operation) -> None:
    """Make the promoted buffers (allocated at function entry) workgroup attributions of ``launch``."""
    body = launch.regions[0].blocks[0]
    count = ir.IntegerAttr(launch.attributes["workgroup_attributions"]).value
    for alloc in list(func_op.regions[0].blocks[0].operations):
        if alloc.operation.name != "memref.alloc" or _WORKGROUP not in str(alloc.results[0].type):
            continue
        argument = body.add_argument(alloc.results[0].type, alloc.location)
        for use in list(alloc.results[0].uses):
            if use.owner.name == "memref.dealloc":
                use.owner.erase()
        alloc.results[0].replace_all_uses_with(argument)
        alloc.operation.erase()
        count += 1
    launch.attributes["workgroup_attributions"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), count)
