"""Dense linear algebra computed by LAPACK: factorizations and solves of (batches of) matrices.

Ops (row-major matrices in the two trailing dims, any leading batch dims):

* ``tad.cholesky``: the lower Cholesky factor of a symmetric positive definite
  matrix (only its lower triangle is read);
* ``tad.triangular_solve``: ``op(a) x = b`` (``left_side``) or ``x op(a) = b``
  for triangular ``a``, ``op`` a transpose when ``transpose_a`` (BLAS ``trsm``);
* ``tad.solve``: ``op(a) x = b`` for a general square ``a`` (LU with partial pivoting);
* ``tad.lu``: ``p a = l u`` packed as in LAPACK, the pivots and the row permutation;
* ``tad.lu_pivots_to_permutation``: the row permutation of LAPACK pivots;
* ``tad.qr``: ``a = q r`` (reduced, or complete with ``full_matrices``);
* ``tad.eigh``: eigenvectors and ascending eigenvalues of a symmetric (complex:
  Hermitian) matrix (the triangle ``lower`` says is read; real eigenvalues);
* ``tad.svd``: ``a = u diag(s) vt``, singular values (real) descending;
* ``tad.eig``: eigenvalues and right eigenvectors of a general square matrix,
  both complex (``?geev``: each vector of unit 2-norm with its largest
  component real; the values in LAPACK's order, unsorted).

Matrices are f32, f64, complex<f32> or complex<f64>; ``op`` is a plain
transpose for complex ones too (a conjugate transpose is a conjugate around
it). Each lowers to a kernel (:mod:`tensorad.dialects.library_calls`) that
loops over the batch and calls the LAPACK (or BLAS) routine of scipy's
OpenBLAS on a copy of the operand: ``s`` routines for f32, ``d`` for f64,
``c`` and ``z`` (``ungqr``, ``heevd`` for ``orgqr``, ``syevd``) for complex;
the real ``geev`` packs a complex conjugate pair's vectors into two real
columns, which its kernel unpacks into complex ones.
LAPACK is column-major: a row-major matrix is its transpose there, which the
kernels use through the ``uplo``/``trans``/``side`` flags where they can and
undo with a transposing copy where they cannot. Workspaces are sized by the
routine's own query at run time. A factorization that fails (a matrix that
is not positive definite, an eigen or singular value iteration that does not
converge, a singular matrix in ``tad.solve``) gives NaNs for that matrix, as
JAX does; it never stops the program.

Derivative rules are JAX's (``jax._src.lax.linalg``), written with these same
ops (solves, not unrolled factorizations): the Cholesky rule solves with the
factor, ``tad.solve``'s solves with the transpose. For complex matrices they
are JAX's conjugate-transpose forms, and each vjp is the transpose of its jvp
under JAX's pairing ``Re(sum(ct * t))`` (no conjugate). Rules of ``eigh`` and ``svd``
divide by differences of eigen or singular values, so they are infinite or
NaN where those repeat (JAX's caveat). A rule reads only what its op reads:
the Cholesky and eigh rules see the tangent of the triangle they read.
``eig``'s rule is JAX's ``eig_jvp_rule`` with eigenvector derivatives
(``enable_eigvec_derivs``): ``dw = diag(v⁻¹ da v)``, and each vector's
tangent kept under LAPACK's normalization, so it holds only for distinct
eigenvalues and a vector whose largest component is not tied; its vjp is
the transpose, as JAX derives it. The batching rule of each op folds the
mapped axis into its batch dims.

Examples
--------
>>> from tensorad.dialects.record import record_of
>>> rec = record_of("tad.cholesky")
>>> rec.lowering is not None and rec.vjp is not None and rec.batching is not None
True
"""

from __future__ import annotations

from math import prod

from mlir import ir
from mlir.dialects import arith
from mlir.dialects import complex as complex_dialect

from .. import builder
from ..batching import broadcast_batch, recreate, with_batch
from ..builder import Val
from ..library_calls import Kernel, call_kernel, kernel_scratch_bytes, lapack_symbol
from ..record import Family, Trait
from ..shapes import ShapeError, TensorSpec, int_attr, need, python_attrs

family = Family("linalg_lapack")

# The flags (0/1 integer attributes) of each op that has some.
_FLAGS = {"tad.triangular_solve": ("left_side", "lower", "transpose_a", "unit_diagonal"),
          "tad.solve": ("transpose_a",), "tad.qr": ("full_matrices",), "tad.eigh": ("lower",),
          "tad.svd": ("full_matrices",)}


def _integers(names) -> tuple:
    return tuple((name, "integer") for name in names)


family.define("tad.cholesky", operands=("operand",),
              summary="Lower Cholesky factor of symmetric positive definite matrices (reads the lower triangle).")
family.define("tad.triangular_solve", operands=("a", "b"), attributes=_integers(_FLAGS["tad.triangular_solve"]),
              summary="Solves op(a) x = b (left_side) or x op(a) = b for triangular a.")
family.define("tad.solve", operands=("a", "b"), attributes=_integers(_FLAGS["tad.solve"]),
              summary="Solves op(a) x = b for square a (LU with partial pivoting).")
family.define("tad.lu", operands=("operand",), results=("lu", "pivots", "permutation"),
              summary="LU factorization with partial pivoting: packed factors, pivots, row permutation.")
family.define("tad.lu_pivots_to_permutation", operands=("pivots",), attributes=_integers(("permutation_size",)),
              summary="The row permutation that LAPACK pivots describe.",
              traits=(Trait.PURE, Trait.ZERO_DERIVATIVE))
family.define("tad.qr", operands=("operand",), results=("q", "r"), attributes=_integers(_FLAGS["tad.qr"]),
              summary="QR factorization (reduced, or complete with full_matrices).")
family.define("tad.eigh", operands=("operand",), results=("eigenvectors", "eigenvalues"),
              attributes=_integers(_FLAGS["tad.eigh"]),
              summary="Eigenvectors and ascending eigenvalues of symmetric matrices (reads one triangle).")
family.define("tad.svd", operands=("operand",), results=("u", "s", "vt"), attributes=_integers(_FLAGS["tad.svd"]),
              summary="Singular value decomposition u diag(s) vt, singular values descending.")
family.define("tad.eig", operands=("operand",), results=("eigenvalues", "eigenvectors"),
              summary="Eigenvalues and right eigenvectors (complex, unit norm) of general square matrices.")


# ----------------------------------------------------------------------------
# Builders
# ----------------------------------------------------------------------------

def _flags(names, values) -> dict:
    i64 = ir.IntegerType.get_signless(64)
    return {name: ir.IntegerAttr.get(i64, int(bool(value))) for name, value in zip(names, values)}


def _same_batch(*values) -> list:
    """``values`` (matrices) broadcast to one batch shape (their leading dims)."""
    values = [builder.wrap(v) for v in values]
    batch = builder.broadcast_shapes(*(v.shape[:-2] for v in values))
    return [builder.broadcast_to(v, batch + v.shape[-2:]) for v in values]


def cholesky(a) -> Val:
    """``tad.cholesky``: the lower factor ``l`` of ``a = l lᵀ`` (NaNs where ``a`` is not positive definite)."""
    return builder.build("tad.cholesky", [a], {})


def triangular_solve(a, b, *, left_side: bool, lower: bool, transpose_a: bool = False,
                     unit_diagonal: bool = False) -> Val:
    """``tad.triangular_solve``: ``x`` with ``op(a) x = b`` (``left_side``) or ``x op(a) = b``; batch dims broadcast."""
    a, b = _same_batch(a, b)
    return builder.build("tad.triangular_solve", [a, b], _flags(
        _FLAGS["tad.triangular_solve"], (left_side, lower, transpose_a, unit_diagonal)))


def solve(a, b, *, transpose_a: bool = False) -> Val:
    """``tad.solve``: ``x`` with ``op(a) x = b`` for matrices ``b``; batch dims broadcast."""
    a, b = _same_batch(a, b)
    return builder.build("tad.solve", [a, b], _flags(_FLAGS["tad.solve"], (transpose_a,)))


