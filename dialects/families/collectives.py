"""Collectives over the processes of an MPI job (``psum``, ``pmax``, ``pmin``, ``all_gather``, ``reduce_scatter``).

And two markers: ``pvary``, and ``shard`` (a value split over the processes,
which ``tad-partition`` computes with by blocks; see
:mod:`tensorad.dialects.partitioning`).

Each op's record (declaration, traits, shape rule, fold, lowering,
derivative and batching rules) is registered here through :data:`family`.
Every op names the number of processes of the job in its ``processes``
attribute: the shapes of ``all_gather`` and ``reduce_scatter`` depend on
it, and with one process every collective is a reshape at most (folded by
tad-simplify, lowered as such), so single-process code never calls MPI.

The collectives have side effects: every process must run the same ones in
the same order, so CSE never merges two, DCE never drops one whose result
is unused, and rematerialization never recomputes a region holding one.

Derivatives follow JAX's rules for ``shard_map`` (the replication types of
its ``check_vma``). ``psum``'s result is the same on every process, and so
is its cotangent: the transpose is the identity (``pvary``). ``pvary`` is
the identity on a value every process holds that each process then uses
its own way (JAX's ``pvary``, Megatron's ``f``): the cotangents of every
process add up, so its transpose is ``psum``; it costs nothing and has no
side effects. ``all_gather``'s result is read differently by each
process: the cotangents of every process add up, which is
``reduce_scatter``; and ``reduce_scatter``'s transpose is ``all_gather``.
Forward mode applies each op to the tangent. ``pmax`` and ``pmin`` send
the derivative to the process(es) holding the extremum, split evenly among
ties, as ``reduce_max`` does among elements.

Lowering (``tad-lower-to-linalg``, more than one process): a kernel
(:func:`~tensorad.dialects.library_calls.call_kernel`: the flat operand, and
for ``all_gather``/``reduce_scatter`` a fresh result buffer, go to a private
function of the module, a call that keeps them alive until it returns)
calls the MPI library's ``MPI_Allreduce`` (in place, ``MPI_IN_PLACE``: the
operand's buffer becomes the result's), ``MPI_Allgather`` or
``MPI_Reduce_scatter_block`` on
``MPI_COMM_WORLD`` with the MPICH ABI's handles (:data:`MPICH_HANDLES`:
the mpich wheel's ``libmpi.so.12``), and aborts the job if it fails. The
MPI functions are declared as ``tad_mpi<P>_MPI_*``: a process of a job of
``P`` processes defines them (:func:`define_mpi_symbols`) as the functions
of the library that mpi4py loaded, so code compiled for another number of
processes does not link.

Examples
--------
>>> from tensorad.dialects.record import has_trait, record_of
>>> has_trait("tad.psum", Trait.SIDE_EFFECTS), has_trait("tad.psum", Trait.PURE)
(True, False)
>>> record_of("tad.all_gather").vjp is not None
True
"""

from __future__ import annotations

import functools
from math import prod

from mlir import ir
from mlir.dialects import func

from .. import builder
from .. import linalg_builder as linalg
from ..derivatives import deflinear
from ..library_calls import Kernel, call_kernel, define_symbol
from ..record import Family, Trait
from ..shapes import TensorSpec, int_attr, need, shape_text

family = Family("collectives")

_PROCESSES = (("processes", "integer"),)

family.define("tad.psum",
              operands=("operand",),
              attributes=_PROCESSES,
              summary="Elementwise sum of `operand` over the `processes` processes of the job; every process gets the sum.",
              traits=(Trait.SIDE_EFFECTS,))
for _name, _extremum in (("tad.pmax", "maximum"), ("tad.pmin", "minimum")):
    family.define(_name,
                  operands=("operand",),
                  attributes=_PROCESSES,
                  summary=f"Elementwise {_extremum} of `operand` over the `processes` processes of the job; every "
                          "process gets it.",
                  traits=(Trait.SIDE_EFFECTS,))
family.define("tad.all_gather",
              operands=("operand",),
              attributes=_PROCESSES,
              summary="The `operand` of every process, stacked in process order along a new leading dim of size `processes`.",
              traits=(Trait.SIDE_EFFECTS,))
family.define("tad.reduce_scatter",
              operands=("operand",),
              attributes=_PROCESSES,
              summary="Sum over processes of `operand` (leading dim of size `processes`); process r gets row r of the sum.",
              traits=(Trait.SIDE_EFFECTS,))
