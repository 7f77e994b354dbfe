"""Collectives over the processes of an MPI job: ``psum``, ``all_gather``, ``reduce_scatter``, and ``pvary``.

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
Forward mode applies each op to the tangent.

Lowering (``tad-lower-to-linalg``, more than one process): a kernel
(:func:`~tensorad.dialects.library_calls.call_kernel`: the flat operand and
a fresh result buffer go to a private function of the module, a call that
keeps both alive until it returns) calls the MPI library's
``MPI_Allreduce``, ``MPI_Allgather`` or ``MPI_Reduce_scatter_block`` on
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
family.define("tad.pvary",
              operands=("operand",),
              attributes=_PROCESSES,
              summary="Identity on a value every process holds, which each process then uses its own way: its transpose is a psum.",
              traits=(Trait.PURE, Trait.VIEW, Trait.MARKER))

#: The MPICH ABI's handles (``mpi.h`` of the mpich wheel): ``MPI_COMM_WORLD``,
#: ``MPI_SUM`` and the datatype of each element type a collective takes.
MPICH_HANDLES = {"MPI_COMM_WORLD": 0x44000000, "MPI_SUM": 0x58000003,
                 "f32": 0x4c00040a, "f64": 0x4c00080b, "i32": 0x4c000439, "i64": 0x4c00083a}
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


@family.shape_rule("tad.psum", "tad.pvary")
def _psum_shape(operands, attrs, results):
    (x,) = operands
    _processes(attrs)
    _check_operand(x, prod(x.shape))
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


@family.fold("tad.psum", "tad.all_gather", "tad.reduce_scatter", "tad.pvary")
def _fold_one_process(op):
    # One process: the sum of one operand, the stack of one, the row of one.
    if ir.IntegerAttr(op.attributes["processes"]).value != 1:
        return None
    x, t = op.operands[0], op.results[0].type
    return x if x.type == t else builder.reshape(x, t.shape)


# --- lowering ------------------------------------------------------------------------

# Per collective: the MPI function, and whether its count is the operand's (else the result's).
_MPI_FUNCTIONS = {"tad.psum": ("MPI_Allreduce", True), "tad.all_gather": ("MPI_Allgather", True),
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

    handles = {"MPI_COMM_WORLD": MPI.COMM_WORLD, "MPI_SUM": MPI.SUM, "f32": MPI.FLOAT, "f64": MPI.DOUBLE,
               "i32": MPI.INT32_T, "i64": MPI.INT64_T}
    wrong = [key for key, handle in handles.items() if handle.handle != MPICH_HANDLES[key]]
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


def _kernel_body(op_name: str, processes: int, count: int, element: ir.Type):
    """The body of the kernel that runs one collective on flat buffers: one MPI call, abort if it fails."""
    name, _ = _MPI_FUNCTIONS[op_name]

    def body(kernel: Kernel, source: ir.Value, result: ir.Value) -> None:
        i32 = ir.IntegerType.get_signless(32)
        handle = lambda key: kernel.constant(MPICH_HANDLES[key], i32)  # noqa: E731
        comm, dtype, n = handle("MPI_COMM_WORLD"), handle(str(element)), kernel.constant(count, i32)
        send, receive = kernel.pointer(source), kernel.pointer(result)
        if name == "MPI_Allgather":
            arguments = [send, n, dtype, receive, n, dtype, comm]
        else:
            arguments = [send, receive, n, dtype, handle("MPI_SUM"), comm]
        code = _call(kernel, name, processes, arguments)
        failed = kernel.compare("ne", code, kernel.constant(0, i32))
        kernel.when(failed, lambda: _call(kernel, "MPI_Abort", processes, [comm, code]))

    return body


@family.lowering("tad.psum", "tad.all_gather", "tad.reduce_scatter")
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


@family.lowering("tad.pvary")
def _lower_pvary(op):
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


# psum's result and cotangent are the same on every process; the cotangent then
# reaches values each process uses its own way: pvary, whose transpose adds them up.
deflinear(family, "tad.psum", lambda c, ts: _psum(ts[0], _attr(c)), lambda c, ct: [_pvary(ct, _attr(c))])
deflinear(family, "tad.pvary", lambda c, ts: _pvary(ts[0], _attr(c)), lambda c, ct: [_psum(ct, _attr(c))])
deflinear(family, "tad.all_gather", lambda c, ts: _gather(ts[0], _attr(c), c.nb),
          lambda c, ct: [_scatter(ct, _attr(c), c.nb)])
deflinear(family, "tad.reduce_scatter", lambda c, ts: _scatter(ts[0], _attr(c), c.nb),
          lambda c, ct: [_gather(ct, _attr(c), c.nb)])


# The mapped axis is axis 0 of the (only, batched) operand: a batch prefix of one dim.
@family.batching("tad.psum")
def _psum_batch(ctx, op, operands, batched):
    return [_psum(operands[0], op.attributes["processes"])]


@family.batching("tad.all_gather")
def _all_gather_batch(ctx, op, operands, batched):
    return [_gather(operands[0], op.attributes["processes"], 1)]


@family.batching("tad.reduce_scatter")
def _reduce_scatter_batch(ctx, op, operands, batched):
    return [_scatter(operands[0], op.attributes["processes"], 1)]