def lu(a) -> list:
    """``tad.lu``: ``[lu, pivots, permutation]`` (int32 pivots and permutation, 0-based)."""
    return builder.build_all("tad.lu", [a], {})


def lu_pivots_to_permutation(pivots, permutation_size: int) -> Val:
    """``tad.lu_pivots_to_permutation``: the permutation (int32) of ``permutation_size`` rows that ``pivots`` make."""
    i64 = ir.IntegerType.get_signless(64)
    return builder.build("tad.lu_pivots_to_permutation", [pivots],
                         {"permutation_size": ir.IntegerAttr.get(i64, int(permutation_size))})


def qr(a, *, full_matrices: bool = False) -> list:
    """``tad.qr``: ``[q, r]``."""
    return builder.build_all("tad.qr", [a], _flags(_FLAGS["tad.qr"], (full_matrices,)))


def eigh(a, *, lower: bool = True) -> list:
    """``tad.eigh``: ``[eigenvectors, eigenvalues]`` (eigenvectors in the columns)."""
    return builder.build_all("tad.eigh", [a], _flags(_FLAGS["tad.eigh"], (lower,)))


def svd(a, *, full_matrices: bool = False) -> list:
    """``tad.svd``: ``[u, s, vt]``."""
    return builder.build_all("tad.svd", [a], _flags(_FLAGS["tad.svd"], (full_matrices,)))


def eig(a) -> list:
    """``tad.eig``: ``[eigenvalues, eigenvectors]``, complex (eigenvectors in the columns, LAPACK's normalization)."""
    return builder.build_all("tad.eig", [a], {})


# ----------------------------------------------------------------------------
# Shape rules
# ----------------------------------------------------------------------------

def _matrices(spec: TensorSpec, what: str, square: bool = False) -> tuple:
    need(spec.rank >= 2, f"{what} must be a (batch of) matrices, got rank {spec.rank}")
    element = spec.element_type
    need(isinstance(element.element_type if isinstance(element, ir.ComplexType) else element,
                    (ir.F32Type, ir.F64Type)),
         f"{what} must be f32, f64 or complex of them (LAPACK's), got {element}")
    m, n = spec.shape[-2:]
    need(m > 0 and n > 0, f"{what} must have nonempty matrices, got {m}x{n}")
    if square:
        need(m == n, f"{what} must be square matrices, got {m}x{n}")
    return spec.shape[:-2], m, n


def _flag(attrs, name) -> bool:
    value = int_attr(attrs, name)
    need(value in (0, 1), f"{name} must be 0 or 1, got {value}")
    return bool(value)


def _like(spec: TensorSpec, shape) -> TensorSpec:
    return TensorSpec(tuple(shape), spec.element_type)


def _real_like(spec: TensorSpec, shape) -> TensorSpec:
    """A tensor of ``shape`` of the real type of ``spec``'s elements (eigen and singular values)."""
    element = spec.element_type
    return TensorSpec(tuple(shape), element.element_type if isinstance(element, ir.ComplexType) else element)


def _complex_like(spec: TensorSpec, shape) -> TensorSpec:
    """A tensor of ``shape`` of the complex type of ``spec``'s elements (general eigenvalues and vectors)."""
    element = spec.element_type
    return TensorSpec(tuple(shape), element if isinstance(element, ir.ComplexType) else ir.ComplexType.get(element))


def _int32(shape) -> TensorSpec:
    return TensorSpec(tuple(shape), ir.IntegerType.get_signless(32))


@family.shape_rule("tad.cholesky")
def _cholesky_shape(operands, attrs, results):
    (a,) = operands
    _matrices(a, "operand", square=True)
    return [a]


def _two_matrices(operands, what_b):
    a, b = operands
    batch, m, _ = _matrices(a, "a", square=True)
    b_batch, _, _ = _matrices(b, "b")
    need(a.element_type == b.element_type, f"element types differ: {a.element_type} vs {b.element_type}")
    need(b_batch == batch, f"a and b need the same batch dims, got {list(batch)} and {list(b_batch)}")
    return m


@family.shape_rule("tad.triangular_solve")
def _triangular_solve_shape(operands, attrs, results):
    m = _two_matrices(operands, "b")
    left = _flag(attrs, "left_side")
    for name in _FLAGS["tad.triangular_solve"][1:]:
        _flag(attrs, name)
    b = operands[1]
    size = b.shape[-2] if left else b.shape[-1]
    need(size == m, f"b's {'rows' if left else 'columns'} ({size}) must match a's size ({m})")
    return [b]


@family.shape_rule("tad.solve")
def _solve_shape(operands, attrs, results):
    m = _two_matrices(operands, "b")
    _flag(attrs, "transpose_a")
    b = operands[1]
    need(b.shape[-2] == m, f"b's rows ({b.shape[-2]}) must match a's size ({m})")
    return [b]


@family.shape_rule("tad.lu")
def _lu_shape(operands, attrs, results):
    (a,) = operands
    batch, m, n = _matrices(a, "operand")
    return [a, _int32(batch + (min(m, n),)), _int32(batch + (m,))]


@family.shape_rule("tad.lu_pivots_to_permutation")
def _pivots_shape(operands, attrs, results):
    (pivots,) = operands
    need(pivots.rank >= 1 and pivots.element_type == ir.IntegerType.get_signless(32),
         f"pivots must be an i32 tensor of rank >= 1, got {pivots.to_type()}")
    size = int_attr(attrs, "permutation_size")
    need(size >= pivots.shape[-1], f"permutation_size ({size}) must be at least the number of pivots "
                                   f"({pivots.shape[-1]})")
    return [_int32(pivots.shape[:-1] + (size,))]


@family.shape_rule("tad.qr")
def _qr_shape(operands, attrs, results):
    (a,) = operands
    batch, m, n = _matrices(a, "operand")
    k = m if _flag(attrs, "full_matrices") else min(m, n)
    return [_like(a, batch + (m, k)), _like(a, batch + (k, n))]


@family.shape_rule("tad.eigh")
def _eigh_shape(operands, attrs, results):
    (a,) = operands
    batch, n, _ = _matrices(a, "operand", square=True)
    _flag(attrs, "lower")
    return [a, _real_like(a, batch + (n,))]


@family.shape_rule("tad.eig")
def _eig_shape(operands, attrs, results):
    (a,) = operands
    batch, n, _ = _matrices(a, "operand", square=True)
    return [_complex_like(a, batch + (n,)), _complex_like(a, batch + (n, n))]


@family.shape_rule("tad.svd")
def _svd_shape(operands, attrs, results):
    (a,) = operands
    batch, m, n = _matrices(a, "operand")
    k = min(m, n)
    full = _flag(attrs, "full_matrices")
    return [_like(a, batch + (m, m if full else k)), _real_like(a, batch + (k,)),
            _like(a, batch + (n if full else k, n))]


# ----------------------------------------------------------------------------
# FLOPs (remat's cost model: a factorization is costly to recompute)
# ----------------------------------------------------------------------------

def _dims(op, operand: int = 0) -> tuple:
    shape = list(op.operands[operand].type.shape)
    return prod(shape[:-2]), shape[-2], shape[-1]


@family.flops("tad.cholesky", "tad.lu", "tad.qr", "tad.eigh", "tad.svd", "tad.eig", "tad.triangular_solve",
              "tad.solve")
def _flops(op) -> int:
    batch, m, n = _dims(op)
    k = min(m, n)
    per_matrix = {"tad.cholesky": n ** 3 // 3, "tad.lu": m * n * k, "tad.qr": 4 * m * n * k,
                  "tad.eigh": 9 * n ** 3, "tad.svd": 14 * m * n * k,
                  "tad.eig": 25 * n ** 3}.get(op.name)
    if per_matrix is None:  # the solves: (a factorization and) a solve per column of b
        _, rows, cols = _dims(op, 1)
        per_matrix = m * m * rows * cols // m + (2 * m ** 3 // 3 if op.name == "tad.solve" else 0)
    return batch * max(per_matrix, 1)


