"""Calls from compiled code into libraries: LAPACK and BLAS (the copies scipy ships) and callbacks.

The lowering rule of an op that a library computes (``tad.cholesky``,
``tad.fft``, ...) calls :func:`call_kernel` at the op. That turns each operand
into a buffer (``bufferization.to_buffer``, read only: one-shot
bufferization copies it when its buffer has another layout or is written
later), allocates the results (``memref.alloc``, through the runtime's
allocator, so their bytes are counted), and calls a *kernel*: a private
function on flat row-major buffers, built once per module and signature by
the rule with a :class:`Kernel`. A kernel loops over the batch and calls the
library through plain pointers (``!llvm.ptr``), as Fortran's calling
convention wants (every argument by reference); its scratch cells are
``memref.alloca`` at its entry, its workspaces ``memref.alloc`` sized by the
library's workspace query at run time.

Library functions are declared in the module as ``func.func private
@tad_lapack_dpotrf(!llvm.ptr, ...)``; :func:`symbol_addresses` gives the
address of each one a module declares, which the runtime hands to the
ExecutionEngine. LAPACK and BLAS addresses come from the ``PyCapsule`` s of
``scipy.linalg.cython_lapack`` / ``cython_blas`` (the routines of the
OpenBLAS that scipy ships, with 32-bit integers); a callback
(:func:`define_symbol` with a ``ctypes`` function) serves a library with
only a Python interface (ducc0's FFTs).

Examples
--------
>>> addresses = dict(symbol_addresses_of([lapack_symbol("dpotrf")]))
>>> addresses["tad_lapack_dpotrf"] > 0
True
"""

from __future__ import annotations

import ctypes
import importlib
from functools import lru_cache
from math import prod
from typing import Callable, Sequence

from mlir import ir
from mlir.dialects import arith, bufferization, func, memref, scf
from mlir.dialects import complex as complex_dialect

from .record import Trait, allocation_bytes, element_bytes, has_trait

#: name -> function returning the symbol's address; filled by the op families that call out.
SYMBOLS: dict[str, Callable[[], int]] = {}

_LAPACK_PREFIX = "tad_lapack_"
# Routines (without their type letter) that come from scipy.linalg.cython_blas, not cython_lapack.
_BLAS = ("trsm",)


def define_symbol(name: str, address: Callable[[], int]) -> str:
    """Make ``name`` resolvable in compiled code: ``address()`` gives its address when a module needs it."""
    SYMBOLS.setdefault(name, address)
    return name


@lru_cache(maxsize=None)
def capsule_address(module_name: str, routine: str) -> int:
    """Address of the C function in the ``PyCapsule`` that Cython module ``module_name`` exports for ``routine``.

    Examples
    --------
    >>> capsule_address("scipy.linalg.cython_blas", "dtrsm") > 0
    True
    """
    capsule = importlib.import_module(module_name).__pyx_capi__[routine]
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype, get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return get_pointer(capsule, get_name(capsule))


def lapack_symbol(routine: str) -> str:
    """The symbol compiled code calls for LAPACK or BLAS ``routine`` (``"dpotrf"``, ``"strsm"``).

    Examples
    --------
    >>> lapack_symbol("dgetrf")
    'tad_lapack_dgetrf'
    """
    return _LAPACK_PREFIX + routine


def _address(name: str) -> int | None:
    """The address of symbol ``name``, or None for a name that is no library function of ours.

    LAPACK names are resolved by their spelling, not registered: a module may
    have been lowered in another (forked) process.
    """
    if name in SYMBOLS:
        return SYMBOLS[name]()
    if not name.startswith(_LAPACK_PREFIX):
        return None
    routine = name[len(_LAPACK_PREFIX):]
    source = "scipy.linalg.cython_blas" if routine[1:] in _BLAS else "scipy.linalg.cython_lapack"
    return capsule_address(source, routine)


def symbol_addresses_of(names: Sequence[str]) -> list:
    """``(name, address)`` of each library function among ``names`` (others are left out)."""
    found = [(name, _address(name)) for name in names]
    return [(name, address) for name, address in found if address is not None]


def symbol_addresses(module: ir.Module) -> list:
    """``(name, address)`` of every defined symbol that ``module`` (LLVM dialect) declares.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse("llvm.func @tad_lapack_dgetrf(!llvm.ptr)", make_context())
    >>> [name for name, _ in symbol_addresses(m)]
    ['tad_lapack_dgetrf']
    """
    names = [op.attributes["sym_name"].value for op in module.body.operations
             if op.operation.name in ("llvm.func", "func.func") and not op.regions[0].blocks]
    return symbol_addresses_of(names)


# ----------------------------------------------------------------------------
# The call site (tensor level)
# ----------------------------------------------------------------------------