family.define("tad.shard",
              operands=("operand",),
              attributes=(("dim", "integer"), ("process", "integer"), *_PROCESSES),
              summary="Identity that marks its value as split along `dim` over the `processes` processes, this one "
                      "holding block `process`: tad-partition computes with the blocks.",
              traits=(Trait.PURE, Trait.VIEW, Trait.MARKER))
family.define("tad.pvary",
              operands=("operand",),
              attributes=_PROCESSES,
              summary="Identity on a value every process holds, which each process then uses its own way: its transpose is a psum.",
              traits=(Trait.PURE, Trait.VIEW, Trait.MARKER))

#: The MPICH ABI's handles (``mpi.h`` of the mpich wheel): ``MPI_COMM_WORLD``,
#: ``MPI_SUM`` and the datatype of each element type a collective takes.
MPICH_HANDLES = {"MPI_COMM_WORLD": 0x44000000, "MPI_SUM": 0x58000003, "MPI_MAX": 0x58000001,
                 "MPI_MIN": 0x58000002, "f32": 0x4c00040a, "f64": 0x4c00080b, "i32": 0x4c000439,
                 "i64": 0x4c00083a}
#: ``MPI_IN_PLACE`` of the MPICH ABI: ``(void *) -1``.
MPI_IN_PLACE = -1
#: Element types of collectives, by their MLIR spelling.
ELEMENT_TYPES = ("f32", "f64", "i32", "i64")
# MPI counts are C ints.
_MAX_COUNT = 2 ** 31 - 1


def _processes(attrs) -> int:
    p = int_attr(attrs, "processes")
    need(p >= 1, f"processes must be at least 1, got {p}")
    return p


def _check_operand(x: TensorSpec, count: int) -> None:
    """The element type is one of MPI's, and ``count`` (of one process's part) fits MPI's counts."""
    need(str(x.element_type) in ELEMENT_TYPES,
         f"collectives take {', '.join(ELEMENT_TYPES)} elements, got {x.element_type}")
    need(count <= _MAX_COUNT, f"{count} elements are more than one MPI call moves ({_MAX_COUNT})")


@family.shape_rule("tad.psum", "tad.pmax", "tad.pmin", "tad.pvary")
def _psum_shape(operands, attrs, results):
    (x,) = operands
    _processes(attrs)
    _check_operand(x, prod(x.shape))
    return [x]


@family.shape_rule("tad.shard")
def _shard_shape(operands, attrs, results):
    (x,) = operands
    p, d, r = _processes(attrs), int_attr(attrs, "dim"), int_attr(attrs, "process")
    need(0 <= d < x.rank, f"dim {d} is not a dim of a tensor of rank {x.rank}")
    need(x.shape[d] % p == 0, f"dim {d} of size {x.shape[d]} does not split evenly over {p} processes")
    need(0 <= r < p, f"process {r} is not one of the {p} processes")
    return [x]


@family.shape_rule("tad.all_gather")
def _all_gather_shape(operands, attrs, results):
    (x,) = operands
    p = _processes(attrs)
    _check_operand(x, prod(x.shape))  # each process sends (and receives from each) this many
    return [TensorSpec((p,) + tuple(x.shape), x.element_type)]


@family.shape_rule("tad.reduce_scatter")
def _reduce_scatter_shape(operands, attrs, results):
    (x,) = operands
    p = _processes(attrs)
    need(x.rank >= 1 and x.shape[0] == p,
         f"the leading dim of the operand must be the {p} processes, got {shape_text(x.shape)}")
    _check_operand(x, prod(x.shape[1:]))  # each process receives this many
    return [TensorSpec(tuple(x.shape[1:]), x.element_type)]


@family.fold("tad.psum", "tad.pmax", "tad.pmin", "tad.all_gather", "tad.reduce_scatter", "tad.pvary", "tad.shard")
def _fold_one_process(op):
    # One process: the sum of one operand, the stack of one, the row of one.
    if ir.IntegerAttr(op.attributes["processes"]).value != 1:
        return None
    x, t = op.operands[0], op.results[0].type
    return x if x.type == t else builder.reshape(x, t.shape)


# --- lowering ------------------------------------------------------------------------