# ----------------------------------------------------------------------------
# Lowering: kernels that call LAPACK
# ----------------------------------------------------------------------------

# The complex routines of the real ones whose names differ (orthogonal -> unitary, symmetric -> Hermitian).
_COMPLEX_ROUTINES = {"orgqr": "ungqr", "syevd": "heevd"}


def _routine(name: str, element_type: ir.Type) -> str:
    if isinstance(element_type, ir.ComplexType):
        letter = "c" if isinstance(element_type.element_type, ir.F32Type) else "z"
        return lapack_symbol(letter + _COMPLEX_ROUTINES.get(name, name))
    return lapack_symbol(("s" if isinstance(element_type, ir.F32Type) else "d") + name)


def _real_type(element_type: ir.Type) -> ir.Type:
    return element_type.element_type if isinstance(element_type, ir.ComplexType) else element_type


def _kernel_name(op, *parts) -> str:
    shape = "x".join(str(n) for n in op.operands[0].type.shape)
    attrs = python_attrs(op)
    flags = "".join(str(attrs[name].value) for name in sorted(attrs))
    return "_".join(["__tad", op.name[4:], shape, str(op.operands[0].type.element_type), flags, *parts]).rstrip("_")


def _lower(op, body) -> list:
    """Call the kernel ``body(k, *buffers)`` of ``op`` (built once per module and signature)."""
    extra = "x".join(str(n) for n in op.operands[1].type.shape) if len(op.operands) > 1 else ""
    return call_kernel(_kernel_name(op, extra), list(op.operands), [r.type for r in op.results], body)


def _nan_if_failed(k: Kernel, info: ir.Value, regions) -> None:
    """Fill each ``(buffer, start, count)`` of ``regions`` with NaN when the ``info`` cell is not 0."""
    failed = k.compare("ne", k.load(info, 0), k.constant(0, k.i32))

    def fill():
        for buffer, start, count in regions:
            k.fill(buffer, start, count, k.constant(float("nan"), buffer.type.element_type))

    k.when(failed, fill)


def _copy_range(k: Kernel, src, src_at, dst, dst_at, count: int) -> None:
    k.loop(count, lambda i: k.store(k.load(src, k.add(src_at, i)), dst, k.add(dst_at, i)))


def _scratch_buffers(op) -> dict:
    """name -> ``(element type, count)`` of the buffers and workspaces the kernel of ``op`` allocates.

    The lowerings allocate exactly these (:meth:`Kernel.buffer`, and
    :meth:`Kernel.workspace` with the count as its ``most``), and
    :func:`_lapack_scratch` counts them. A workspace's ``most`` is LAPACK's
    documented least size plus 64 elements per row and column (room for a
    blocked path), so it is also at least the least the routine accepts.
    """
    i32 = ir.IntegerType.get_signless(32, op.context)
    element = op.operands[0].type.element_type
    real = _real_type(element)
    _, m, n = _dims(op)
    count = min(m, n)
    if op.name == "tad.solve":
        cols = _dims(op, 1)[2]
        return {"factors": (element, n * n), "rhs": (element, n * cols), "pivots": (i32, n)}
    if op.name == "tad.lu":
        return {"factors": (element, m * n), "pivots": (i32, count)}
    if op.name == "tad.qr":
        q_cols = op.results[0].type.shape[-1]
        width = max(n, q_cols)
        return {"factors": (element, m * width), "tau": (element, count), "work": (element, 64 * (width + 1))}
    if op.name == "tad.eigh":
        complex_ = isinstance(element, ir.ComplexType)
        least_work = 2 * n + n * n if complex_ else 1 + 6 * n + 2 * n * n  # ?heevd / ?syevd, jobz = V
        found = {"vectors": (element, n * n), "work": (element, least_work + 64 * n), "iwork": (i32, 3 + 5 * n)}
        if complex_:
            found["rwork"] = (real, 1 + 5 * n + 2 * n * n)
        return found
    if op.name == "tad.svd":
        big = max(m, n)
        found = {"copy": (element, m * n), "iwork": (i32, 8 * count),
                 # ?gesdd with jobz = S or A (the larger of the formulas LAPACK's versions document)
                 "work": (element, 4 * count * count + 7 * count + big + 64 * (m + n))}
        if isinstance(element, ir.ComplexType):  # the real workspace cgesdd/zgesdd's documentation gives
            found["rwork"] = (real, max(5 * count * count + 5 * count, 2 * big * count + 2 * count * count + count))
        return found
    if op.name == "tad.eig":
        complex_ = isinstance(element, ir.ComplexType)
        least_work = 2 * n if complex_ else 4 * n  # ?geev with jobvr = V
        found = {"copy": (element, n * n), "vectors": (element, n * n), "work": (element, least_work + 128 * n)}
        if complex_:
            found["rwork"] = (real, 2 * n)
        else:  # the real and imaginary parts of the eigenvalues
            found["wr"], found["wi"] = (real, n), (real, n)
        return found
    return {}


@family.scratch("tad.cholesky", "tad.triangular_solve", "tad.solve", "tad.lu", "tad.qr", "tad.eigh", "tad.svd",
                "tad.eig")
def _lapack_scratch(op) -> int:
    return kernel_scratch_bytes(op, list(_scratch_buffers(op).values()))


@family.lowering("tad.cholesky")
def _lower_cholesky(op):
    t = op.operands[0].type
    batch, n, _ = _dims(op)

    def body(k, a, out):
        k.copy(a, out)
        info = k.cell(k.i32)
        uplo, size, info_p = k.char("U"), k.int32(n), k.pointer(info)  # row-major lower = column-major upper
        zero = k.constant(0, t.element_type)

        def one(b):
            at = k.mul(b, n * n)
            k.call(_routine("potrf", t.element_type), [uplo, size, k.pointer(out, at), size, info_p])
            k.loop(n, lambda i: k.loop(n, lambda j: k.store(zero, out, k.offset((at, 1), (i, n), (j, 1))),
                                       start=k.add(i, 1)))
            _nan_if_failed(k, info, [(out, at, n * n)])

        k.loop(batch, one)

    return _lower(op, body)


@family.lowering("tad.triangular_solve")
def _lower_triangular_solve(op):
    attrs = {name: bool(python_attrs(op)[name].value) for name in _FLAGS["tad.triangular_solve"]}
    t = op.operands[0].type
    batch, m, _ = _dims(op)
    _, rows, cols = _dims(op, 1)

    def body(k, a, b, out):
        # Row-major b is column-major bᵀ (cols x rows): op(a) x = b becomes xᵀ op(a)ᵀ = bᵀ, a side
        # swap, and row-major a is column-major aᵀ, whose other triangle is filled.
        k.copy(b, out)
        flags = [k.char("R" if attrs["left_side"] else "L"), k.char("U" if attrs["lower"] else "L"),
                 k.char("T" if attrs["transpose_a"] else "N"), k.char("U" if attrs["unit_diagonal"] else "N")]
        lda, ldb = k.int32(m), k.int32(cols)
        one_p = k.scalar(1.0, t.element_type)

        def one(i):
            k.call(_routine("trsm", t.element_type),
                   [*flags, k.int32(cols), k.int32(rows), one_p, k.pointer(a, k.mul(i, m * m)), lda,
                    k.pointer(out, k.mul(i, rows * cols)), ldb])

        k.loop(batch, one)

    return _lower(op, body)