def _enclosing_module(block: ir.Block) -> ir.Operation:
    op = block.owner
    while op.name != "builtin.module":
        op = op.parent
    return op


def _flat(t: ir.Type) -> ir.MemRefType:
    return ir.MemRefType.get([prod(t.shape)], t.element_type)


def _collapse(buffer: ir.Value) -> ir.Value:
    t = buffer.type
    return memref.CollapseShapeOp(_flat(t), buffer, [list(range(t.rank))]).result


def call_kernel(name: str, operands: Sequence[ir.Value], result_types: Sequence[ir.Type],
                body: Callable, written: Sequence[int] = ()) -> list:
    """Results of kernel ``name`` on ``operands``, called at the current insertion point.

    The kernel takes each operand and then each result as a flat row-major
    buffer (``memref<N x T>``); it is built the first time a module needs
    it, by ``body(kernel, *buffers)`` with a :class:`Kernel`, and writes
    every element of every result. The operands numbered in ``written`` it
    may overwrite too (an MPI collective in place): their new values come
    first among the results, and bufferization gives the kernel a copy of
    such an operand only where the old value is read later.
    """
    block = ir.InsertionPoint.current.block
    module = _enclosing_module(block)
    ins, updated = [], []
    for i, value in enumerate(operands):
        t = value.type
        buffer = bufferization.ToBufferOp(ir.MemRefType.get(t.shape, t.element_type), value,
                                          read_only=i not in written).result
        ins.append(_collapse(buffer))
        if i in written:
            updated.append((t, buffer))
    outs = [memref.AllocOp(ir.MemRefType.get(t.shape, t.element_type), [], []).result for t in result_types]
    flat = ins + [_collapse(b) for b in outs]
    symbols = ir.SymbolTable(module)
    if name not in symbols:
        with ir.InsertionPoint(module.regions[0].blocks[0]):
            kernel = func.FuncOp(name, ([v.type for v in flat], []), visibility="private")
            entry = kernel.add_entry_block()
            with ir.InsertionPoint(entry):
                builder = Kernel(module, entry)
                body(builder, *entry.arguments)
                builder.keep_scratch_alive()
                func.ReturnOp([])
    func.CallOp([], ir.FlatSymbolRefAttr.get(name), flat)
    return [bufferization.ToTensorOp(t, b, restrict=True, writable=True).result
            for t, b in updated + list(zip(result_types, outs))]


def kernel_scratch_bytes(op: ir.Operation, buffers: Sequence[tuple]) -> int:
    """The bytes a kernel of ``op`` may hold besides its results while it runs (remat's scratch rule).

    ``buffers`` are the ``(element type, count)`` of its :meth:`Kernel.buffer`
    and :meth:`Kernel.workspace` allocations (a workspace's ``most``),
    allocated as they are, unpadded. An operand that a view makes may be
    copied besides: ``bufferization.to_buffer`` copies a buffer of another
    layout than the kernel's flat row-major one.
    """
    viewed = [v for v in op.operands if not isinstance(v.owner, ir.Block)
              and (has_trait(v.owner.operation, Trait.VIEW) or has_trait(v.owner.operation, Trait.MAY_VIEW))]
    return sum(element_bytes(t) * max(int(count), 1) for t, count in buffers) + \
        sum(allocation_bytes(v.type) for v in viewed)


# ----------------------------------------------------------------------------
# Kernels (memref level)
# ----------------------------------------------------------------------------