# The collectives whose result has the operand's shape: MPI_Allreduce in place, with this reduction.
_REDUCTIONS = {"tad.psum": "MPI_SUM", "tad.pmax": "MPI_MAX", "tad.pmin": "MPI_MIN"}
# The others: the MPI function, and whether its count is the operand's (else the result's).
_MPI_FUNCTIONS = {"tad.all_gather": ("MPI_Allgather", True),
                  "tad.reduce_scatter": ("MPI_Reduce_scatter_block", False)}
_PTR, _I32 = "!llvm.ptr", "i32"
_SIGNATURES = {"MPI_Allreduce": (_PTR, _PTR, _I32, _I32, _I32, _I32),
               "MPI_Allgather": (_PTR, _I32, _I32, _PTR, _I32, _I32, _I32),
               "MPI_Reduce_scatter_block": (_PTR, _PTR, _I32, _I32, _I32, _I32),
               "MPI_Abort": (_I32, _I32)}


def mpi_function_address(name: str) -> int:
    """Address of the function ``name`` of the MPI library that mpi4py loaded (the mpich wheel's).

    Raises
    ------
    RuntimeError
        The library's handles are not the MPICH ABI's that compiled code passes (:data:`MPICH_HANDLES`).
    """
    import ctypes

    from mpi4py import MPI

    handles = {"MPI_COMM_WORLD": MPI.COMM_WORLD, "MPI_SUM": MPI.SUM, "MPI_MAX": MPI.MAX, "MPI_MIN": MPI.MIN,
               "f32": MPI.FLOAT, "f64": MPI.DOUBLE, "i32": MPI.INT32_T, "i64": MPI.INT64_T}
    wrong = [key for key, handle in handles.items() if handle.handle != MPICH_HANDLES[key]]
    if MPI.Get_address(MPI.IN_PLACE) != MPI_IN_PLACE:
        wrong.append("MPI_IN_PLACE")
    if wrong:
        raise RuntimeError(f"mpi4py loaded {MPI.Get_library_version().splitlines()[0]!r}, whose handles "
                           f"({', '.join(wrong)}) are not the MPICH ABI's that compiled collectives use: "
                           "install the mpich wheel (pip install mpich)")
    # The symbols of the library that mpi4py's extension module links (what dlsym searches from its handle).
    return ctypes.cast(getattr(ctypes.CDLL(MPI.__file__), name), ctypes.c_void_p).value


def mpi_symbol(name: str, processes: int) -> str:
    """The symbol compiled code calls for MPI function ``name`` in a job of ``processes`` processes.

    It names the number of processes: only a process of such a job
    defines it (:func:`define_mpi_symbols`), so code compiled for another
    job does not link.

    Examples
    --------
    >>> mpi_symbol("MPI_Allreduce", 2)
    'tad_mpi2_MPI_Allreduce'
    """
    return f"tad_mpi{processes}_{name}"


def define_mpi_symbols(processes: int) -> None:
    """Make the MPI functions that collectives over ``processes`` processes call resolvable in compiled code.

    Called by a process of a job of ``processes`` processes
    (``tensorad.distributed.initialize``); the addresses are looked up when
    a module calls them (:func:`mpi_function_address`).
    """
    for name in _SIGNATURES:
        define_symbol(mpi_symbol(name, processes), functools.partial(mpi_function_address, name))


def _call(kernel: Kernel, name: str, processes: int, arguments: list) -> ir.Value:
    """``name(*arguments)`` of the MPI library (an ``i32`` error code), declared in the module once."""
    symbol = mpi_symbol(name, processes)
    types = [ir.Type.parse(t) for t in _SIGNATURES[name]]
    i32 = ir.IntegerType.get_signless(32)
    if symbol not in ir.SymbolTable(kernel.module):
        with ir.InsertionPoint(kernel.module.regions[0].blocks[0]):  # at the end: the entry point stays first
            func.FuncOp(symbol, (types, [i32]), visibility="private")
    return func.CallOp([i32], ir.FlatSymbolRefAttr.get(symbol), arguments).result


def _checked(kernel: Kernel, processes: int, name: str, arguments: list) -> None:
    """``name(*arguments)`` of the MPI library; the job is aborted if it fails."""
    i32 = ir.IntegerType.get_signless(32)
    code = _call(kernel, name, processes, arguments)
    failed = kernel.compare("ne", code, kernel.constant(0, i32))
    comm = kernel.constant(MPICH_HANDLES["MPI_COMM_WORLD"], i32)
    kernel.when(failed, lambda: _call(kernel, "MPI_Abort", processes, [comm, code]))


