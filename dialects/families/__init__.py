"""The op families: one module per family registers the records of its ops.

Importing this package registers every record; :mod:`tensorad.dialects`
imports it, so a loaded dialect always comes with its records. The order
here is the order of the generated ``tad.irdl.mlir``.

Examples
--------
>>> from tensorad.dialects.record import FAMILIES
>>> "structure" in FAMILIES and "elementwise" in FAMILIES
True
"""

from . import (  # noqa: F401  (importing a family module registers its records)
    elementwise,
    structure,
    contraction,
    reductions,
    markers,
    convolution,
    pooling,
    indexing,
    scatter,
    sorting,
    scan,
    loss,
    control_flow,
    memory,
    linalg,
    linalg_lapack,
    fft,
    special,
    complex_numbers,
    collectives,
    random_bits,
)