class Kernel:
    """What a kernel's body is built with: index arithmetic, loops, cells, pointers and library calls.

    Sizes and offsets are ``index`` values or Python ints (folded when
    both are ints); buffers are flat memrefs.
    """

    def __init__(self, module: ir.Operation, entry: ir.Block):
        self.module = module
        self._entry = entry
        self._constant_cells: dict = {}
        self._scratch: list = []
        self.index_type = ir.IndexType.get()
        self.i32 = ir.IntegerType.get_signless(32)
        self.i64 = ir.IntegerType.get_signless(64)
        self.ptr_type = ir.Type.parse("!llvm.ptr")

    # --- index arithmetic ---------------------------------------------------------

    def index(self, value) -> ir.Value:
        """``value`` as an ``index`` value."""
        if isinstance(value, ir.Value):
            return value
        return arith.ConstantOp(self.index_type, int(value)).result

    def add(self, a, b):
        """``a + b`` of indices."""
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if isinstance(b, int) and b == 0:
            return a
        if isinstance(a, int) and a == 0:
            return b
        return arith.AddIOp(self.index(a), self.index(b)).result

    def mul(self, a, b):
        """``a * b`` of indices."""
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if isinstance(b, int) and b == 1:
            return a
        if isinstance(a, int) and a == 1:
            return b
        return arith.MulIOp(self.index(a), self.index(b)).result

    def offset(self, *terms):
        """``sum(a * b for a, b in terms)``: a flat offset from (index, stride) pairs."""
        total = 0
        for a, b in terms:
            total = self.add(total, self.mul(a, b))
        return total

    # --- control flow ---------------------------------------------------------------

    def loop(self, count, body: Callable, start=0) -> None:
        """``for i in range(start, count): body(i)`` (an ``scf.for``; nothing when it runs no times)."""
        if isinstance(count, int) and isinstance(start, int) and count <= start:
            return
        loop = scf.ForOp(self.index(start), self.index(count), self.index(1))
        with ir.InsertionPoint(loop.body):
            body(loop.induction_variable)
            scf.YieldOp([])

    def when(self, condition: ir.Value, body: Callable) -> None:
        """``if condition: body()`` (an ``scf.if``)."""
        branch = scf.IfOp(condition)
        with ir.InsertionPoint(branch.then_block):
            body()
            scf.YieldOp([])

    def compare(self, predicate: str, a, b) -> ir.Value:
        """``arith.cmpi`` of two integers or indices (``predicate`` as in ``arith.CmpIPredicate``)."""
        return arith.CmpIOp(getattr(arith.CmpIPredicate, predicate), a, b).result

    # --- elements ---------------------------------------------------------------------

    def load(self, buffer: ir.Value, i) -> ir.Value:
        """``buffer[i]``."""
        return memref.LoadOp(buffer, [self.index(i)]).result

    def store(self, value: ir.Value, buffer: ir.Value, i) -> None:
        """``buffer[i] = value``."""
        memref.StoreOp(value, buffer, [self.index(i)])

    def constant(self, value, element_type: ir.Type) -> ir.Value:
        """A scalar constant of ``element_type`` (a complex one from its parts)."""
        if isinstance(element_type, ir.ComplexType):
            part = element_type.element_type
            return complex_dialect.CreateOp(element_type, self.constant(complex(value).real, part),
                                            self.constant(complex(value).imag, part)).result
        if isinstance(element_type, ir.FloatType):
            return arith.ConstantOp(element_type, ir.FloatAttr.get(element_type, float(value))).result
        return arith.ConstantOp(element_type, ir.IntegerAttr.get(element_type, int(value))).result

    def conj(self, value: ir.Value) -> ir.Value:
        """The complex conjugate of the scalar ``value`` (``value`` itself when it is real)."""
        if not isinstance(value.type, ir.ComplexType):
            return value
        return complex_dialect.CreateOp(value.type, complex_dialect.ReOp(value).result,
                                        arith.NegFOp(complex_dialect.ImOp(value).result).result).result

    def fill(self, buffer: ir.Value, start, count, value: ir.Value) -> None:
        """``buffer[start:start + count] = value``."""
        self.loop(count, lambda i: self.store(value, buffer, self.add(start, i)))

    def copy(self, src: ir.Value, dst: ir.Value) -> None:
        """Copy all of ``src`` into ``dst`` (same size)."""
        memref.CopyOp(src, dst)

    def copy_matrix(self, src: ir.Value, src_at, src_strides: tuple, dst: ir.Value, dst_at,
                    dst_strides: tuple, rows: int, cols: int, keep: Callable | None = None) -> None:
        """``dst[dst_at + i*dr + j*dc] = src[src_at + i*sr + j*sc]`` for a ``rows x cols`` matrix.

        The strides say the layouts (``(cols, 1)`` row-major, ``(1, rows)``
        column-major), so one copy transposes between them. With ``keep``,
        ``keep(i, j)`` (an ``i1``) chooses between the element and zero (a triangle).
        """
        zero = self.constant(0, src.type.element_type) if keep is not None else None

        def element(i, j):
            value = self.load(src, self.offset((src_at, 1), (i, src_strides[0]), (j, src_strides[1])))
            if keep is not None:
                value = arith.SelectOp(keep(i, j), value, zero).result
            self.store(value, dst, self.offset((dst_at, 1), (i, dst_strides[0]), (j, dst_strides[1])))

        self.loop(rows, lambda i: self.loop(cols, lambda j: element(i, j)))

    # --- cells and pointers -----------------------------------------------------------

    def cell(self, element_type: ir.Type, count: int = 1) -> ir.Value:
        """A scratch ``memref<count x T>`` on the stack, allocated once at the kernel's entry."""
        with ir.InsertionPoint.at_block_begin(self._entry):
            return memref.AllocaOp(ir.MemRefType.get([count], element_type), [], []).result

    def constant_cell(self, value, element_type: ir.Type) -> ir.Value:
        """A pointer to a cell holding the constant ``value`` (one per value, written at the entry)."""
        key = (str(element_type), value)
        if key not in self._constant_cells:
            with ir.InsertionPoint.at_block_begin(self._entry):
                cell = memref.AllocaOp(ir.MemRefType.get([1], element_type), [], []).result
                zero = arith.ConstantOp(self.index_type, 0).result
                memref.StoreOp(self.constant(value, element_type), cell, [zero])
                self._constant_cells[key] = self.pointer(cell)
        return self._constant_cells[key]

    def char(self, letter: str) -> ir.Value:
        """A pointer to the character ``letter`` (LAPACK's ``uplo``, ``trans``, ``jobz`` flags)."""
        return self.constant_cell(ord(letter), ir.IntegerType.get_signless(8))

    def int32(self, value: int) -> ir.Value:
        """A pointer to the 32-bit integer ``value`` (LAPACK's sizes and leading dimensions)."""
        return self.constant_cell(int(value), self.i32)

    def scalar(self, value: float, element_type: ir.Type) -> ir.Value:
        """A pointer to the float ``value`` of ``element_type`` (BLAS's ``alpha``; real or complex)."""
        return self.constant_cell(float(value), element_type)

    def pointer(self, buffer: ir.Value, at=0) -> ir.Value:
        """An ``!llvm.ptr`` to element ``at`` of ``buffer`` (a memref of identity layout)."""
        base = memref.ExtractAlignedPointerAsIndexOp(buffer).result
        address = self.add(base, self.mul(at, element_bytes(buffer.type.element_type)))
        as_int = arith.IndexCastOp(self.i64, self.index(address)).result
        return ir.Operation.create("llvm.inttoptr", results=[self.ptr_type], operands=[as_int]).result

    def call(self, symbol: str, arguments: Sequence[ir.Value]) -> None:
        """Call the library function ``symbol`` with pointer arguments, declaring it in the module once."""
        symbols = ir.SymbolTable(self.module)
        if symbol not in symbols:
            with ir.InsertionPoint(self.module.regions[0].blocks[0]):  # after the entry, which comes first
                func.FuncOp(symbol, ([self.ptr_type] * len(arguments), []), visibility="private")
        func.CallOp([], ir.FlatSymbolRefAttr.get(symbol), list(arguments))

    def answer(self, query: ir.Value) -> ir.Value:
        """The size a workspace query wrote into the cell ``query`` (a float, complex or integer), as an index."""
        answer = self.load(query, 0)
        if isinstance(answer.type, ir.ComplexType):  # the c/z routines answer in the real part
            answer = complex_dialect.ReOp(answer).result
        if isinstance(answer.type, ir.FloatType):
            answer = arith.FPToSIOp(self.i64, answer).result
        else:
            answer = arith.ExtSIOp(self.i64, answer).result
        return arith.IndexCastOp(self.index_type, answer).result

    def buffer(self, element_type: ir.Type, count) -> ir.Value:
        """A scratch ``memref<count x T>`` on the heap (``count`` static or an index value).

        Buffer deallocation frees it when the kernel returns.
        """
        if isinstance(count, int):
            buffer = memref.AllocOp(ir.MemRefType.get([max(count, 1)], element_type), [], []).result
        else:
            buffer = memref.AllocOp(ir.MemRefType.get([ir.ShapedType.get_dynamic_size()], element_type),
                                    [arith.MaxSIOp(count, self.index(1)).result], []).result
        self._scratch.append(buffer)
        return buffer

    def keep_scratch_alive(self) -> None:
        """Use every scratch buffer at the kernel's end (a store into its first element).

        Library calls take pointers, which no pass sees as uses of the buffer:
        without a use after the last call, ``tad-free-after-last-use`` would
        free it while the library still writes into it.
        """
        for buffer in self._scratch:
            self.store(self.constant(0, buffer.type.element_type), buffer, 0)

    def workspace(self, queries: Sequence[ir.Value], element_type: ir.Type, most: int) -> tuple:
        """A workspace of ``element_type``: ``(pointer, pointer to its size)``.

        As large as the largest answer of the ``queries`` (cells), and at most
        ``most`` elements: a size known when compiling, which a memory budget
        counts (:func:`kernel_scratch_bytes`). ``most`` must be at least what
        the library documents as the least workspace; a smaller one than it
        would like only makes it take its unblocked path.
        """
        largest = self.answer(queries[0])
        for query in queries[1:]:
            largest = arith.MaxSIOp(largest, self.answer(query)).result
        count = arith.MinSIOp(largest, self.index(most)).result
        size = self.cell(self.i32)
        self.store(arith.IndexCastOp(self.i32, count).result, size, 0)
        return self.pointer(self.buffer(element_type, count)), self.pointer(size)