@family.lowering("tad.solve")
def _lower_solve(op):
    transpose_a = bool(python_attrs(op)["transpose_a"].value)
    t = op.operands[0].type
    batch, n, _ = _dims(op)
    _, _, cols = _dims(op, 1)
    scratch = _scratch_buffers(op)

    def body(k, a, b, out):
        factors, rhs, pivots = (k.buffer(*scratch[name]) for name in ("factors", "rhs", "pivots"))
        info = k.cell(k.i32)
        size, info_p = k.int32(n), k.pointer(info)
        # Row-major a is column-major aᵀ: its factors solve a x = b with trans = "T".
        trans = k.char("N" if transpose_a else "T")

        def one(i):
            at_a, at_b = k.mul(i, n * n), k.mul(i, n * cols)
            _copy_range(k, a, at_a, factors, 0, n * n)
            k.call(_routine("getrf", t.element_type),
                   [size, size, k.pointer(factors), size, k.pointer(pivots), info_p])
            k.copy_matrix(b, at_b, (cols, 1), rhs, 0, (1, n), n, cols)
            k.call(_routine("getrs", t.element_type),
                   [trans, size, k.int32(cols), k.pointer(factors), size, k.pointer(pivots), k.pointer(rhs),
                    size, k.pointer(k.cell(k.i32))])
            k.copy_matrix(rhs, 0, (1, n), out, at_b, (cols, 1), n, cols)
            _nan_if_failed(k, info, [(out, at_b, n * cols)])  # a singular matrix

        k.loop(batch, one)

    return _lower(op, body)


def _permutation(k: Kernel, pivots, pivots_at, count, out, out_at, size: int) -> None:
    """``out[out_at:out_at + size]``: the rows 0..size-1 swapped as ``count`` pivots say, in order."""
    k.loop(size, lambda i: k.store(arith.IndexCastOp(k.i32, i).result, out, k.add(out_at, i)))

    def swap(i):
        j = arith.IndexCastOp(k.index_type, k.load(pivots, k.add(pivots_at, i))).result
        row_i, row_j = k.load(out, k.add(out_at, i)), k.load(out, k.add(out_at, j))
        k.store(row_j, out, k.add(out_at, i))
        k.store(row_i, out, k.add(out_at, j))

    k.loop(count, swap)


@family.lowering("tad.lu")
def _lower_lu(op):
    t = op.operands[0].type
    batch, m, n = _dims(op)
    count = min(m, n)
    scratch = _scratch_buffers(op)

    def body(k, a, lu_out, pivots_out, permutation_out):
        factors, pivots = k.buffer(*scratch["factors"]), k.buffer(*scratch["pivots"])
        info_p = k.pointer(k.cell(k.i32))  # info > 0 (an exactly singular u) is no failure

        def one(i):
            at = k.mul(i, m * n)
            k.copy_matrix(a, at, (n, 1), factors, 0, (1, m), m, n)
            k.call(_routine("getrf", t.element_type),
                   [k.int32(m), k.int32(n), k.pointer(factors), k.int32(m), k.pointer(pivots), info_p])
            k.copy_matrix(factors, 0, (1, m), lu_out, at, (n, 1), m, n)
            one_i32 = k.constant(1, k.i32)
            k.loop(count, lambda j: k.store(arith.SubIOp(k.load(pivots, j), one_i32).result, pivots_out,
                                            k.add(k.mul(i, count), j)))
            _permutation(k, pivots_out, k.mul(i, count), count, permutation_out, k.mul(i, m), m)

        k.loop(batch, one)

    return _lower(op, body)


@family.lowering("tad.lu_pivots_to_permutation")
def _lower_pivots(op):
    shape = list(op.operands[0].type.shape)
    batch, count = prod(shape[:-1]), shape[-1]
    size = op.results[0].type.shape[-1]

    def body(k, pivots, out):
        k.loop(batch, lambda i: _permutation(k, pivots, k.mul(i, count), count, out, k.mul(i, size), size))

    return call_kernel(_kernel_name(op), list(op.operands), [op.results[0].type], body)


@family.lowering("tad.qr")
def _lower_qr(op):
    t = op.operands[0].type
    element = t.element_type
    batch, m, n = _dims(op)
    count = min(m, n)
    q_cols = op.results[0].type.shape[-1]
    r_rows = op.results[1].type.shape[-2]
    scratch = _scratch_buffers(op)

    def body(k, a, q_out, r_out):
        factors, tau = k.buffer(*scratch["factors"]), k.buffer(*scratch["tau"])
        info, query = k.cell(k.i32), k.cell(element)
        info_p, query_p, ask = k.pointer(info), k.pointer(query), k.int32(-1)
        rows, q_size, reflectors = k.int32(m), k.int32(q_cols), k.int32(count)
        geqrf, orgqr = _routine("geqrf", element), _routine("orgqr", element)
        k.call(geqrf, [rows, k.int32(n), k.pointer(factors), rows, k.pointer(tau), query_p, ask, info_p])
        first = k.cell(element)
        k.copy(query, first)
        k.call(orgqr, [rows, q_size, reflectors, k.pointer(factors), rows, k.pointer(tau), query_p, ask, info_p])
        work, work_size = k.workspace([first, query], *scratch["work"])

        def one(i):
            at_q, at_r = k.mul(i, m * q_cols), k.mul(i, r_rows * n)
            k.copy_matrix(a, k.mul(i, m * n), (n, 1), factors, 0, (1, m), m, n)
            k.call(geqrf, [rows, k.int32(n), k.pointer(factors), rows, k.pointer(tau), work, work_size, info_p])
            k.copy_matrix(factors, 0, (1, m), r_out, at_r, (n, 1), r_rows, n,
                          keep=lambda r, c: k.compare("uge", c, r))
            k.call(orgqr, [rows, q_size, reflectors, k.pointer(factors), rows, k.pointer(tau), work, work_size,
                           info_p])
            k.copy_matrix(factors, 0, (1, m), q_out, at_q, (q_cols, 1), m, q_cols)
            _nan_if_failed(k, info, [(q_out, at_q, m * q_cols), (r_out, at_r, r_rows * n)])

        k.loop(batch, one)

    return _lower(op, body)


@family.lowering("tad.eigh")
def _lower_eigh(op):
    lower = bool(python_attrs(op)["lower"].value)
    element = op.operands[0].type.element_type
    batch, n, _ = _dims(op)

    complex_ = isinstance(element, ir.ComplexType)
    scratch = _scratch_buffers(op)

    def body(k, a, v_out, w_out):
        vectors = k.buffer(*scratch["vectors"])
        info, query, int_query = k.cell(k.i32), k.cell(element), k.cell(k.i32)
        real_query = k.cell(_real_type(element))
        info_p, ask, size = k.pointer(info), k.int32(-1), k.int32(n)
        jobz, uplo = k.char("V"), k.char("U" if lower else "L")  # row-major lower = column-major upper
        syevd = _routine("syevd", element)

        def call(w, work, rwork, iwork):  # heevd takes a real workspace between the two others
            k.call(syevd, [jobz, uplo, size, k.pointer(vectors), size, w, *work, *(rwork if complex_ else ()),
                           *iwork, info_p])

        call(k.pointer(w_out), (k.pointer(query), ask), (k.pointer(real_query), ask), (k.pointer(int_query), ask))
        work = k.workspace([query], *scratch["work"])
        rwork = k.workspace([real_query], *scratch["rwork"]) if complex_ else ()
        iwork = k.workspace([int_query], *scratch["iwork"])

        def one(i):
            at_v, at_w = k.mul(i, n * n), k.mul(i, n)
            # Row-major a is column-major aᵀ, which is conj(a) for a Hermitian a: the copy conjugates it back.
            k.loop(n * n, lambda j: k.store(k.conj(k.load(a, k.add(at_v, j))), vectors, j))
            call(k.pointer(w_out, at_w), work, rwork, iwork)
            # The eigenvectors are the columns of a column-major matrix.
            k.copy_matrix(vectors, 0, (1, n), v_out, at_v, (n, 1), n, n)
            _nan_if_failed(k, info, [(v_out, at_v, n * n), (w_out, at_w, n)])

        k.loop(batch, one)

    return _lower(op, body)


