"""``tad-lower-to-llvm``: the named CPU pipeline from tensors to the LLVM dialect.

Stages, in order:

1. elementwise ``arith``/``math`` ops on tensors become ``linalg.generic``,
   ``tad-inline-splat-inputs`` makes each input filled with a constant that
   constant, ``tad-recompute-elementwise`` clones an elementwise op read by
   several for each reader, and producer/consumer generics are fused, so a
   chain of elementwise ops makes one loop nest and no temporaries;
2. ``tad-thread-independent-loops`` makes a loop over independent pieces
   of work that a lowering marked (a convolution's images) a thread loop;
   ``tad-write-into-donated`` makes the last elementwise reader of each
   donated argument write into it; ``tad-collapse-loops`` merges the loops
   every operand of an op reads together; ``tad-hoist-invariant-transposes``
   moves transposes of loop-invariant weights out of loops,
   ``tad-clone-shared-fills`` gives each op its own
   copy of a shared zero init, ``tad-pack-streamed-operands`` copies a large
   matmul's streamed operand into panels; ``tad-outline-repeated-kernels``
   moves ops that repeat (an unrolled loop's) into one function each, so
   that what follows compiles them once; ``tad-tile-and-vectorize`` tiles
   every linalg op for threads, caches and vector registers and vectorizes
   it, for the host's vector width unless ``vector-bits`` says otherwise;
   ``tad-approximate-math`` turns ``exp`` and ``tanh`` on float32 vectors
   into polynomials (LLVM would call libm per lane);
3. one-shot bufferization across function boundaries (identity layouts, so
   the C interface sees plain dense memrefs); a kernel's result, which is
   the argument buffer it wrote into, is dropped (``drop-equivalent-buffer-results``);
4. ownership-based buffer deallocation (function results are owned by the
   caller), then ``tad-free-after-last-use`` moves every free right after the
   buffer's last use, so peak memory is what the program needs at once;
   ``tad-return-donated`` returns a donated argument itself, not a copy;
   ``tad-hoist-iteration-buffers`` allocates the buffers of a loop's
   iterations once where the lowering marked it (a group of images);
   ``tad-expand-strided-copies`` makes a copy from or into a strided
   buffer a loop nest (the runtime's ``memrefCopy`` copies an element at a
   time);
5. ``tad-split-long-functions`` cuts a long function (of kernel calls, or
   of loop nests) into chunk functions that pass values through a frame on
   the stack (code generation of one long function grows faster than its
   length, and a chunk of loop nests compiles on a core of its own);
   thread loops (``scf.forall``) become ``scf.parallel``; with ``threads`` > 1
   ``tad-outline-thread-loops`` and, once in the LLVM dialect,
   ``tad-define-thread-launchers`` run their chunks on the thread pool of
   the MLIR async runtime (``libmlir_async_runtime.so``); otherwise they stay
   sequential loops;
6. loops, vectors (``tad-round-bf16-on-bits`` then computes ``bf16`` ops
   in ``f32``, rounding on the bits, and moves ``bf16`` elements as ``i16``:
   LLVM's own ``bf16`` code flushes subnormals and aborts on some vectors),
   then LLVM; allocations go through the generic
   ``_mlir_memref_to_llvm_alloc/free`` so the runtime can count live bytes;
   canonicalization folds the memref descriptors each op builds and reads
   (``insertvalue``/``extractvalue`` chains: half of an unrolled program's
   LLVM dialect, which a function left unoptimized would otherwise carry
   into code generation); ``tad-split-long-blocks`` cuts the one long block
   of a function left with kernel calls only into short ones.

Examples
--------
>>> "one-shot-bufferize" in pipeline()
True
>>> "tad-outline-thread-loops{threads=4}" in pipeline(LowerToLLVMOptions(threads=4))
True
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import math as math_dialect

from ..options import option
from .tile_and_vectorize import CodegenOptions

# Named apart: tad-remat's graph counts the ops it copies (tensorad.passes.remat.graph).
RECOMPUTE_ELEMENTWISE = "tad-recompute-elementwise"
TENSOR_STAGES = (
    "func.func(convert-elementwise-to-linalg)",
    "tad-read-parallel-inits-as-inputs",
    "tad-inline-splat-inputs",
    RECOMPUTE_ELEMENTWISE,
    "linalg-fuse-elementwise-ops",
    # No upstream cse on tensors: it would merge the ops tad-remat recomputes
    # with the originals they copy (tad-simplify has done CSE before tad-remat).
    "any(canonicalize)",
    "tad-widen-bools",
)
BUFFERIZE = ("one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map"
              " allow-return-allocs-from-loops}")
# Shared with tad-lower-to-nvvm, which puts its own pass between bufferization and these.
DEALLOC_STAGES = (
    # upstream's buffer-deallocation-pipeline, with tad-split-fresh-deallocs before the simplification,
    # which compares the buffers of one dealloc pairwise.
    "expand-realloc{emit-deallocs=false}",
    "ownership-based-buffer-deallocation",
    "any(canonicalize)",
    "tad-split-fresh-deallocs",
    "buffer-deallocation-simplification",
    "bufferization-lower-deallocations",
    "any(cse)",
    "any(canonicalize)",
    "tad-free-after-last-use",
    # A no-op in GPU code, whose arguments tad-copy-arguments-to-device copies to the device.
    "tad-return-donated",
    "tad-widen-bools",
    "convert-bufferization-to-memref",
)
_BUFFER_STAGES = (
    BUFFERIZE,
    # A kernel of tad-outline-repeated-kernels writes into its init argument: the result it
    # returns is that argument (once canonicalization has folded the loops' buffer iter_args),
    # which the caller then uses itself, without the clone the deallocation would return.
    "any(canonicalize)",
    "drop-equivalent-buffer-results",
    *DEALLOC_STAGES,
    "tad-hoist-iteration-buffers",
    "tad-expand-strided-copies",
    "func.func(convert-linalg-to-loops)",
    "scf-forall-to-parallel",
)
# Passes that transform what is inside one function (or GPU module) at a time run nested in any(...): in the
# forked child that runs a compile's stages, MLIR runs them on every core, a function per task
# (tensorad.passes.isolation); on one core too, each goes over one function at a time, in cache.
LOOP_STAGES = (
    # Fully unrolled: an n-D transfer becomes 1-D vector loads and stores, not
    # a loop over a stack buffer.
    "any(canonicalize,convert-vector-to-scf{full-unroll=true},convert-scf-to-cf)",
    # Upstream works out the dims a rank-reducing subview drops from its
    # strides, and picks wrong ones when they are dynamic.
    "tad-split-rank-reducing-subviews",
    "any(expand-strided-metadata,lower-affine)",
)
LLVM_STAGES = (
    # Complex arithmetic on scalars becomes arith/math on the two parts (the parts stay
    # complex.re/im/create, which convert-complex-to-llvm makes struct fields).
    "any(convert-complex-to-standard)",
    # Math first: its lowerings of vector ops unroll them with vector ops.
    "convert-math-to-funcs",
    # log1p as libm's log1p: the approximation, log(1 + x), loses every digit of a tiny x.
    "any(convert-math-to-llvm{approximate-log1p=false})",
    "convert-math-to-libm",
    "any(convert-vector-to-llvm,convert-complex-to-llvm)",
    "finalize-memref-to-llvm{use-generic-functions=true}",
    # arith, index, func, cf and ub in one conversion, one walk of the module where five
    # passes took five (W7's gradient: 0.19-0.24 s of conversions became 0.08 s).
    "convert-to-llvm",
    "reconcile-unrealized-casts",
)


@dataclass(frozen=True)
class LowerToLLVMOptions(CodegenOptions):
    """The options of ``tad-lower-to-llvm``: threads, the vector width, and whether there may be bf16 values."""

    # jit turns it off for a program without bf16 values: the pass would walk every op for nothing.
    bf16: bool = option(True, "run tad-round-bf16-on-bits (bf16 values may be computed)")


def pipeline(options: LowerToLLVMOptions = LowerToLLVMOptions()) -> str:
    """Return the pipeline text of ``tad-lower-to-llvm``.

    ``options.threads`` is the number of threads large ops are split over
    (1 makes single-threaded code that needs no async runtime);
    ``options.vector_bits`` the vector register width to tile for (0 asks
    the host); ``options.bf16=False`` leaves out ``tad-round-bf16-on-bits``.

    Examples
    --------
    >>> pipeline().startswith("func.func(")
    True
    """
    threads, bits = options.threads, options.vector_bits
    # Loops merge after tad-write-into-donated, which finds a donated argument read as itself.
    stages = [*TENSOR_STAGES, "tad-thread-independent-loops", "tad-write-into-donated", "tad-collapse-loops",
              "tad-hoist-invariant-transposes", "tad-clone-shared-fills",
              f"tad-pack-streamed-operands{{vector-bits={bits}}}", "tad-outline-repeated-kernels",
              f"tad-tile-and-vectorize{{threads={threads} vector-bits={bits}}}", "tad-approximate-math",
              *_BUFFER_STAGES]
    stages += ["tad-split-long-functions", f"tad-outline-thread-loops{{threads={threads}}}", *LOOP_STAGES,
               # Every bf16 op is a scalar or 1-D vector op now, and not yet LLVM's (which flushes subnormals).
               *(["tad-round-bf16-on-bits"] if options.bf16 else []), *LLVM_STAGES,
               # Canonicalized first: a chunk function then reads its captured descriptors' fields it uses only.
               "any(canonicalize)", f"tad-define-thread-launchers{{threads={threads}}}", "tad-split-long-blocks"]
    return ",".join(stages)


@functools.lru_cache(maxsize=None)
def libm_prototypes() -> dict:
    """The C math functions ``convert-math-to-libm`` calls: ``{name: function type}`` (``"(f32) -> f32"``).

    Asked of the pass itself: each ``math`` op, on ``f32`` and on ``f64``,
    is lowered alone, and the declarations it makes are the table (built
    once per process, in a few tenths of a second). A module that declares
    one of these functions with another type would call the C library's
    with the wrong registers (``@sin(f32) -> f32`` returns its argument).

    Examples
    --------
    >>> libm_prototypes()["sinf"], libm_prototypes()["atan2"]
    ('(f32) -> f32', '(f64, f64) -> f64')
    """
    from ...dialects import make_context
    from ..registry import build_pass_manager

    context = make_context()
    manager = build_pass_manager("convert-math-to-libm", context)
    found = {}
    ops = [cls for cls in vars(math_dialect).values()
           if isinstance(cls, type) and issubclass(cls, ir.OpView) and cls.OPERATION_NAME.startswith("math.")]
    for op in ops:
        arity = sum(p.kind == p.POSITIONAL_OR_KEYWORD for p in inspect.signature(op.__init__).parameters.values()) - 1
        for element in ("f32", "f64"):
            names = ", ".join(f"%a{i}" for i in range(arity))
            text = (f"func.func @probe({', '.join(f'%a{i}: {element}' for i in range(arity))}) -> {element} {{\n"
                    f'  %r = "{op.OPERATION_NAME}"({names}) : ({", ".join([element] * arity)}) -> {element}\n'
                    f"  return %r : {element}\n}}")
            try:  # ops of other operand or result types (math.fpowi, math.isnan) do not parse or lower so
                probe = ir.Module.parse(text, context)
                manager.run(probe.operation)
            except ir.MLIRError:
                continue
            for declared in probe.body.operations:
                if declared.operation.name == "func.func" and not declared.regions[0].blocks:
                    found[declared.attributes["sym_name"].value] = str(declared.attributes["function_type"])
    return found