def _handle(kernel: Kernel, key: str) -> ir.Value:
    return kernel.constant(MPICH_HANDLES[key], ir.IntegerType.get_signless(32))


def _allreduce_body(reduction: str, processes: int, count: int, element: ir.Type):
    """The body of the kernel that reduces a flat buffer over processes in place (``MPI_IN_PLACE``)."""
    def body(kernel: Kernel, buffer: ir.Value) -> None:
        in_place = ir.Operation.create("llvm.inttoptr", results=[kernel.ptr_type],
                                       operands=[kernel.constant(MPI_IN_PLACE, kernel.i64)]).result
        _checked(kernel, processes, "MPI_Allreduce",
                 [in_place, kernel.pointer(buffer), kernel.constant(count, kernel.i32),
                  _handle(kernel, str(element)), _handle(kernel, reduction), _handle(kernel, "MPI_COMM_WORLD")])

    return body


def _kernel_body(op_name: str, processes: int, count: int, element: ir.Type):
    """The body of the kernel that runs ``all_gather`` or ``reduce_scatter`` from one flat buffer into another."""
    name, _ = _MPI_FUNCTIONS[op_name]

    def body(kernel: Kernel, source: ir.Value, result: ir.Value) -> None:
        comm, dtype = _handle(kernel, "MPI_COMM_WORLD"), _handle(kernel, str(element))
        n = kernel.constant(count, kernel.i32)
        send, receive = kernel.pointer(source), kernel.pointer(result)
        if name == "MPI_Allgather":
            arguments = [send, n, dtype, receive, n, dtype, comm]
        else:
            arguments = [send, receive, n, dtype, _handle(kernel, "MPI_SUM"), comm]
        _checked(kernel, processes, name, arguments)

    return body


@family.lowering("tad.psum", "tad.pmax", "tad.pmin")
def _lower_allreduce(op):
    # In place: the operand's buffer receives the result, so no buffer is allocated
    # for it (bufferization copies the operand first only if it is read afterwards).
    x, t = op.operands[0], op.results[0].type
    flat = linalg.to_flat(x)
    processes = ir.IntegerAttr(op.attributes["processes"]).value
    if processes == 1:
        return [x]
    element, count, reduction = t.element_type, flat.type.shape[0], _REDUCTIONS[op.name]
    kernel = f"tad_mpi_allreduce_{reduction[4:].lower()}_{element}_{count}_{processes}"
    [out] = call_kernel(kernel, [flat], [], _allreduce_body(reduction, processes, count, element), written=(0,))
    return [linalg.from_flat(out, t)]


@family.lowering("tad.all_gather", "tad.reduce_scatter")
def _lower_collective(op):
    x, t = op.operands[0], op.results[0].type
    flat = linalg.to_flat(x)
    processes = ir.IntegerAttr(op.attributes["processes"]).value
    if processes == 1:
        return [linalg.from_flat(flat, t)]
    element = t.element_type
    name, count_of_operand = _MPI_FUNCTIONS[op.name]
    count = flat.type.shape[0] if count_of_operand else prod(t.shape)
    kernel = f"tad_{name.lower()}_{element}_{flat.type.shape[0]}_{processes}"
    [out] = call_kernel(kernel, [flat], [ir.RankedTensorType.get([prod(t.shape)], element)],
                        _kernel_body(op.name, processes, count, element))
    return [linalg.from_flat(out, t)]


@family.lowering("tad.pvary", "tad.shard")
def _lower_identity(op):
    # A shard left unpartitioned (tad-partition did not run) computes the whole value: the same.
    return [op.operands[0]]


# --- derivatives and batching ----------------------------------------------------------

def _gather(x, processes: ir.Attribute, lead: int):
    """``all_gather`` of ``x`` whose first ``lead`` dims are a batch prefix: the process dim goes after it."""
    stacked = builder.build("tad.all_gather", [x], {"processes": processes})
    if lead == 0:
        return stacked
    return builder.transpose(stacked, list(range(1, lead + 1)) + [0] + list(range(lead + 1, stacked.ndim)))