@family.lowering("tad.svd")
def _lower_svd(op):
    element = op.operands[0].type.element_type
    full = bool(python_attrs(op)["full_matrices"].value)
    batch, m, n = _dims(op)
    count = min(m, n)
    u_cols, vt_rows = op.results[0].type.shape[-1], op.results[2].type.shape[-2]
    scratch = _scratch_buffers(op)

    def body(k, a, u_out, s_out, vt_out):
        # Row-major a is column-major aᵀ = v s uᵀ: LAPACK's u is our vᵀ and its vᵀ our u, as they lie.
        copy = k.buffer(*scratch["copy"])
        iwork = k.pointer(k.buffer(*scratch["iwork"]))
        rwork = [k.pointer(k.buffer(*scratch["rwork"]))] if "rwork" in scratch else []
        info, query = k.cell(k.i32), k.cell(element)
        info_p, jobz = k.pointer(info), k.char("A" if full else "S")
        rows, cols, ld_u = k.int32(n), k.int32(m), k.int32(u_cols)
        gesdd = _routine("gesdd", element)

        def call(i, work, work_size):
            k.call(gesdd, [jobz, rows, cols, k.pointer(copy), rows, k.pointer(s_out, k.mul(i, count)),
                           k.pointer(vt_out, k.mul(i, vt_rows * n)), rows, k.pointer(u_out, k.mul(i, m * u_cols)),
                           ld_u, work, work_size, *rwork, iwork, info_p])

        call(0, k.pointer(query), k.int32(-1))
        work, work_size = k.workspace([query], *scratch["work"])

        def one(i):
            _copy_range(k, a, k.mul(i, m * n), copy, 0, m * n)
            call(i, work, work_size)
            _nan_if_failed(k, info, [(u_out, k.mul(i, m * u_cols), m * u_cols), (s_out, k.mul(i, count), count),
                                     (vt_out, k.mul(i, vt_rows * n), vt_rows * n)])

        k.loop(batch, one)

    return _lower(op, body)


def _all_finite(k: Kernel, buffer, count: int) -> ir.Value:
    """Whether the first ``count`` elements of ``buffer`` (real or complex) are finite, an ``i1``.

    ``x - x`` is 0 for a finite ``x`` and NaN for an inf or a NaN, so the
    sum of those of every part is 0 exactly when all are finite.
    """
    element = buffer.type.element_type
    real = _real_type(element)
    total = k.cell(real)
    k.store(k.constant(0.0, real), total, 0)

    def add(j):
        value = k.load(buffer, j)
        parts = [complex_dialect.ReOp(value).result, complex_dialect.ImOp(value).result] \
            if isinstance(element, ir.ComplexType) else [value]
        for part in parts:
            k.store(arith.AddFOp(k.load(total, 0), arith.SubFOp(part, part).result).result, total, 0)

    k.loop(count, add)
    return arith.CmpFOp(arith.CmpFPredicate.OEQ, k.load(total, 0), k.constant(0.0, real)).result


def _unpack_conjugate_pairs(k: Kernel, wr, wi, vectors, w_out, at_w, v_out, at_v, n: int) -> None:
    """Complex eigenvalues and row-major eigenvectors from real ``?geev``'s packed output.

    ``?geev`` gives a complex conjugate pair (``wi[j] > 0``, then
    ``wi[j + 1] = -wi[j]``) one pair of real columns: ``j`` holds the real
    part of ``w[j]``'s vector and ``j + 1`` its imaginary part, ``w[j + 1]``'s
    being the conjugate. So column ``j`` reads its real part from column
    ``j`` (``j - 1`` for the second of a pair) and its imaginary part from
    column ``j + 1`` (for the second of a pair column ``j`` negated; zero
    for a real eigenvalue). The neighbours are clamped into the matrix:
    after a failed call (whose results become NaNs) ``wi`` may pair
    columns that are not there.
    """
    real = wr.type.element_type
    complex_ = w_out.type.element_type
    zero, one = k.constant(0.0, real), k.index(1)

    def column(j):
        imaginary = k.load(wi, j)
        first = arith.CmpFOp(arith.CmpFPredicate.OGT, imaginary, zero).result
        second = arith.CmpFOp(arith.CmpFPredicate.OLT, imaginary, zero).result
        k.store(complex_dialect.CreateOp(complex_, k.load(wr, j), imaginary).result, w_out, k.add(at_w, j))
        previous = arith.MaxSIOp(arith.SubIOp(j, one).result, k.index(0)).result
        following = arith.MinSIOp(k.add(j, 1), k.index(n - 1)).result
        re_column = arith.SelectOp(second, previous, j).result
        im_column = arith.SelectOp(first, following, j).result

        def row(r):
            re = k.load(vectors, k.offset((re_column, n), (r, 1)))
            im = k.load(vectors, k.offset((im_column, n), (r, 1)))
            im = arith.SelectOp(first, im, arith.SelectOp(second, arith.NegFOp(im).result, zero).result).result
            k.store(complex_dialect.CreateOp(complex_, re, im).result, v_out, k.offset((at_v, 1), (r, n), (j, 1)))

        k.loop(n, row)

    k.loop(n, column)


@family.lowering("tad.eig")
def _lower_eig(op):
    element = op.operands[0].type.element_type
    batch, n, _ = _dims(op)
    complex_ = isinstance(element, ir.ComplexType)
    scratch = _scratch_buffers(op)

    def body(k, a, w_out, v_out):
        copy, vectors = k.buffer(*scratch["copy"]), k.buffer(*scratch["vectors"])
        if complex_:
            rwork = [k.pointer(k.buffer(*scratch["rwork"]))]
        else:
            wr, wi, rwork = k.buffer(*scratch["wr"]), k.buffer(*scratch["wi"]), []
        info, query = k.cell(k.i32), k.cell(element)
        info_p, size = k.pointer(info), k.int32(n)
        jobs = [k.char("N"), k.char("V")]  # right eigenvectors only: vl is not read, and its ld is 1
        unused_vl = [k.pointer(k.cell(element)), k.int32(1)]
        geev = _routine("geev", element)

        def call(i, work, work_size):
            values = [k.pointer(w_out, k.mul(i, n))] if complex_ else [k.pointer(wr), k.pointer(wi)]
            k.call(geev, [*jobs, size, k.pointer(copy), size, *values, *unused_vl, k.pointer(vectors), size,
                          work, work_size, *rwork, info_p])

        call(0, k.pointer(query), k.int32(-1))
        work, work_size = k.workspace([query], *scratch["work"])

        def one(i):
            at_v, at_w = k.mul(i, n * n), k.mul(i, n)

            def decompose():
                call(i, work, work_size)
                if complex_:  # the eigenvectors are the columns of a column-major matrix
                    k.copy_matrix(vectors, 0, (1, n), v_out, at_v, (n, 1), n, n)
                else:
                    _unpack_conjugate_pairs(k, wr, wi, vectors, w_out, at_w, v_out, at_v, n)

            # Row-major a is column-major aᵀ, whose right eigenvectors are a's left ones (conjugated):
            # a transposing copy gives LAPACK a itself.
            k.copy_matrix(a, at_v, (n, 1), copy, 0, (1, n), n, n)
            # geev of a matrix holding an inf or NaN may answer finite nonsense (and its balancing
            # prints an error): such a matrix is not decomposed but failed, NaNs as JAX's kernel gives.
            k.store(k.constant(1, k.i32), info, 0)
            k.when(_all_finite(k, copy, n * n), decompose)
            _nan_if_failed(k, info, [(w_out, at_w, n), (v_out, at_v, n * n)])

        k.loop(batch, one)

    return _lower(op, body)


# ----------------------------------------------------------------------------
# Derivative helpers (on (co)tangents with a batch prefix: matrices in the last two dims)
# ----------------------------------------------------------------------------

def _mT(x) -> Val:
    """``x`` with its last two dims swapped."""
    x = builder.wrap(x)
    return builder.transpose(x, list(range(x.ndim - 2)) + [x.ndim - 1, x.ndim - 2])


def _conj(x) -> Val:
    """The complex conjugate of ``x`` (``x`` itself when it is real)."""
    x = builder.wrap(x)
    return builder.conj(x) if x.is_complex else x


def _mH(x) -> Val:
    """The conjugate transpose of the matrices of ``x``."""
    return _conj(_mT(x))


