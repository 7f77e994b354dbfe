"""``tensorad.distributed``: several processes (an MPI job) training one model together.

Start the processes with MPI's launcher, ``mpiexec -n 2 python train.py``
(or ``srun --mpi=pmi2`` on a SLURM cluster); each runs the same program.
:func:`initialize` joins the job (it is called for you by everything
here), :func:`process_index` and :func:`process_count` say who is who.
Without a launcher there is one process and MPI is never loaded: every
collective is then the identity (or adds a dim of size 1).

The collectives :func:`psum`, :func:`pmean`, :func:`pmax`, :func:`pmin`,
:func:`all_gather` and :func:`reduce_scatter` combine the arrays of every process, on pytrees,
eagerly and inside compiled code (``tad.psum``, ``tad.all_gather``,
``tad.reduce_scatter``, lowered to calls of the MPI library that mpi4py
loaded: the ``mpich`` wheel's). Every process must call the same
collectives in the same order. They differentiate in both modes and
batch under ``vmap``, with JAX's rules for ``shard_map``: ``psum``'s and
``pmean``'s results are the same on every process, and so are their
cotangents (the transpose of ``psum`` is the identity, of ``pmean`` a
division by the number of processes); ``all_gather``'s transpose is
``reduce_scatter`` and the reverse. The gradient with respect to a value
every process holds (replicated parameters) is each process's share of the
gradient, unless the value went through :func:`pvary` (an identity whose
transpose is ``psum``) before the processes used it their own way:
:func:`data_parallel` does both for you.

Data parallelism is one line, :func:`data_parallel`; tensor parallelism
either marks the arrays to split in the one-process program with
:func:`sharded` (the compiler partitions it: ``tad-partition``), or is
written by hand: :func:`shard` gives this process's block of an array, and
partial results are added with :func:`psum`.
A process that raises ends the whole job (``MPI_Abort``), with the error
printed, instead of leaving the others waiting in a collective.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> from tensorad import distributed
>>> distributed.process_count()  # no mpiexec here
1
>>> ta.jit(lambda x: distributed.psum(x * 2.0))(np.ones(3))
array([2., 2., 2.])
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import shutil
import sys
import sysconfig
import threading
from typing import Callable, Sequence

import numpy as np
from mlir import ir

from tensorad.dialects import builder
from tensorad.dialects.families.collectives import ELEMENT_TYPES, define_mpi_symbols
from tensorad.passes.lower.host import THREADS_VARIABLE, available_cores

from . import dtypes, tree
from . import numpy as tnp
from .tracing import Tracer, emits_ops, user_line, user_location

# Set in the processes a launcher starts: MPICH's Hydra and PMI-2 (srun --mpi=pmi2), PMIx, Open MPI.
_LAUNCHER_SIZE_VARIABLES = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE")
_LAUNCHER_VARIABLES = ("PMI_RANK", "PMIX_RANK", *_LAUNCHER_SIZE_VARIABLES)
# Processes of the job on this machine, as the launchers say it.
_LOCAL_SIZE_VARIABLES = ("MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE", "SLURM_NTASKS_PER_NODE")


class _World:
    """The job as this process sees it, once :func:`initialize` has run."""

    def __init__(self):
        self.lock = threading.Lock()
        self.ready = False
        self.index, self.count = 0, 1


_WORLD = _World()


def _launched() -> bool:
    return any(name in os.environ for name in _LAUNCHER_VARIABLES)


def initialize() -> None:
    """Join the MPI job this process was started in, if any; calling it again does nothing.

    Under a launcher (``mpiexec``, ``srun --mpi=pmi2``) this initializes MPI
    through mpi4py (installed by ``pip install "tensorad[distributed]"``); in a
    job of several processes it also makes an uncaught exception end every
    process (the traceback is printed, then ``MPI_Abort``) and, unless
    ``TENSORAD_NUM_THREADS`` is set, shares this machine's cores among its
    processes. Without a launcher there is one process and MPI is not loaded.

    Raises
    ------
    ImportError
        Started by a launcher, but mpi4py is not installed.
    RuntimeError
        MPI sees another number of processes than the launcher started.

    Examples
    --------
    >>> initialize(); initialize()
    >>> process_index(), process_count()
    (0, 1)
    """
    with _WORLD.lock:
        if _WORLD.ready:
            return
        if _launched():
            _join_mpi()
        _WORLD.ready = True


def _join_mpi() -> None:
    try:
        from mpi4py import MPI  # initializes MPI (MPI_Init_thread)
    except ImportError as err:
        raise ImportError("this process was started by an MPI launcher, but mpi4py is not installed: "
                          'pip install "tensorad[distributed]"') from err
    comm = MPI.COMM_WORLD
    index, count = comm.Get_rank(), comm.Get_size()
    started = next((int(os.environ[v]) for v in _LAUNCHER_SIZE_VARIABLES if v in os.environ), count)
    if started != count:
        raise RuntimeError(f"the launcher started {started} processes but MPI sees {count}: the MPI that "
                           f"mpi4py loaded ({MPI.Get_library_version().splitlines()[0]}) is not the launcher's")
    if count > 1:
        define_mpi_symbols(count)
        _abort_job_on_error(comm, index)
        if THREADS_VARIABLE not in os.environ:
            local = next((int(os.environ[v]) for v in _LOCAL_SIZE_VARIABLES if os.environ.get(v, "").isdigit()),
                         None) or comm.Split_type(MPI.COMM_TYPE_SHARED).Get_size()
            os.environ[THREADS_VARIABLE] = str(max(1, available_cores() // local))
    _WORLD.index, _WORLD.count = index, count


def _abort_job_on_error(comm, index: int) -> None:
    """Make an uncaught exception print its traceback, then end every process of the job.

    Without this the other processes would wait forever in their next collective.
    """
    previous = sys.excepthook

    def hook(kind, value, traceback):
        try:
            previous(kind, value, traceback)
            sys.stderr.write(f"tensorad.distributed: process {index} raised {kind.__name__}; "
                             "ending every process of the job (MPI_Abort)\n")
            sys.stderr.flush()
        finally:
            comm.Abort(1)

    sys.excepthook = hook


def process_index() -> int:
    """This process's number in the job, from 0 (MPI's rank).

    Examples
    --------
    >>> process_index()
    0
    """
    initialize()
    return _WORLD.index


def process_count() -> int:
    """Number of processes in the job (1 without a launcher).

    Examples
    --------
    >>> process_count()
    1
    """
    initialize()
    return _WORLD.count


def mpiexec() -> str:
    """Path of the ``mpiexec`` of the installed ``mpich`` package (else of this environment, else on ``PATH``).

    Raises
    ------
    FileNotFoundError
        No ``mpiexec`` is installed.

    Examples
    --------
    >>> os.path.basename(mpiexec())
    'mpiexec'
    """
    try:
        files = importlib.metadata.files("mpich") or []
    except importlib.metadata.PackageNotFoundError:
        files = []
    candidates = [str(f.locate()) for f in files if f.name == "mpiexec"]
    candidates += [os.path.join(folder, "mpiexec") for folder in (sysconfig.get_path("scripts"),
                                                                  os.path.dirname(sys.executable))]
    for path in candidates:
        if os.access(path, os.X_OK):
            return os.path.abspath(path)
    found = shutil.which("mpiexec")
    if found is None:
        raise FileNotFoundError('no mpiexec is installed: pip install "tensorad[distributed]" installs MPICH\'s')
    return found


# --- collectives ------------------------------------------------------------------------

def _operand(leaf) -> Tracer:
    x = tnp.asarray(leaf)
    if str(dtypes.to_mlir(x.dtype)) not in ELEMENT_TYPES:
        raise TypeError(f"collectives take float32, float64, int32 or int64 arrays, got {x.dtype.name}")
    return x


def _collective(name: str, x: Tracer) -> Tracer:
    processes = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), process_count())
    return Tracer.of(builder.build(name, [x.value], {"processes": processes}))


def _axis(axis: int, ndim: int, what: str) -> int:
    if not -ndim <= axis < ndim:
        raise ValueError(f"{what} {axis} is out of range for an array of {ndim} dimensions")
    return axis % ndim


def _fused(name: str, x):
    """Collective ``name`` (``tad.psum``, ``tad.pmax``, ``tad.pmin``) of every leaf of ``x``, one per dtype.

    The leaves of one dtype are flattened into one array (the order of the
    tree), reduced by one collective (one MPI call in place, instead of one
    per leaf: a gradient's arrays travel as one message) and split again.
    """
    leaves, treedef = tree.flatten(x)
    operands = [_operand(leaf) for leaf in leaves]
    results = [None] * len(operands)
    buckets: dict = {}
    for i, operand in enumerate(operands):
        buckets.setdefault(operand.dtype, []).append(i)
    for members in buckets.values():
        if len(members) == 1 or process_count() == 1:  # one process: identities, nothing to pack
            for i in members:
                results[i] = _collective(name, operands[i])
            continue
        flat = _collective(name, tnp.concatenate([tnp.ravel(operands[i]) for i in members]))
        start = 0
        for i in members:
            size = operands[i].size
            results[i] = tnp.reshape(flat[start:start + size], operands[i].shape)
            start += size
    return tree.unflatten(treedef, results)


@emits_ops
def psum(x):
    """The elementwise sum over processes of ``x`` (a pytree of arrays); every process gets it.

    Its transpose is the identity: the sum is the same on every process, and
    so is its cotangent. The leaves of one dtype travel together, in one
    MPI call (``MPI_Allreduce`` in place).

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> psum({"w": np.arange(3.0)})  # one process: the sum of one
    {'w': array([0., 1., 2.])}
    >>> ta.grad(lambda x: psum(x * x).sum())(np.arange(3.0))
    array([0., 2., 4.])
    """
    return _fused("tad.psum", x)


@emits_ops
def pmax(x):
    """The elementwise maximum over processes of ``x`` (a pytree of arrays); every process gets it.

    Its derivative goes to the process holding the maximum, split evenly
    among the processes that tie for it (as :func:`tensorad.numpy.max`'s
    among tied elements).

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> pmax(np.array([1.0, -2.0]))  # one process: the maximum of one
    array([ 1., -2.])
    >>> ta.grad(lambda x: pmax(x * x).sum())(np.arange(3.0))
    array([0., 2., 4.])
    """
    return _fused("tad.pmax", x)


@emits_ops
def pmin(x):
    """The elementwise minimum over processes of ``x`` (a pytree of arrays); every process gets it.

    Its derivative goes to the process holding the minimum, split evenly
    among ties, as :func:`pmax`'s.

    Examples
    --------
    >>> import numpy as np
    >>> pmin({"a": np.int32(3)})
    {'a': array(3, dtype=int32)}
    """
    return _fused("tad.pmin", x)


@emits_ops
def pvary(x):
    """``x`` (a pytree of arrays that every process holds), to be used differently by each process.

    The identity, at no cost, with a derivative: the transpose adds up the
    cotangents of every process (``psum``), as JAX's ``pvary`` and
    Megatron's ``f``. So the gradient with respect to a replicated value
    that goes through ``pvary`` before the processes use it their own way
    (each its rows of a batch, or its block of a layer) is the whole
    gradient, the same on every process, instead of each process's share.
    :func:`data_parallel` applies it to the arguments that are not the batch.

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> ta.grad(lambda w: tnp.sum(pvary(w) * 3.0))(np.ones(2))
    array([3., 3.])
    """
    return tree.tree_map(lambda leaf: _collective("tad.pvary", _operand(leaf)), x)


@emits_ops
def pmean(x):
    """The elementwise mean over processes of ``x`` (a pytree of arrays; integers give floats).

    Examples
    --------
    >>> import numpy as np
    >>> pmean(np.array([1.0, 3.0]))
    array([1., 3.])
    """
    count = process_count()
    return tree.tree_map(lambda leaf: leaf / count, psum(x))


@emits_ops
def all_gather(x, *, axis: int = 0, tiled: bool = False):
    """The ``x`` of every process, in process order, stacked along a new dim ``axis``.

    With ``tiled=True`` they are concatenated along the existing dim
    ``axis`` instead. Works on pytrees. Its transpose is :func:`reduce_scatter`.

    Examples
    --------
    >>> import numpy as np
    >>> all_gather(np.arange(3.0)).shape, all_gather(np.ones((2, 3)), axis=1).shape
    ((1, 3), (2, 1, 3))
    >>> all_gather(np.ones((2, 3)), axis=1, tiled=True).shape
    (2, 3)
    """
    def gather(leaf):
        x = _operand(leaf)
        if tiled:
            if x.ndim == 0:
                raise ValueError("all_gather(tiled=True) of a 0-d array: there is no dim to concatenate along")
            d = _axis(axis, x.ndim, "axis")
        else:
            d = _axis(axis, x.ndim + 1, "axis")
        stacked = _collective("tad.all_gather", x)  # (processes, *x.shape)
        moved = tnp.transpose(stacked, list(range(1, d + 1)) + [0] + list(range(d + 1, stacked.ndim)))
        if not tiled:
            return moved
        return tnp.reshape(moved, x.shape[:d] + (x.shape[d] * stacked.shape[0],) + x.shape[d + 1:])

    return tree.tree_map(gather, x)


@emits_ops
def reduce_scatter(x, *, scatter_dimension: int = 0, tiled: bool = False):
    """The sum over processes of ``x``, of which process ``r`` keeps block ``r`` along ``scatter_dimension``.

    That dim must have one entry per process (it is removed), or with
    ``tiled=True`` a multiple of the number of processes (each keeps its
    share). Works on pytrees. Its transpose is :func:`all_gather` (JAX's
    ``psum_scatter``).

    Examples
    --------
    >>> import numpy as np
    >>> reduce_scatter(np.arange(6.0).reshape(1, 6))
    array([0., 1., 2., 3., 4., 5.])
    >>> reduce_scatter(np.arange(6.0), tiled=True)
    array([0., 1., 2., 3., 4., 5.])
    """
    count = process_count()

    def scatter(leaf):
        x = _operand(leaf)
        d = _axis(scatter_dimension, x.ndim, "scatter_dimension")
        n = x.shape[d]
        if tiled:
            if n % count:
                raise ValueError(f"reduce_scatter(tiled=True): dim {d} of size {n} does not split over "
                                 f"{count} processes")
            x = tnp.reshape(x, x.shape[:d] + (count, n // count) + x.shape[d + 1:])
        elif n != count:
            raise ValueError(f"reduce_scatter: dim {d} has size {n}, not one entry per process ({count})")
        front = tnp.transpose(x, [d] + list(range(d)) + list(range(d + 1, x.ndim)))
        return _collective("tad.reduce_scatter", front)

    return tree.tree_map(scatter, x)


def shard(x, axis: int = 0):
    """This process's block of ``x`` (a pytree of arrays) along ``axis``: block ``r`` of ``process_count()``.

    Numpy arrays give numpy views (no copy, nothing compiled); traced
    arrays a slice. Use it to give each process its part of a batch
    (:func:`data_parallel` does) or of a layer's weights (tensor parallelism).

    Raises
    ------
    ValueError
        The dim does not split evenly over the processes.

    Examples
    --------
    >>> import numpy as np
    >>> shard(np.arange(4.0))
    array([0., 1., 2., 3.])
    """
    index, count = process_index(), process_count()

    def block(leaf):
        ndim = np.ndim(leaf) if not isinstance(leaf, Tracer) else leaf.ndim
        d = _axis(axis, ndim, "axis")
        n = leaf.shape[d] if isinstance(leaf, Tracer) else np.shape(leaf)[d]
        if n % count:
            raise ValueError(f"dim {d} of size {n} does not split evenly over {count} processes")
        if count == 1:
            return leaf
        size = n // count
        return leaf[(slice(None),) * d + (slice(index * size, (index + 1) * size),)]

    try:
        return tree.tree_map(block, x)
    except ValueError as err:  # not an op emitter: the user's line is added here
        raise ValueError(f"{user_line()}: shard: {err}") from None


def sharded(x, axis: int = 0):
    """``x`` (a pytree of arrays), marked to be split along ``axis`` over the processes (tensor parallelism).

    The value is unchanged: the program stays the one-process program.
    Under ``jit``, the ``tad-partition`` pass then makes each process
    compute with its block of ``x`` (``tad.shard``) and of everything
    computed from it elementwise, contract a sharded dim of
    ``tad.dot_general`` locally and add the partial products over processes
    (``psum``), keep a free dim's result split, and gather a value whole
    where it is needed (results, ops without a partitioning rule). The
    results and their derivatives are those of the one-process program. A
    concrete array (outside ``jit``) is returned as it is. The dim must split
    evenly over the processes.

    Raises
    ------
    ValueError
        ``axis`` is no dim of a leaf, or does not split evenly.

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> def layer(x, w):
    ...     return tnp.tanh(x @ sharded(w, axis=1)).sum()  # each process its columns of w
    >>> ta.jit(ta.grad(layer, argnums=1))(np.ones((2, 3)), np.zeros((3, 4)))
    array([[2., 2., 2., 2.],
           [2., 2., 2., 2.],
           [2., 2., 2., 2.]])
    """
    index, count = process_index(), process_count()

    def mark(leaf):
        if not isinstance(leaf, Tracer):  # concrete: nothing is partitioned outside jit
            return leaf
        i64 = ir.IntegerType.get_signless(64)
        d = _axis(axis, leaf.ndim, "axis")
        if leaf.shape[d] % count:
            raise ValueError(f"dim {d} of size {leaf.shape[d]} does not split evenly over {count} processes")
        attributes = {"dim": ir.IntegerAttr.get(i64, d), "process": ir.IntegerAttr.get(i64, index),
                      "processes": ir.IntegerAttr.get(i64, count)}
        with user_location():
            return Tracer.of(builder.build("tad.shard", [leaf.value], attributes))

    try:
        return tree.tree_map(mark, x)
    except ValueError as err:  # not an op emitter: the user's line is added here
        raise ValueError(f"{user_line()}: sharded: {err}") from None


def _replicated(x):
    """``x`` with its traced float leaves through :func:`pvary` (concrete ones cannot be differentiated)."""
    return tree.tree_map(lambda leaf: pvary(leaf) if isinstance(leaf, Tracer) and leaf.dtype.kind == "f" else leaf,
                         x)


def _reduce(x):
    """``x`` with its float leaves averaged over processes and its integer leaves added, in one call per dtype."""
    leaves, treedef = tree.flatten(x)
    kinds = [(leaf.dtype if isinstance(leaf, Tracer) else np.asarray(leaf).dtype).kind for leaf in leaves]
    for leaf, kind in zip(leaves, kinds):
        if kind not in "fiu":
            raise TypeError(f"data_parallel: a result of dtype {np.dtype(leaf.dtype).name} is neither averaged "
                            "(floats) nor added up (integers) over processes")
    # Both groups go through one psum (one MPI call per dtype); the floats are then divided.
    summed = psum(leaves)
    count = process_count()
    return tree.unflatten(treedef, [s / count if kind == "f" else s for s, kind in zip(summed, kinds)])


def data_parallel(fun: Callable, batch_argnums: int | Sequence[int], *, axis: int = 0) -> Callable:
    """``fun`` run on this process's share of the batch, its results combined over processes.

    The returned function takes the arguments of ``fun`` with the *global*
    batch in the arguments ``batch_argnums`` (pytrees; the same on every
    process). Each process runs ``fun`` on its block of the batch along
    ``axis`` (:func:`shard`: the batch must split evenly), then float results
    are averaged over processes (:func:`pmean`) and integer results added
    (:func:`psum`). For a ``fun`` that averages over its batch, such as
    ``value_and_grad`` of a mean loss, that is ``fun`` on the global batch:
    a training step computes the gradient this way, and every process then
    applies the same update to its replica of the parameters and optimizer
    state. The other traced arguments go through :func:`pvary`, so
    differentiating the returned function works too: ``grad(data_parallel(
    loss, ...))`` is the gradient of the mean loss over the global batch.
    Use it inside ``jit`` (one compiled step per process) or eagerly; with
    one process it is ``fun``.

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> loss = lambda w, x, y: tnp.mean((x @ w - y) ** 2)
    >>> step = ta.jit(data_parallel(ta.value_and_grad(loss), batch_argnums=(1, 2)))
    >>> value, grad = step(np.ones(2), np.ones((4, 2)), np.zeros(4))
    >>> float(value), grad
    (4.0, array([4., 4.]))
    """
    argnums = (batch_argnums,) if isinstance(batch_argnums, int) else tuple(batch_argnums)

    @functools.wraps(fun)
    def run_on_shard(*args, **kwargs):
        if process_count() == 1:
            return fun(*args, **kwargs)
        if any(not -len(args) <= i < len(args) for i in argnums):
            raise ValueError(f"{user_line()}: data_parallel: batch_argnums {argnums} for a call with "
                             f"{len(args)} positional arguments")
        batch = {i % len(args) for i in argnums}
        args = [shard(a, axis) if i in batch else _replicated(a) for i, a in enumerate(args)]
        return _reduce(fun(*args, **_replicated(kwargs)))

    return run_on_shard


__all__ = ["initialize", "process_index", "process_count", "mpiexec", "psum", "pmean", "pmax", "pmin", "pvary",
           "sharded", "all_gather",
           "reduce_scatter", "shard", "data_parallel"]