def _scatter(x, processes: ir.Attribute, lead: int):
    """``reduce_scatter`` of ``x`` whose process dim comes after a batch prefix of ``lead`` dims."""
    x = builder.wrap(x)
    if lead:
        x = builder.transpose(x, [lead] + list(range(lead)) + list(range(lead + 1, x.ndim)))
    return builder.build("tad.reduce_scatter", [x], {"processes": processes})


def _psum(x, processes: ir.Attribute):
    return builder.build("tad.psum", [x], {"processes": processes})


def _pvary(x, processes: ir.Attribute):
    return builder.build("tad.pvary", [x], {"processes": processes})


def _attr(c) -> ir.Attribute:
    return c.op.attributes["processes"]


def _shard(x, attributes, lead: int):
    """``tad.shard`` of ``x`` with ``attributes``, its dim moved past a batch prefix of ``lead`` dims."""
    attrs = {a.name: a.attr for a in (attributes[i] for i in range(len(attributes)))}
    i64 = ir.IntegerType.get_signless(64)
    attrs["dim"] = ir.IntegerAttr.get(i64, ir.IntegerAttr(attrs["dim"]).value + lead)
    return builder.build("tad.shard", [x], attrs)


# A sharded value's tangent and cotangent are split the same way.
deflinear(family, "tad.shard", lambda c, ts: _shard(ts[0], c.op.attributes, c.nb),
          lambda c, ct: [_shard(ct, c.op.attributes, c.nb)])
# psum's result and cotangent are the same on every process; the cotangent then
# reaches values each process uses its own way: pvary, whose transpose adds them up.
deflinear(family, "tad.psum", lambda c, ts: _psum(ts[0], _attr(c)), lambda c, ct: [_pvary(ct, _attr(c))])
deflinear(family, "tad.pvary", lambda c, ts: _pvary(ts[0], _attr(c)), lambda c, ct: [_psum(ct, _attr(c))])
deflinear(family, "tad.all_gather", lambda c, ts: _gather(ts[0], _attr(c), c.nb),
          lambda c, ct: [_scatter(ct, _attr(c), c.nb)])
deflinear(family, "tad.reduce_scatter", lambda c, ts: _scatter(ts[0], _attr(c), c.nb),
          lambda c, ct: [_gather(ct, _attr(c), c.nb)])


def _extremum_weights(c):
    """Where this process holds the extremum, 1 / (number of processes holding it); elsewhere 0.

    The derivative of ``pmax``/``pmin`` goes to the process(es) whose element
    is the result, split evenly among ties (as ``reduce_max``'s among elements).
    """
    x = c.inputs[0]
    hits = builder.equal(x, c.outputs[0]).astype(x.element_type)
    return hits / _psum(hits, _attr(c))


# pmax(x) is, around x, psum(w * x) with the weights w of _extremum_weights: its
# tangent is the psum of the weighted tangents, its transpose that of psum times w.
@family.jvp("tad.pmax", "tad.pmin")
def _extremum_jvp(c, tangents):
    return [_psum(tangents[0] * _extremum_weights(c), _attr(c))]


@family.vjp("tad.pmax", "tad.pmin")
def _extremum_vjp(c, cotangents):
    return [_pvary(cotangents[0], _attr(c)) * _extremum_weights(c)]


# The mapped axis is axis 0 of the (only, batched) operand: a batch prefix of one dim.
@family.batching("tad.psum", "tad.pmax", "tad.pmin")
def _psum_batch(ctx, op, operands, batched):
    return [builder.build(op.name, [operands[0]], {"processes": op.attributes["processes"]})]


@family.batching("tad.shard")
def _shard_batch(ctx, op, operands, batched):
    return [_shard(operands[0], op.attributes, 1)]


@family.batching("tad.all_gather")
def _all_gather_batch(ctx, op, operands, batched):
    return [_gather(operands[0], op.attributes["processes"], 1)]


@family.batching("tad.reduce_scatter")
def _reduce_scatter_batch(ctx, op, operands, batched):
    return [_scatter(operands[0], op.attributes["processes"], 1)]


# --- partitioning (tad-partition) ----------------------------------------------------------

@family.partition("tad.shard")
def _partition_shard(c):
    d = ir.IntegerAttr(c.op.attributes["dim"]).value
    return [(c.block(0, d), d)]