def _as_type_of(x, like) -> Val:
    """``x`` (real) converted to the element type of ``like`` (a real or complex value)."""
    x, like = builder.wrap(x), builder.wrap(like)
    return x if x.element_type == like.element_type else builder.convert(x, like.element_type)


def _mm(a, b, transpose_a: bool = False, transpose_b: bool = False) -> Val:
    """Batched matrix product ``op(a) @ op(b)`` (``op`` a transpose where asked); leading dims broadcast."""
    a, b = _same_batch(a, b)
    nb = a.ndim - 2
    return builder.dot_general(a, b, list(range(nb)), list(range(nb)), [nb if transpose_a else nb + 1],
                               [nb + 1 if transpose_b else nb])


def _mask(shape, keep) -> Val:
    """An ``i1`` matrix of ``shape`` (rows, cols): ``keep(rows - cols)`` of each element's offset."""
    i64 = ir.IntegerType.get_signless(64)
    rows, cols = builder.iota(shape, 0, i64), builder.iota(shape, 1, i64)
    return keep(rows - cols)


def _tril(x, k: int = 0) -> Val:
    """The lower triangle of ``x`` below the ``k``-th diagonal, zeros elsewhere."""
    x = builder.wrap(x)
    return builder.select(_mask(x.shape[-2:], lambda d: builder.compare("ge", d, -k)), x, 0.0)


def _triu(x, k: int = 0) -> Val:
    """The upper triangle of ``x`` above the ``k``-th diagonal, zeros elsewhere."""
    x = builder.wrap(x)
    return builder.select(_mask(x.shape[-2:], lambda d: builder.compare("le", d, -k)), x, 0.0)


def _eye(n: int, element_type: ir.Type) -> Val:
    return builder.convert(_mask((n, n), lambda d: builder.equal(d, 0)), element_type)


def _diagonal(x) -> Val:
    """The diagonal ``x[..., i, i]`` of square matrices."""
    x = builder.wrap(x)
    return builder.sum(x * _eye(x.shape[-1], x.element_type), [x.ndim - 1])


def _scale_columns(x, v) -> Val:
    """``x @ diag(v)``: column ``j`` of ``x`` times ``v[..., j]`` (a real ``v`` scales complex ``x`` too)."""
    v = _as_type_of(v, x)
    return builder.wrap(x) * builder.reshape(v, v.shape[:-1] + (1, v.shape[-1]))


def _scale_rows(x, v) -> Val:
    """``diag(v) @ x``: row ``i`` of ``x`` times ``v[..., i]``."""
    v = _as_type_of(v, x)
    return builder.wrap(x) * builder.reshape(v, v.shape + (1,))


def _column_sums(x) -> Val:
    """The sums of the columns of the matrices of ``x`` (over their rows)."""
    x = builder.wrap(x)
    return builder.sum(x, [x.ndim - 2])


def _diag_matrix(v) -> Val:
    """``diag(v)`` of the vectors in the last dim of ``v``."""
    v = builder.wrap(v)
    return _scale_columns(_eye(v.shape[-1], v.element_type), v)


def _real_diagonal(x) -> Val:
    """The diagonal of ``x`` as a diagonal matrix, of its real part when complex (what LAPACK reads of it)."""
    x = builder.wrap(x)
    if x.is_complex:
        x = builder.make_complex(builder.real(x), builder.zeros_like(builder.real(x)))
    return x * _eye(x.shape[-1], x.element_type)


def _imaginary_diagonal(x) -> Val | None:
    """``i Im(x)`` on the diagonal as a diagonal matrix; None for a real ``x`` (where it is zero).

    A linear map that is its own transpose under JAX's pairing: the
    correction that complex QR and SVD rules add to their unitary factors.
    """
    x = builder.wrap(x)
    if not x.is_complex:
        return None
    return builder.make_complex(builder.zeros_like(builder.imag(x)), builder.imag(x)) * \
        _eye(x.shape[-1], x.element_type)


def _plus(*terms) -> Val:
    """The sum of the ``terms`` that are not None."""
    terms = [t for t in terms if t is not None]
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


def _symmetric_from(x, lower: bool) -> Val:
    """The symmetric (Hermitian) matrix that the triangle ``lower`` says of ``x`` stands for: what eigh and
    cholesky read (of the diagonal of a complex one, its real part)."""
    strict = _tril(x, -1) if lower else _triu(x, 1)
    return strict + _mH(strict) + _real_diagonal(x)


def _symmetric_from_transpose(g, lower: bool) -> Val:
    """The transpose of :func:`_symmetric_from`: the cotangent of the triangle read, zeros elsewhere."""
    strict = _tril(g, -1) + _tril(_mH(g), -1) if lower else _triu(g, 1) + _triu(_mH(g), 1)
    return strict + _real_diagonal(g)


def _flag_attrs(c, op_name: str) -> dict:
    return {name: bool(c.attrs[name].value) for name in _FLAGS[op_name]}


# ----------------------------------------------------------------------------
# Derivative rules
# ----------------------------------------------------------------------------

def _phi(x) -> Val:
    """The lower triangle of ``x`` with its diagonal halved."""
    x = builder.wrap(x)
    return _tril(x) - x * (_eye(x.shape[-1], x.element_type) * 0.5)


@family.jvp("tad.cholesky")
def _cholesky_jvp(c, tangents):
    (t,) = tangents
    l = c.outputs[0]
    sigma = _symmetric_from(t, lower=True)
    # sigma l⁻ᴴ, as conj(conj(sigma) l⁻ᵀ)
    tmp = _conj(triangular_solve(l, _conj(sigma), left_side=False, lower=True, transpose_a=True))
    return [_mm(l, _phi(triangular_solve(l, tmp, left_side=True, lower=True)))]


@family.vjp("tad.cholesky")
def _cholesky_vjp(c, cotangents):
    (ct,) = cotangents
    l = c.outputs[0]
    x = triangular_solve(l, _phi(_mm(l, ct, transpose_a=True)), left_side=True, lower=True, transpose_a=True)
    # The transpose of sigma -> sigma l⁻ᴴ: x -> x conj(l)⁻¹.
    ct_sigma = _conj(triangular_solve(l, _conj(x), left_side=False, lower=True))
    return [_symmetric_from_transpose(ct_sigma, lower=True)]


def _triangle_of(c, g) -> Val:
    """The part of ``g`` in the triangle of ``a`` that a triangular solve reads."""
    f = _flag_attrs(c, "tad.triangular_solve")
    k = 1 if f["unit_diagonal"] else 0
    return _tril(g, -k) if f["lower"] else _triu(g, k)


def _trsm(c, a, rhs, transpose: bool = False) -> Val:
    f = _flag_attrs(c, "tad.triangular_solve")
    return triangular_solve(a, rhs, left_side=f["left_side"], lower=f["lower"],
                            transpose_a=f["transpose_a"] != transpose, unit_diagonal=f["unit_diagonal"])


@family.jvp("tad.triangular_solve")
def _triangular_solve_jvp(c, tangents):
    t_a, t_b = tangents
    a, x = c.inputs[0], c.outputs[0]
    f = _flag_attrs(c, "tad.triangular_solve")
    terms = []
    if t_b is not None:
        terms.append(_trsm(c, a, t_b))
    if t_a is not None:
        # dx = -op(a)⁻¹ op(da) x (left) or -x op(da) op(a)⁻¹ (right)
        g, transposed = _triangle_of(c, t_a), f["transpose_a"]
        product = _mm(g, x, transpose_a=transposed) if f["left_side"] else _mm(x, g, transpose_b=transposed)
        terms.append(-_trsm(c, a, product))
    return [terms[0] if len(terms) == 1 else terms[0] + terms[1]]


@family.vjp("tad.triangular_solve")
def _triangular_solve_vjp(c, cotangents):
    (ct,) = cotangents
    a, x = c.inputs[0], c.outputs[0]
    f = _flag_attrs(c, "tad.triangular_solve")
    ct_b = _trsm(c, a, ct, transpose=True)
    g = -_mm(ct_b, x, transpose_b=True) if f["left_side"] else -_mm(x, ct_b, transpose_a=True)
    return [_triangle_of(c, _mT(g) if f["transpose_a"] else g), ct_b]


@family.jvp("tad.solve")
def _solve_jvp(c, tangents):
    t_a, t_b = tangents
    a, x = c.inputs[0], c.outputs[0]
    transposed = _flag_attrs(c, "tad.solve")["transpose_a"]
    rhs = t_b
    if t_a is not None:
        product = -_mm(t_a, x, transpose_a=transposed)
        rhs = product if rhs is None else rhs + product
    return [solve(a, rhs, transpose_a=transposed)]


@family.vjp("tad.solve")
def _solve_vjp(c, cotangents):
    (ct,) = cotangents
    a, x = c.inputs[0], c.outputs[0]
    transposed = _flag_attrs(c, "tad.solve")["transpose_a"]
    ct_b = solve(a, ct, transpose_a=not transposed)
    ct_a = -_mm(x, ct_b, transpose_b=True) if transposed else -_mm(ct_b, x, transpose_b=True)
    return [ct_a, ct_b]


def _permutation_matrix(permutation, element_type: ir.Type) -> Val:
    """The one-hot matrix ``p`` with ``(p @ a)[i] = a[permutation[i]]``."""
    permutation = builder.wrap(permutation)
    m = permutation.shape[-1]
    columns = builder.iota((m, m), 1, permutation.element_type)
    rows = builder.reshape(permutation, permutation.shape + (1,))
    return builder.convert(builder.equal(rows, columns), element_type)


def _lu_factors(lu_packed) -> tuple:
    """``l`` (m x m, unit lower) and ``u`` (n x n, upper, padded with the identity) of packed factors."""
    lu_packed = builder.wrap(lu_packed)
    m, n = lu_packed.shape[-2:]
    k = min(m, n)
    batch, zero = lu_packed.shape[:-2], builder.constant(0, (), lu_packed.element_type)
    low = _tril(builder.slice_(lu_packed, [0] * len(batch) + [0, 0], list(batch) + [m, k],
                               [1] * (len(batch) + 2)), -1)
    l = builder.pad(low, zero, [0] * (len(batch) + 2), [0] * (len(batch) + 1) + [m - k],
                    [0] * (len(batch) + 2)) + _eye(m, lu_packed.element_type)
    up = _triu(builder.slice_(lu_packed, [0] * (len(batch) + 2), list(batch) + [k, n], [1] * (len(batch) + 2)))
    u = builder.pad(up, zero, [0] * (len(batch) + 2), [0] * len(batch) + [n - k, 0], [0] * (len(batch) + 2))
    if n > k:  # u's rows below the k-th are the identity's
        i64 = ir.IntegerType.get_signless(64)
        u = u + _diag_matrix(builder.convert(builder.compare("ge", builder.iota((n,), 0, i64), k),
                                             lu_packed.element_type))
    return l, u


@family.jvp("tad.lu")
def _lu_jvp(c, tangents):
    (t,) = tangents
    lu_packed, _, permutation = c.outputs
    l, u = _lu_factors(lu_packed)
    x = _mm(_permutation_matrix(permutation, lu_packed.element_type), t)
    la = triangular_solve(l, x, left_side=True, lower=True, unit_diagonal=True)
    lau = triangular_solve(u, la, left_side=False, lower=False)
    return [_mm(l, _tril(lau, -1)) + _mm(_triu(lau), u), None, None]


@family.vjp("tad.lu")
def _lu_vjp(c, cotangents):
    ct = cotangents[0]
    lu_packed, _, permutation = c.outputs
    l, u = _lu_factors(lu_packed)
    ct_lau = _tril(_mm(l, ct, transpose_a=True), -1) + _triu(_mm(ct, u, transpose_b=True))
    ct_la = triangular_solve(u, ct_lau, left_side=False, lower=False, transpose_a=True)
    ct_x = triangular_solve(l, ct_la, left_side=True, lower=True, transpose_a=True, unit_diagonal=True)
    return [_mm(_permutation_matrix(permutation, lu_packed.element_type), ct_x, transpose_a=True)]


def _qr_checked(c) -> tuple:
    """``q, r`` of a QR whose derivative exists as JAX defines it: reduced, with m >= n."""
    q, r = c.outputs
    m, n = c.inputs[0].shape[-2:]
    if m < n or q.shape[-1] != n:
        raise ShapeError(f"the derivative of a QR factorization of {m}x{n} matrices is defined for reduced "
                         "factors (full_matrices only when square) of matrices with at least as many rows as "
                         "columns (JAX's)")
    return q, r


@family.jvp("tad.qr")
def _qr_jvp(c, tangents):
    (t,) = tangents
    q, r = _qr_checked(c)
    dx_rinv = triangular_solve(r, t, left_side=False, lower=False)
    qt_dx_rinv = _mm(_conj(q), dx_rinv, transpose_a=True)
    low = _tril(qt_dx_rinv, -1)
    omega = _plus(low - _mH(low), _imaginary_diagonal(qt_dx_rinv))  # skew-Hermitian
    return [_mm(q, omega - qt_dx_rinv) + dx_rinv, _mm(qt_dx_rinv - omega, r)]


@family.vjp("tad.qr")
def _qr_vjp(c, cotangents):
    ct_q, ct_r = cotangents
    q, r = _qr_checked(c)
    # The transpose of the jvp above, step by step backwards.
    ct_omega, ct_c = [], []
    if ct_q is not None:
        qt_ct = _mm(q, ct_q, transpose_a=True)
        ct_omega.append(qt_ct)
        ct_c.append(-qt_ct)
    if ct_r is not None:
        ct_rt = _mm(ct_r, r, transpose_b=True)
        ct_c.append(ct_rt)
        ct_omega.append(-ct_rt)
    omega = _plus(*ct_omega)
    ct_c += [_tril(omega - _mH(omega), -1), _imaginary_diagonal(omega)]
    total = _plus(*ct_c)
    ct_d = _plus(ct_q, _mm(_conj(q), total))
    return [triangular_solve(r, ct_d, left_side=False, lower=False, transpose_a=True)]


def _reciprocal_differences(values, squares: bool) -> Val:
    """``F[..., i, j] = 1 / (v_j - v_i)`` (of squares ``v_j² - v_i²`` with ``squares``), 0 on the diagonal."""
    values = builder.wrap(values)
    n = values.shape[-1]
    row = builder.reshape(values, values.shape[:-1] + (1, n))
    column = builder.reshape(values, values.shape + (1,))
    differences = (row + column) * (row - column) if squares else row - column
    eye = _eye(n, values.element_type)
    return 1.0 / (differences + eye) - eye


@family.jvp("tad.eigh")
def _eigh_jvp(c, tangents):
    (t,) = tangents
    v, w = c.outputs
    lower = _flag_attrs(c, "tad.eigh")["lower"]
    vt_a_v = _mm(_mm(_conj(v), _symmetric_from(t, lower), transpose_a=True), v)  # vᴴ da v
    dw = _diagonal(vt_a_v)
    return [_mm(v, _as_type_of(_reciprocal_differences(w, False), v) * vt_a_v),
            builder.real(dw) if dw.is_complex else dw]


@family.vjp("tad.eigh")
def _eigh_vjp(c, cotangents):
    ct_v, ct_w = cotangents
    v, w = c.outputs
    lower = _flag_attrs(c, "tad.eigh")["lower"]
    inner = []
    if ct_v is not None:
        inner.append(_as_type_of(_reciprocal_differences(w, False), v) * _mm(v, ct_v, transpose_a=True))
    if ct_w is not None:
        inner.append(_diag_matrix(_as_type_of(ct_w, v)))
    middle = _plus(*inner)
    return [_symmetric_from_transpose(_mm(_mm(_conj(v), middle), v, transpose_b=True), lower)]


def _largest_components(v) -> tuple:
    """The one-hot mask (of ``v``'s type) of each column's largest component in modulus, and that component.

    LAPACK makes that component real (the first of ties, as ``argmax``
    picks): its real part is the component.
    """
    v = builder.wrap(v)
    i64 = ir.IntegerType.get_signless(64)
    largest = builder.argmax(builder.complex_abs(v), v.ndim - 2)
    mask = _as_type_of(builder.equal(builder.iota(v.shape, v.ndim - 2, i64),
                                     builder.reshape(largest, largest.shape[:-1] + (1, v.shape[-1]))), v)
    return mask, builder.real(_column_sums(mask * v))


@family.jvp("tad.eig")
def _eig_jvp(c, tangents):
    (t,) = tangents
    w, v = c.outputs
    p = _mm(solve(v, _as_type_of(t, v)), v)  # v⁻¹ da v
    u = _mm(v, _reciprocal_differences(w, False) * p)
    # dv_j = u_j + c_j v_j: c_j keeps |v_j| = 1 (its real part) and v_j's largest component real (its
    # imaginary part), JAX's choice.
    mask, largest = _largest_components(v)
    norm_part = -builder.real(_column_sums(_conj(v) * u))
    phase_part = -builder.imag(_column_sums(mask * u)) / largest
    return [_diagonal(p), u + _scale_columns(v, builder.make_complex(norm_part, phase_part))]


@family.vjp("tad.eig")
def _eig_vjp(c, cotangents):
    ct_w, ct_v = cotangents
    w, v = c.outputs
    ct_p = []
    if ct_w is not None:
        ct_p.append(_diag_matrix(ct_w))
    if ct_v is not None:
        # The jvp's steps transposed: c_j's cotangent is sum_i ct_v[i, j] v[i, j]; its real part reaches u
        # through -conj(v), its imaginary part through -i mask / largest.
        g = _column_sums(ct_v * v)
        mask, largest = _largest_components(v)
        phase = builder.imag(g) / largest
        ct_u = ct_v - _scale_columns(_conj(v), builder.real(g)) - \
            _scale_columns(mask, builder.make_complex(builder.zeros_like(phase), phase))
        ct_p.append(_reciprocal_differences(w, False) * _mm(v, ct_u, transpose_a=True))
    # p = v⁻¹ da v, transposed: v⁻ᵀ ct_p vᵀ.
    ct_a = solve(v, _mm(_plus(*ct_p), v, transpose_b=True), transpose_a=True)
    return [ct_a if c.inputs[0].is_complex else builder.real(ct_a)]


def _svd_checked(c) -> tuple:
    """``u, s, vt`` of an SVD whose derivative exists as JAX defines it: reduced factors."""
    u, s, vt = c.outputs
    m, n = c.inputs[0].shape[-2:]
    if u.shape[-1] != vt.shape[-2]:
        raise ShapeError(f"the derivative of a full SVD of {m}x{n} matrices is not defined (JAX's): "
                         "use full_matrices=False")
    return u, s, vt


@family.jvp("tad.svd")
def _svd_jvp(c, tangents):
    (t,) = tangents
    u, s, vt = _svd_checked(c)
    m, n = c.inputs[0].shape[-2:]
    inverse_s = 1.0 / builder.wrap(s)
    ds_matrix = _mm(_mm(_conj(u), t, transpose_a=True), _conj(vt), transpose_b=True)  # uᴴ dA v
    f = _as_type_of(_reciprocal_differences(s, True), u)
    ds_s, s_ds = _scale_columns(ds_matrix, s), _scale_rows(ds_matrix, s)
    du = _mm(u, f * (ds_s + _mH(ds_s)))
    phase = _imaginary_diagonal(ds_matrix)  # complex: the phase that u's columns take (JAX's choice)
    if phase is not None:
        du = du + _mm(u, _scale_columns(phase, inverse_s))
    dvt = _mm(_conj(f * (s_ds + _mH(s_ds))), vt, transpose_a=True)  # (v (F ∘ (S dS + dSᴴ S)))ᴴ
    if m > n:  # the part of dA v outside u's columns
        t_v = _mm(t, _conj(vt), transpose_b=True)
        du = du + _scale_columns(t_v - _mm(u, _mm(_conj(u), t_v, transpose_a=True)), inverse_s)
    if n > m:  # the part of uᴴ dA outside vt's rows
        ut = _mm(_conj(u), t, transpose_a=True)
        dvt = dvt + _scale_rows(ut - _mm(_mm(ut, _conj(vt), transpose_b=True), vt), inverse_s)
    ds = _diagonal(ds_matrix)
    return [du, builder.real(ds) if ds.is_complex else ds, dvt]


@family.vjp("tad.svd")
def _svd_vjp(c, cotangents):
    ct_u, ct_s, ct_vt = cotangents
    u, s, vt = _svd_checked(c)
    m, n = c.inputs[0].shape[-2:]
    inverse_s = 1.0 / builder.wrap(s)
    # The cotangent of dS = uᴴ dA v, and what reaches dA besides it (the jvp's steps transposed: a
    # complex u or vt enters conjugated where the jvp has it plain, and plain where conjugated).
    u_bar, vt_bar = _conj(u), _conj(vt)
    f = _as_type_of(_reciprocal_differences(s, True), u)
    inner, outer = [], []
    if ct_s is not None:
        inner.append(_diag_matrix(_as_type_of(ct_s, u)))
    if ct_u is not None:
        ut_ct = _mm(u, ct_u, transpose_a=True)
        g = f * ut_ct
        inner.append(_scale_columns(g + _mH(g), s))
        phase = _imaginary_diagonal(ut_ct)
        if phase is not None:
            inner.append(_scale_columns(phase, inverse_s))
        if m > n:
            outer.append(_mm(_scale_columns(ct_u - _mm(u_bar, ut_ct), inverse_s), vt_bar))
    if ct_vt is not None:
        h = f * _conj(_mm(vt, ct_vt, transpose_b=True))
        inner.append(_scale_rows(h + _mH(h), s))
        if n > m:
            outer.append(_mm(u_bar, _scale_rows(ct_vt - _mm(_mm(ct_vt, vt, transpose_b=True), vt_bar),
                                                inverse_s)))
    return [_plus(_mm(_mm(u_bar, _plus(*inner)), vt_bar), *outer)]


# ----------------------------------------------------------------------------
# Batching: the mapped axis joins the batch dims
# ----------------------------------------------------------------------------

@family.batching("tad.cholesky", "tad.triangular_solve", "tad.solve", "tad.lu", "tad.lu_pivots_to_permutation",
                 "tad.qr", "tad.eigh", "tad.svd", "tad.eig")
def _batch(ctx, op, operands, batched):
    if op.name in ("tad.solve", "tad.triangular_solve") and not batched[0]:
        return [_solve_with_more_columns(ctx, op, *operands)]
    rows = [broadcast_batch(x, b, ctx.size) for x, b in zip(operands, batched)]
    return recreate(op, rows, [with_batch(r.type, ctx.size) for r in op.results])


def _solve_with_more_columns(ctx, op, a, b) -> Val:
    """A solve whose right-hand sides alone are mapped: one solve with them side by side, one factorization.

    The mapped axis joins b's columns (its rows, for a right-side
    triangular solve), so ``a`` is not repeated nor factored per row.
    """
    left = op.name == "tad.solve" or bool(python_attrs(op)["left_side"].value)
    rank = b.ndim
    # b: (size, *batch, rows, cols) -> (*batch, rows, size, cols) or (*batch, size, rows, cols)
    order = list(range(1, rank - 1)) + [0, rank - 1] if left else list(range(1, rank - 2)) + [0, rank - 2, rank - 1]
    moved = builder.transpose(b, order)
    shape = moved.shape[:-3] + ((moved.shape[-3], ctx.size * moved.shape[-1]) if left
                                else (ctx.size * moved.shape[-2], moved.shape[-1]))
    [x] = recreate(op, [a, builder.reshape(moved, shape)], [ir.RankedTensorType.get(shape, b.element_type)])
    return builder.transpose(builder.reshape(x, moved.shape), [order.index(d) for d in range(rank)])
